"""The command forms (foundry-module/scripts/core/forms.js) in real Chromium,
built from the generated catalogue and sent to a real ``vigil serve`` over a
real WebSocket by the client core's VigilClient.

The harness page (foundry-module/test/harness/forms.html) imports the same
URLs the dashboard does (/client/core/forms.js, /client/core/catalogue.js).
One test walks the whole catalogue — every command of every game, for the
GM, a player and the operator, every table option, sheet field and
correctable path — and fails on a field without a typed input, a free-text
box or a control without an accessible name (Chromium's own accessibility
tree says). The others fill forms as a person would and check that the
server acknowledges them and the state shows the change.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from playwright.async_api import Locator, Page, expect
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "foundry-module"
SHOTS = ROOT / "artifacts" / "forms"
ROLES_WITH_NAMES = {
    "button",
    "checkbox",
    "combobox",
    "listbox",
    "menulist",
    "radio",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "textbox",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The module's files at the URLs the pages use: /client/ is scripts/
    (as `vigil serve` maps it), /lang/ and /harness/ the module's."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
    }

    def translate_path(self, path: str) -> str:
        rel = unquote(urlsplit(path).path)
        if rel == "/lang/en.json":
            return str(MODULE / "lang" / "en.json")
        for prefix, base in (("/client/", MODULE / "scripts"), ("/harness/", MODULE / "test" / "harness")):
            if rel.startswith(prefix):
                target = (base / rel[len(prefix) :]).resolve()
                return str(target) if base.resolve() in target.parents else str(base / "missing")
        return str(MODULE / "missing")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def forms_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def open_harness(page: Page, site: str) -> None:
    await page.goto(f"{site}/harness/forms.html")
    await page.wait_for_function("window.harness && window.harness.ready === true")


async def connect(page: Page, server: ServerProcess, token: str) -> dict[str, Any]:
    info: dict[str, Any] = await page.evaluate("([u, t]) => harness.connect(u, t)", [server.ws_url, token])
    return info


async def show(page: Page, tag: str, char: str | None = None) -> Locator:
    await page.evaluate("([tag, char]) => harness.show(tag, {char})", [tag, char])
    return page.locator(f"#stage form[data-command='{tag}']")


async def submit(form: Locator) -> dict[str, Any]:
    """Submit the form by its button and wait for the server's answer."""
    await form.locator("button[type=submit]").click()
    await expect(form).to_have_attribute("data-result", re.compile("ack|error"))
    last: dict[str, Any] = await form.page.evaluate("harness.last")
    assert await form.get_attribute("data-result") == "ack", last
    return last


async def until(page: Page, path: str, value: Any) -> None:
    """Wait until the client's state has ``value`` at the dotted ``path``."""
    await page.wait_for_function(
        "([path, want]) => JSON.stringify("
        "path.split('.').reduce((o, k) => o?.[k], harness.client.state)) === want",
        arg=[path, json.dumps(value, separators=(",", ":"))],
    )


async def ws_ok(server: ServerProcess, token: str, body: dict[str, Any], table: str | None = None) -> Any:
    """One command for setup that is not under test; it must be acked."""
    reply = await ws_command(server, token, body, table)
    assert reply["type"] == "ack", reply
    return reply.get("result")


async def unnamed_controls(page: Page) -> tuple[int, list[str], list[str]]:
    """Chromium's accessibility tree: how many controls it has, those
    without a name, and names that two controls share."""
    cdp = await page.context.new_cdp_session(page)
    tree = await cdp.send("Accessibility.getFullAXTree")
    await cdp.detach()
    missing: list[str] = []
    seen: dict[str, int] = {}
    checked = 0
    for node in tree["nodes"]:
        if node.get("ignored"):
            continue
        role = node.get("role", {}).get("value")
        if role not in ROLES_WITH_NAMES:
            continue
        checked += 1
        name = str(node.get("name", {}).get("value", "")).strip()
        if not name:
            missing.append(f"{role} #{node.get('backendDOMNodeId')}")
        seen[name] = seen.get(name, 0) + 1
    return checked, missing, [name for name, n in seen.items() if n > 1 and name]


async def walk(page: Page, who: str) -> dict[str, Any]:
    report: dict[str, Any] = await page.evaluate("harness.walk()")
    assert report["problems"] == [], f"{who}: {report['problems']}"
    checked, missing, shared = await unnamed_controls(page)
    visible = await page.locator("#walk input:visible, #walk select:visible, #walk button:visible").count()
    assert checked >= visible > 0, (checked, visible)
    assert missing == [], f"{who}: controls without an accessible name: {missing}"
    assert shared == [], f"{who}: controls sharing a name: {shared}"
    assert not await page.locator("#walk textarea").count()
    return report


