"""Dice anyone can verify (docs/dice.md): the derivation is unbiased and
depends on its documented inputs only; a table commits before it rolls,
records what it drew, never shows the seed before the reveal, and its
export verifies — and fails, naming what differs, once tampered with."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil import dice_verify
from vigil.changes import LogEntry
from vigil.cli import main as cli
from vigil.export import export, read_export
from vigil.history_view import history_page
from vigil.rules import fair_dice
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.hursagmu.commands import Harm, SeeDim
from vigil.rules.outcome import RuleError
from vigil.table import Table
from vigil.table_commands import CharacterCreate, DiceReveal, TableOptions
from vigil.views import GM_AUDIENCE, PUBLIC_AUDIENCE, Viewer

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "dice.md"
PROOF_JS = ROOT / "server" / "vigil" / "web" / "proof.js"
WALL = 1_000_000.0
GM = Actor(id="gm#1", role="gm")
PLAYER = Actor(id="anna#2", role="player")


def _seeds(*seeds: bytes) -> Any:
    """An entropy source giving ``seeds`` in turn (then zeros)."""
    left = list(seeds)
    return lambda n: left.pop(0) if left else bytes(n)


def _table(*seeds: bytes, table_id: str = "t") -> Table:
    table = Table.new(table_id, GAMES["hursagmu"], "Test", {}, WALL, undo_depth=20)
    if seeds:
        table = Table(
            id=table_id,
            system=table.system,
            epoch=1,
            rev=0,
            doc={**table.doc, "dice": None},
            undo_depth=20,
            entropy=_seeds(*seeds),
        )
        table.ensure_period()
    _run(table, CharacterCreate(id="a", name="Anna"))
    _run(table, CharacterCreate(id="b", name="Bran", kind="npc", visibility="hidden"))
    return table


def _run(table: Table, body: Any, actor: Actor = GM) -> LogEntry:
    change = table.prepare(body, WALL, Ctx(dice=RandomDice(1), actor=actor))
    table.commit(change)
    return change.entry(table.id, table.epoch, WALL)


# -- the mapping ---------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 21))
def test_rejection_is_unbiased_over_a_reduced_output_space(n: int) -> None:
    """With 8-bit samples in place of 32-bit ones, every value of 0..n-1
    is reached by exactly as many accepted samples: no face is likelier."""
    counts = Counter(v for x in range(256) if (v := fair_dice.accept(x, n, bits=8)) is not None)
    assert sorted(counts) == list(range(n))
    assert len(set(counts.values())) == 1
    assert sum(counts.values()) == 256 - 256 % n


def test_weighted_lot_takes_each_value_once_per_weight() -> None:
    weights = [1, 10, 1]
    picks = Counter(fair_dice.lot_index(v, weights) for v in range(sum(weights)))
    assert picks == {0: 1, 1: 10, 2: 1}


def test_a_rejected_sample_draws_again() -> None:
    """Samples past the largest multiple of n are rejected, never folded."""
    assert fair_dice.accept(255, 6, bits=8) is None
    assert fair_dice.accept(251, 6, bits=8) == 5
    assert fair_dice.accept(252, 6, bits=8) is None


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=12)
nonces = st.one_of(st.just(""), st.binary(min_size=16, max_size=16).map(bytes.hex))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    table=names,
    epoch=st.integers(1, 1000),
    period=st.integers(1, 1000),
    rev=st.integers(1, 10**6),
    nonce=nonces,
    sides=st.integers(1, 20),
    count=st.integers(1, 8),
)
def test_a_face_is_the_documented_function_of_its_inputs(
    seed: bytes, table: str, epoch: int, period: int, rev: int, nonce: str, sides: int, count: int
) -> None:
    """Each face equals the HMAC of docs/dice.md over the seed and the
    public inputs, computed here from the standard library alone."""
    dice = fair_dice.DerivedDice(fair_dice.Period(seed, table, epoch, period, rev, nonce))
    faces = [dice.die(sides) for _ in range(count)]
    for position, face in enumerate(faces):
        attempt = 0
        while True:
            msg = f"vigil-dice-1\n{table}\n{epoch}\n{period}\n{rev}\n{position}\n{nonce}\n{attempt}"
            x = int.from_bytes(hmac.new(seed, msg.encode(), hashlib.sha256).digest()[:4], "big")
            if x < 2**32 - 2**32 % sides:
                assert face == x % sides + 1
                break
            attempt += 1


@settings(max_examples=30, deadline=None)
@given(
    wall=st.floats(0, 1e9),
    actor=st.sampled_from([GM, PLAYER]),
    extra=st.integers(0, 3),
    nonce=st.binary(min_size=16, max_size=16).map(bytes.hex),
)
def test_a_roll_depends_on_nothing_but_the_documented_inputs(
    wall: float, actor: Actor, extra: int, nonce: str
) -> None:
    """The same seed, table, epoch, period, rev and nonce give the same
    draws whatever else differs: the wall clock, who asks, the other
    characters, the dice source the server would otherwise use."""
    seed = bytes(range(32))
    runs = []
    for other in (0, extra):
        table = Table(
            id="t",
            system=GAMES["hursagmu"],
            epoch=1,
            rev=4,
            doc={**_table().doc, "dice": None},
            undo_depth=20,
            entropy=_seeds(seed),
        )
        table.ensure_period()
        for i in range(other):
            _run(table, CharacterCreate(id=f"x{i}", name=f"X{i}"))
        table.rev = 4
        change = table.prepare(
            SeeDim(char="a", challenge=40, nonce=nonce), wall, Ctx(dice=RandomDice(other), actor=actor)
        )
        runs.append(change.dice)
    assert runs[0] == runs[1]
    assert runs[0] is not None and runs[0]["draws"]


# -- the test vectors of docs/dice.md --------------------------------------------


def _vectors() -> list[dict[str, Any]]:
    """The vectors of docs/dice.md: its one ```json block under "Test vectors"."""
    text = DOC.read_text()
    block = re.search(r"## Test vectors.*?```json\n(.*?)```", text, re.S)
    assert block is not None
    vectors: list[dict[str, Any]] = json.loads(block.group(1))
    return vectors


def test_the_documented_vectors_hold_in_python() -> None:
    vectors = _vectors()
    assert len(vectors) >= 4
    for v in vectors:
        seed = bytes.fromhex(v["seed"])
        assert fair_dice.commitment(seed) == v["commitment"]
        period = fair_dice.Period(seed, v["table"], v["epoch"], v["period"], v["rev"], v["nonce"])
        assert fair_dice.expected(period, [[d, 0] for d in v["draws"]]) == v["results"]


def test_the_documented_vectors_hold_in_the_pages_javascript(tmp_path: Path) -> None:
    """The /verify page's own module (plain JavaScript, its own SHA-256)
    computes the same commitments and faces under Node."""
    node = shutil.which("node")
    assert node is not None
    script = tmp_path / "vectors.mjs"
    script.write_text(
        f"import {{ commitment, expected }} from {json.dumps(PROOF_JS.as_uri())};\n"
        f"const vectors = {json.dumps(_vectors())};\n"
        "const out = vectors.map((v) => ({ commitment: commitment(v.seed),\n"
        "  results: expected(v.seed, v, v.draws.map((d) => [d, 0])) }));\n"
        "console.log(JSON.stringify(out));\n"
    )
    done = subprocess.run([node, str(script)], capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    assert got == [{"commitment": v["commitment"], "results": v["results"]} for v in _vectors()]


# -- a table's period ----------------------------------------------------------------


def test_every_audience_sees_the_commitment_and_none_the_seed() -> None:
    seed = b"\x01" * 32
    table = _table(seed)
    commitment = hashlib.sha256(seed).hexdigest()
    for audience in (GM_AUDIENCE, PUBLIC_AUDIENCE):
        view = table.view(audience)
        assert view["dice"]["commitment"] == commitment
        assert view["dice"]["fingerprint"] == commitment[:8]
        assert seed.hex() not in json.dumps(view)


def test_a_roll_records_its_draws_and_verifies_after_the_reveal(tmp_path: Path) -> None:
    seed, second = b"\x02" * 32, b"\x03" * 32
    table = _table(seed, second)
    nonce = "0f" * 16
    rolled = _run(table, SeeDim(char="a", challenge=40, nonce=nonce), PLAYER)
    assert rolled.dice is not None
    assert rolled.dice["nonce"] == nonce and rolled.dice["period"] == 1
    log = [rolled, _run(table, Harm(char="a", stuns=1))]
    before = export(table, False, log)
    assert seed.hex() not in json.dumps(before)
    assert [f.status for f in dice_verify.verify(dice_verify.read(before))] == ["unrevealed"]
    log.append(_run(table, DiceReveal()))
    assert table.view(PUBLIC_AUDIENCE)["dice"]["period"] == 2
    assert table.view(PUBLIC_AUDIENCE)["dice"]["revealed"]["seed"] == seed.hex()
    document = export(table, False, log)
    assert second.hex() not in json.dumps(document)
    findings = dice_verify.verify(dice_verify.read(document))
    assert [f.status for f in findings] == ["verified"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    assert cli(["verify", str(path)]) == 0


def _export_with_rolls() -> tuple[dict[str, Any], list[int]]:
    table = _table(b"\x04" * 32, b"\x05" * 32)
    log = [_run(table, SeeDim(char="a", challenge=40, nonce=f"{i:032x}")) for i in range(4)]
    log.append(_run(table, DiceReveal()))
    document = export(table, False, log)
    return document, [e.rev for e in log]


def _history(document: dict[str, Any]) -> list[list[Any]]:
    history: list[list[Any]] = document["history"]
    return history


DICE = list(LogEntry.__struct_fields__).index("dice")
EVENTS = list(LogEntry.__struct_fields__).index("events")


def _tampered(kind: str) -> dict[str, Any]:
    document, _ = _export_with_rolls()
    history = _history(document)
    if kind == "face":
        draw = history[1][DICE]["draws"][0]
        draw[1] = draw[1] % draw[0] + 1
    elif kind == "seed":
        reveal = history[-1][EVENTS][-1]["params"]
        reveal["seed"] = "00" + reveal["seed"][2:]
    elif kind == "shown":
        event = history[1][EVENTS][0]
        event["params"]["faces"][0] = 7
    elif kind == "nonce":
        history[2][DICE]["nonce"] = "ff" * 16
    else:
        history[1], history[2] = history[2], history[1]
    return document


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("face", "mismatch"),
        ("shown", "mismatch"),
        ("seed", "bad_seed"),
        ("nonce", "mismatch"),
        ("order", "bad_order"),
    ],
)
def test_a_tampered_export_fails_naming_what_differs(kind: str, status: str, tmp_path: Path) -> None:
    document = _tampered(kind)
    findings = dice_verify.verify(dice_verify.read(document))
    failed = [f for f in findings if f.failed]
    assert status in {f.status for f in failed}
    if kind == "face":
        (miss,) = failed
        assert miss.rev == _history(_export_with_rolls()[0])[1][2]
        assert miss.params["expected"] != miss.params["logged"]
        assert f"Rev {miss.rev}, Anna" in dice_verify.sentence(miss)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(document))
    assert cli(["verify", str(path)]) == 1


def test_manual_dice_and_corrections_are_listed_not_verifiable() -> None:
    table = _table(b"\x06" * 32, b"\x07" * 32)
    _run(table, TableOptions(options={"manual_dice": True}))
    log = [_run(table, SeeDim(char="a", challenge=40, faces=[3, 4]))]
    log.append(_run(table, DiceReveal()))
    statuses = [f.status for f in dice_verify.verify(dice_verify.read(export(table, False, log)))]
    assert statuses == ["manual_dice"]


def test_a_hidden_characters_dice_are_not_in_a_players_history() -> None:
    table = _table(b"\x08" * 32)
    log = [_run(table, SeeDim(char="b", challenge=40)), _run(table, SeeDim(char="a", challenge=40))]
    player = Viewer(role="player", chars=frozenset({"a"}))
    page = history_page(log, table, player)
    assert [e.rev for e in page] == [4]
    assert page[0].dice is not None
    gm = history_page(log, table, Viewer(role="gm", chars=frozenset()))
    assert all(e.dice is not None for e in gm)


def test_revealing_twice_reveals_an_empty_period() -> None:
    table = _table(b"\x09" * 32, b"\x0a" * 32, b"\x0b" * 32)
    first = _run(table, DiceReveal())
    second = _run(table, DiceReveal())
    assert first.events[-1]["params"]["period"] == 1
    assert second.events[-1]["params"]["period"] == 2
    assert table.view(GM_AUDIENCE)["dice"]["period"] == 3


def test_an_import_opens_a_new_period() -> None:
    table = _table(b"\x0c" * 32)
    imported = read_export(copy.deepcopy(export(table, False, [])))
    again = Table(
        id="u",
        system=imported.system,
        epoch=1,
        rev=0,
        doc=imported.doc,
        undo_depth=20,
        entropy=_seeds(b"\x0d" * 32),
    )
    again.ensure_period()
    assert again.view(PUBLIC_AUDIENCE)["dice"]["commitment"] == hashlib.sha256(b"\x0d" * 32).hexdigest()


def test_a_bad_nonce_is_refused_naming_the_field() -> None:
    for bad in ("xyz", "ab" * 8, 42):
        with pytest.raises(msgspec.ValidationError, match="nonce"):
            msgspec.convert({"type": "hursagmu.see_dim", "char": "a", "challenge": 1, "nonce": bad}, SeeDim)


def test_a_refused_roll_changes_no_period() -> None:
    table = _table(b"\x0e" * 32)
    before = table.doc["dice"]
    with pytest.raises(RuleError):
        table.prepare(SeeDim(char="zz", challenge=40), WALL, Ctx(dice=RandomDice(1), actor=GM))
    assert table.doc["dice"] is before
    assert msgspec.json.encode(table.doc["dice"])


def test_the_cli_and_the_page_say_each_finding_in_the_same_words() -> None:
    """``vigil verify`` prints what the /verify page shows (its words are
    the language file's ``VIGIL.Verify.<status>``)."""
    lang = json.loads((ROOT / "foundry-module" / "lang" / "en.json").read_text())
    assert {s: lang[f"VIGIL.Verify.{s}"] for s in dice_verify.TEMPLATES} == dice_verify.TEMPLATES
    assert set(dice_verify.TEMPLATES) == dice_verify.FAILURES | dice_verify.UNVERIFIABLE | {"verified"}


@pytest.mark.parametrize("kind", ["face", "shown", "seed", "nonce", "order"])
def test_the_pages_javascript_finds_what_the_cli_finds(kind: str, tmp_path: Path) -> None:
    """The /verify page's module, run under Node on the same tampered
    export, reports the same findings for the same revs."""
    node = shutil.which("node")
    assert node is not None
    document = _tampered(kind)
    source = tmp_path / "export.json"
    source.write_text(json.dumps(document))
    script = tmp_path / "verify.mjs"
    script.write_text(
        'import { readFileSync } from "node:fs";\n'
        f"import {{ readDocument, verify }} from {json.dumps(PROOF_JS.as_uri())};\n"
        f"const doc = JSON.parse(readFileSync({json.dumps(str(source))}, 'utf8'));\n"
        "console.log(JSON.stringify(verify(readDocument(doc)).map((f) => [f.status, f.rev])));\n"
    )
    done = subprocess.run([node, str(script)], capture_output=True, text=True, check=True)
    python = [[f.status, f.rev] for f in dice_verify.verify(dice_verify.read(document))]
    assert sorted(json.loads(done.stdout)) == sorted(python)
    assert any(status in dice_verify.FAILURES for status, _ in python)
