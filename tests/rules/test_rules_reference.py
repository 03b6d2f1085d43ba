"""The rules reference (docs/rules/) is generated from the code and must not
drift from it; the rule books know every rule id the code and the tests
name, every id is named by a test, and every table option says what it does.

Everything here reads the repository only: the rule books are the record.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re

import msgspec
import pytest

from vigil import cli
from vigil.rules.games import GAMES
from vigil.rules.reference import COMMON, RuleBook
from vigil.rules_doc import INDEX, common_options, contents, option_docs, option_names, slug
from vigil.table_commands import TableSettings

ROOT = pathlib.Path(__file__).parents[2]
DOCS = ROOT / "docs" / "rules"
BOOKS: dict[str, RuleBook] = {name: system.rule_book for name, system in GAMES.items()}
ALL_IDS = {rule_id for book in BOOKS.values() for rule_id in book.ids}
ID = re.compile(r"\b(DRYH|MET|HUR)-(\d+)((?:/\d+)*)")


def named_ids(text: str) -> set[str]:
    """Every rule id a text names, the short form "X-14/16/20" expanded
    (ranges such as "X-01…X-20" name only their ends: a test covering a
    range should name what it checks)."""
    found = set()
    for prefix, first, rest in ID.findall(text):
        numbers = [first, *[n for n in rest.split("/") if n]]
        found |= {f"{prefix}-{int(n):02d}" for n in numbers}
    return found


def python_files(*parts: str) -> list[pathlib.Path]:
    files = sorted((ROOT.joinpath(*parts)).rglob("*.py"))
    assert files, parts
    return files


@pytest.mark.parametrize("name", sorted(contents()))
def test_committed_page_matches_the_code(name: str) -> None:
    committed = (DOCS / name).read_text()
    assert committed == contents()[name], f"run `vigil rules-doc --out docs/rules` ({name})"


def test_no_stale_page_is_left_in_docs_rules() -> None:
    assert {p.name for p in DOCS.iterdir()} == set(contents())


def test_the_cli_writes_exactly_the_generated_pages(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["rules-doc", "--out", str(tmp_path)]) == 0
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == contents()
    assert len(capsys.readouterr().out.splitlines()) == len(contents())


def test_the_id_reader_expands_short_forms() -> None:
    assert named_ids("DRYH-14/16/20, HUR-3 and MET-01…MET-04; XDRYH-99 is no id") == {
        "DRYH-14",
        "DRYH-16",
        "DRYH-20",
        "HUR-03",
        "MET-01",
        "MET-04",
    }


def test_every_rule_id_in_the_rules_and_the_tests_is_in_a_rule_book() -> None:
    unknown = {
        str(path.relative_to(ROOT)): sorted(named_ids(path.read_text()) - ALL_IDS)
        for path in [*python_files("server", "vigil", "rules"), *python_files("tests")]
    }
    assert {path: ids for path, ids in unknown.items() if ids} == {}


def test_every_rule_id_is_named_by_a_test() -> None:
    here = pathlib.Path(__file__).resolve()
    named = set().union(*(named_ids(p.read_text()) for p in python_files("tests") if p.resolve() != here))
    assert sorted(ALL_IDS - named) == []


@pytest.mark.parametrize("name", sorted(BOOKS))
def test_a_rule_book_numbers_its_rules_without_gaps(name: str) -> None:
    book = BOOKS[name]
    assert book.game == name
    ids = [rule.id for rule in book.rules]
    assert len(ids) == len(set(ids))
    assert sorted(ids) == [f"{book.prefix}-{n:02d}" for n in range(1, len(ids) + 1)]
    for entry in book.entries():
        assert entry.title and entry.does and entry.code, entry
        assert all(text.strip() for text in entry.decisions), entry


def test_every_rule_points_at_modules_that_exist() -> None:
    entries = [*COMMON, *(e for book in BOOKS.values() for e in book.entries())]
    missing = sorted({m for e in entries for m in e.code if importlib.util.find_spec(m) is None})
    assert missing == []


def test_every_option_a_rule_names_is_an_option_of_its_table() -> None:
    settings = set(option_names(TableSettings))
    for name, book in BOOKS.items():
        known = set(option_names(GAMES[name].options_type)) | settings
        named = {o for e in (*book.entries(), *COMMON) for o in e.options}
        assert sorted(named - known) == [], name


@pytest.mark.parametrize("struct", [*(s.options_type for s in GAMES.values()), TableSettings])
def test_every_option_field_has_a_type_default_and_description(struct: type[msgspec.Struct]) -> None:
    rows = option_docs(struct)
    assert len(rows) >= len(option_names(struct))
    assert [row.name for row in rows if not (row.description and row.type and row.default)] == []


def test_options_every_game_has_are_described_the_same_everywhere() -> None:
    common = common_options()
    assert "manual_dice" in common
    for name in common:
        rows = {next(r for r in option_docs(s.options_type) if r.name == name) for s in GAMES.values()}
        assert len(rows) == 1, rows


@pytest.mark.parametrize("name", sorted(contents()))
def test_a_page_never_points_outside_the_repository(name: str) -> None:
    text = contents()[name]
    for outside in ("../shared", "shared/rules", "DESIGN.md", "/work/"):
        assert outside not in text, outside
    for target in re.findall(r"\]\(([^)]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        page = (DOCS / path).resolve() if path else DOCS / name
        assert page.is_relative_to(ROOT) and page.exists(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", contents()[page.name], flags=re.M)
            assert anchor in {slug(h) for h in headings}, target


def test_the_index_links_every_game_page() -> None:
    index = contents()[INDEX]
    assert all(f"]({name}.md)" in index for name in GAMES)