async def create_character(
    page: Page, fields: dict[str, str], rows: dict[str, list[tuple[str, str]]] | None = None
) -> None:
    form = await show(page, "character.create")
    for path, pairs in (rows or {}).items():
        for n, (key, value) in enumerate(pairs):
            await form.locator(f"[data-field='{path}'] > button.vigil-add").click()
            await form.locator(f"[name='{path}.{n}.key']").fill(key)
            await form.locator(f"[name='{path}.{n}.value']").fill(value)
    for name, value in fields.items():
        await form.locator(f"[name='{name}']").fill(value)
    await submit(form)


async def test_whole_catalogue_walked_every_field_typed_and_named(
    vigil_server: ServerProcess, forms_site: str, new_page: Any
) -> None:
    page = await new_page(1280, 900)
    await open_harness(page, forms_site)
    catalogue = await page.evaluate("import('/client/core/catalogue.js').then((m) => m.CATALOGUE)")

    # The operator's forms; then two tables made with the table.create form,
    # whose options follow the chosen game.
    assert (await connect(page, vigil_server, vigil_server.operator_token))["role"] == "operator"
    operator = await walk(page, "operator")
    assert set(operator["built"]) >= {"table.create", "table.import", "table.list", "table.delete"}
    tokens: dict[str, str] = {}
    for game, name, table in (("dryh", "Dream", "dream"), ("hursagmu", "Ziggurat", "zig")):
        form = await show(page, "table.create")
        await form.locator("[name='system']").select_option(game)
        for option in catalogue["games"][game]["options"]:
            await expect(form.locator(f"[data-field='options.{option['name']}']")).to_have_count(1)
        await form.locator("[name='name']").fill(name)
        await form.locator("[name='id']").fill(table)
        tokens[game] = (await submit(form))["result"]["gm_token"]
    tokens["mettle"] = vigil_server.gm_token

    # Characters with things on their sheets (injuries, kits, traits,
    # poisons), so that refs and "*" correctable paths have something to
    # offer; made through the forms themselves.
    walked: dict[str, dict[str, Any]] = {}
    for game in ("mettle", "dryh", "hursagmu"):
        info = await connect(page, vigil_server, tokens[game])
        assert info["system"] == game
        if game == "mettle":
            form = await show(page, "mettle.injury_add", "brannoc")
            await form.locator("[name='label']").fill("Broken arm")
            await form.locator("[name='penalty']").fill("2")
            await submit(form)
            await create_character(
                page, {"id": "cora", "name": "Cora", "sheet.mettle": "4"}, {"sheet.kits": [("medicine", "3")]}
            )
        elif game == "dryh":
            await create_character(page, {"id": "alice", "name": "Alice", "sheet.discipline": "4"})
        else:
            await create_character(
                page, {"id": "uruk", "name": "Uruk"}, {"sheet.traits": [("constitution", "2")]}
            )
            form = await show(page, "hursagmu.poison", "uruk")
            # Spans of game time are asked in minutes, hours or days.
            for name, value in (
                ("damage", "1"),
                ("interval.amount", "1"),
                ("duration.amount", "10"),
                ("name", "Asp venom"),
            ):
                await form.locator(f"[name='{name}']").fill(value)
            await submit(form)
        report = await walk(page, f"{game} GM")
        assert set(report["built"]) == set(catalogue["games"][game]["commands"]), game
        assert report["corrections"] > len(
            [
                c
                for c in catalogue["games"][game]["correctable"]
                if "*" not in c["path"] and c["field"]["entry"] == "person"
            ]
        )
        walked[game] = report

    # A player sees fewer forms, without the GM's inputs.
    info = await connect(page, vigil_server, vigil_server.player_token)
    assert info["own"] == ["brannoc"]
    player = await walk(page, "mettle player")
    assert "mettle.stabilize" in player["built"] and "mettle.pain" not in player["built"]
    stabilize = page.locator("#walk form[data-command='mettle.stabilize']")
    for gm_only in ("tn", "modifiers", "lot"):
        await expect(stabilize.locator(f"[name='{gm_only}']")).to_have_count(0)
    helper = stabilize.locator("[name='helper'] option")
    await expect(helper).to_have_text(["Brannoc"])
    assert page.vigil_errors == []


