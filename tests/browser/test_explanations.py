"""Every outcome explains itself (issue 22), in real Chromium against a real
``vigil serve``: a check's and a roll's arithmetic and reason in words,
with a link to the rule that decided it in the rules reference the server
serves (``/rules/<game>#<rule>``), on the GM page (the form's result and
the history), the player page and the stream; the numbers shown match the
dice the server rolled (read back from the history's event)."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import PAGES, act, open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

LAST_EVENT_JS = """(code) => window.vigil.history({ limit: 20 }).then((page) =>
    page.entries.flatMap((e) => e.events).filter((ev) => ev.code === code).at(-1))"""


async def lines(page: Page, where: str = "#history") -> list[str]:
    return [" ".join(t.split()) for t in await page.locator(f"{where} .explain-line").all_text_contents()]


async def test_a_pain_and_mettle_check_shows_its_sum_its_verdict_and_its_rule(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "mettle", "why-met", {"ysolde": {"mettle": 5}})
    await ws_command(
        vigil_server,
        tokens["gm"],
        {"type": "mettle.injury_add", "char": "ysolde", "label": "Cut", "penalty": 1},
        "why-met",
    )
    gm = await new_page(1440, 900)
    player = await new_page(1100, 900)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
    await gm.locator("#act-char").select_option("ysolde")
    await act(gm, "mettle.check", stat="3", modifiers="2", tn="7")
    want = "3 (stat) + 2 (modifiers) − 1 (injuries) = 4 against TN 7: fails by 3 Rule MET-01"
    result = gm.locator("form[data-command='mettle.check'] .form-result .explain-line")
    await expect(result).to_have_text(want)
    await expect(gm.locator("#history .explain-line").first).to_have_text(want)
    await expect(player.locator("#history .explain-line").first).to_have_text(want)
    # The history speaks game time (the clock stands at midnight of day 1), not the wall clock.
    await expect(gm.locator("#history time.game-time").first).to_have_text("00:00:00")

    # The link opens the rule in the reference Vigil serves.
    href = await result.locator("a.rule-link").get_attribute("href")
    assert href == "/rules/mettle#MET-01"
    rules = await new_page()
    await rules.goto(f"{vigil_server.url}{href}")
    await expect(rules.locator("h3#MET-01")).to_contain_text("MET-01 Check")
    no_page_errors(gm, player)


async def test_a_hursagmu_roll_shows_its_dice_level_and_penalties(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "hursagmu", "why-hur", {"uruk": {"traits": {"athlete": 2}}})
    # Twelve wounds: two beyond ten, −2 to physical actions (HUR-02).
    await ws_command(
        vigil_server, tokens["gm"], {"type": "hursagmu.harm", "char": "uruk", "wounds": 12}, "why-hur"
    )
    gm = await new_page(1440, 900)
    watch = await new_page(1280, 720)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}")
    body = {"type": "hursagmu.trait_roll", "char": "uruk", "trait": "athlete", "target": 8, "modifiers": 1}
    body["kind"] = "physical"
    reply = await ws_command(vigil_server, tokens["gm"], body, "why-hur")
    assert reply["type"] == "ack", reply
    ev = await gm.evaluate(LAST_EVENT_JS, "trait_rolled")
    p = ev["params"]
    a, b = p["faces"]
    total = a + b + 2 + 1 - 2
    assert p["total"] == total
    if total == 8:
        verdict = "succeeds exactly" if p["success"] else "fails on a tie"
    else:
        verdict = f"succeeds by {abs(total - 8)}" if p["success"] else f"fails by {abs(total - 8)}"
    want = f"{a + b} (dice {a} + {b}) + 2 (athlete) + 1 (modifiers) − 2 (12 wounds) = {total} against 8"
    want = f"{want}: {verdict}"
    await expect(gm.locator("#history .explain-line").first).to_have_text(f"{want} Rule HUR-01")
    await expect(watch.locator("#watch-rolls .explain-line").first).to_have_text(f"{want} Rule HUR-01")
    # HUR-02: where the penalty comes from, its rule linked.
    penalty = "12 wounds: − 2, 1 for each wound beyond 10 Rule HUR-02"
    await expect(watch.locator("#watch-rolls .explain-line").nth(1)).to_have_text(penalty)
    no_page_errors(gm, watch)


async def test_a_dryh_roll_shows_its_successes_talent_and_dominance(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "dryh", "why-dryh", {"alice": {"discipline": 3, "exhaustion": 2}})
    gm = await new_page(1440, 900)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    for body in (
        {"type": "dryh.open", "char": "alice", "pain": 3},
        {"type": "dryh.declare", "char": "alice", "talent": "exhaustion_major"},
        {"type": "dryh.roll", "char": "alice"},
    ):
        await ws_command(vigil_server, tokens["gm"], body, "why-dryh")
    await expect(gm.locator("#history .explain-line").nth(1)).to_be_visible()
    ev = await gm.evaluate(LAST_EVENT_JS, "roll_rolled")
    dice = ev["params"]["dice"]
    from_dice = sum(1 for pool in ("discipline", "exhaustion", "madness") for f in dice[pool] if f <= 3)
    # DRYH-12: the major talent adds the exhaustion at the roll (its own +1
    # included), which is the exhaustion pool's size.
    adds = len(dice["exhaustion"])
    assert adds == 3
    successes = from_dice + adds
    degree = sum(1 for f in dice["pain"] if f <= 3)
    verdict = "success" if successes >= degree else "failure"
    shown = await lines(gm)
    want = (
        f"{from_dice} (dice showing 1–3) + {adds} (Major exhaustion talent) = {successes} successes "
        f"against {degree}: {verdict} Rule DRYH-05"
    )
    assert shown[0] == want, shown
    assert shown[1].startswith(ev["params"]["explain"]["dominance"]["pool"].title()), shown
    assert " dominates: " in shown[1] and shown[1].endswith("Rule DRYH-07"), shown
    no_page_errors(gm)


async def test_a_despair_six_is_marked_added_or_struck_out(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """DRYH-08 on screen: a 6 that despair added carries the "added by
    despair" mark (it no longer looks rolled), one it removed stays in view
    struck out, on the GM page and the stream."""
    tokens = await new_table(vigil_server, "dryh", "despair", {"alice": {"discipline": 3}})
    for body in (
        {"type": "table.options", "options": {"manual_dice": True}},
        {"type": "correct", "field": "despair", "value": 2},
        {"type": "dryh.open", "char": "alice", "pain": 2},
        {"type": "dryh.roll", "char": "alice", "faces": [6, 2, 3, 4, 5]},
        {"type": "dryh.despair_spend", "char": "alice", "pool": "pain", "op": "add"},
        {"type": "dryh.despair_spend", "char": "alice", "pool": "discipline", "op": "remove"},
    ):
        reply = await ws_command(vigil_server, tokens["gm"], body, "despair")
        assert reply["type"] == "ack", (body, reply)
    gm = await new_page(1440, 900)
    watch = await new_page(1280, 720)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}")
    for page, root in ((gm, "#dryh-panel"), (watch, "#watch-rolls")):
        pain = page.locator(f"{root} [data-pool=pain] .die")
        await expect(pain).to_have_count(3)
        added = page.locator(f"{root} [data-pool=pain] .die-added")
        await expect(added).to_have_count(1)
        await expect(added).to_have_attribute("data-face", "6")
        await expect(added).to_have_attribute("title", "Pain 6: added by despair")
        struck = page.locator(f"{root} [data-pool=discipline] .die-struck")
        await expect(struck).to_have_count(1)
        await expect(struck).to_have_attribute("title", "Discipline 6: struck out by despair")
        await expect(page.locator(f"{root} [data-pool=discipline] .die:not(.die-struck)")).to_have_count(2)
    await gm.locator("#dryh-panel").screenshot(path=str(PAGES / "dryh-despair-marks.png"))
    no_page_errors(gm, watch)