async def test_filled_forms_are_acked_by_the_server(
    vigil_server: ServerProcess, forms_site: str, new_page: Any
) -> None:
    page = await new_page(1280, 900)
    await open_harness(page, forms_site)
    await connect(page, vigil_server, vigil_server.gm_token)

    # mettle.pain by its labels, as a person (or a screen reader) finds them.
    form = await show(page, "mettle.pain", "brannoc")
    await expect(form.locator("[name='char']")).to_have_value("brannoc")
    await form.get_by_label(re.compile("Amount")).fill("2")
    await submit(form)
    await until(page, "characters.brannoc.sheet.pain", 2)
    # An invalid amount is refused in the form, with an alert on the field.
    form = await show(page, "mettle.pain", "brannoc")
    await form.get_by_label(re.compile("Amount")).fill("0")
    await form.locator("button[type=submit]").click()
    amount = form.locator("[name='amount']")
    await expect(amount).to_have_attribute("aria-invalid", "true")
    await expect(form.locator(".vigil-field[data-field='amount'] [role=alert]")).to_be_visible()
    assert await form.get_attribute("data-result") is None, "nothing was sent"
    SHOTS.mkdir(parents=True, exist_ok=True)
    await form.screenshot(path=str(SHOTS / "mettle-pain-refused.png"))

    # A new kit through the ref's New… choice.
    form = await show(page, "mettle.kit_set", "ysolde")
    await expect(form.locator("[name='kit'] option")).to_have_text(["New…"])
    await form.locator("[name='kit.new']").fill("medicine")
    await form.locator("[name='uses']").fill("3")
    await submit(form)
    await until(page, "characters.ysolde.sheet.kits", {"medicine": 3})

    # table.options: only the changed option is sent.
    form = await show(page, "table.options")
    await form.screenshot(path=str(SHOTS / "mettle-table-options.png"))
    await form.locator("[name='options.manual_dice']").check()
    last = await submit(form)
    assert last["body"] == {"type": "table.options", "options": {"manual_dice": True}}
    await until(page, "options.manual_dice", True)

    # correct: a path chosen by name, a typed value.
    form = await show(page, "correct", "brannoc")
    await form.locator("[name='field']").select_option("pain")
    await form.screenshot(path=str(SHOTS / "mettle-correct.png"))
    await expect(form.locator("[name='value']")).to_have_value("2")
    await form.locator("[name='value']").fill("1")
    last = await submit(form)
    assert last["body"] == {"type": "correct", "char": "brannoc", "field": "pain", "value": 1}
    await until(page, "characters.brannoc.sheet.pain", 1)

    # character.create for each game, then one of its own commands.
    created = await ws_ok(
        vigil_server,
        vigil_server.operator_token,
        {"type": "table.create", "system": "dryh", "name": "D", "id": "d"},
    )
    await connect(page, vigil_server, created["gm_token"])
    await create_character(page, {"id": "mina", "name": "Mina", "sheet.discipline": "3"})
    form = await show(page, "dryh.open", "mina")
    await form.locator("[name='pain']").fill("2")
    await submit(form)
    form = await show(page, "dryh.roll", "mina")
    await submit(form)
    await until(page, "game.rolls.mina.phase", "rolled")

    created = await ws_ok(
        vigil_server,
        vigil_server.operator_token,
        {"type": "table.create", "system": "hursagmu", "name": "H", "id": "h"},
    )
    await connect(page, vigil_server, created["gm_token"])
    await create_character(
        page, {"id": "ninsun", "name": "Ninsun"}, {"sheet.traits": [("constitution", "3")]}
    )
    await until(page, "characters.ninsun.sheet.traits", {"constitution": 3})
    form = await show(page, "hursagmu.harm", "ninsun")
    await form.locator("[name='wounds']").fill("1")
    last = await submit(form)
    assert last["body"] == {"type": "hursagmu.harm", "char": "ninsun", "wounds": 1}
    await until(page, "characters.ninsun.sheet.wounds", 1)

    # A player's form: only own characters, acked for its own character.
    await connect(page, vigil_server, vigil_server.player_token)
    form = await show(page, "mettle.rest_start", "brannoc")
    await expect(form.locator("[name='char'] option")).to_have_text(["Brannoc"])
    await submit(form)
    await until(page, "characters.brannoc.sheet.resting", True)
    assert page.vigil_errors == []
