"""Access that survives a new tab (issue 22), in real Chromium against a
real ``vigil serve``:

- a player's link, once opened, works again from a new tab of the same
  browser profile and from a bookmark of the page (the address without the
  token): the token is kept in the origin's localStorage (common.js
  keepToken says why that is safe enough); Sign out forgets it;
- a second link pasted into an open stream tab switches it to that table;
- a malformed link, and a revoked one, say so at once instead of
  reconnecting.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import expect
from tests.browser.test_dashboard import open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.support.commands import ws_command
from tests.support.server import ServerProcess


async def test_a_players_link_works_again_from_a_new_tab_and_a_bookmark(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "mettle", "tabs", {"ysolde": {"mettle": 5}})
    first = await new_page(1100, 900)
    await open_live(first, f"{vigil_server.url}/#token={tokens['player']}")
    assert await first.evaluate("window.vigil.role") == "player"
    bookmark = first.url
    assert "token" not in bookmark

    # A new tab of the same browser, opened at the bookmarked address.
    second = await first.context.new_page()
    await open_live(second, bookmark)
    assert await second.evaluate("[window.vigil.role, window.vigil.ownCharacters]") == ["player", ["ysolde"]]
    await expect(second.locator("#login")).to_be_hidden()

    # Sign out forgets it: the next new tab asks for a link.
    await second.locator("#signout").click()
    third = await first.context.new_page()
    await third.goto(bookmark)
    await expect(third.locator("#login")).to_be_visible()
    await expect(third.locator("#login")).to_contain_text("Players: open the link your GM gave you")
    no_page_errors(first)


async def test_a_new_link_in_an_open_stream_tab_switches_tables(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    one = await new_table(vigil_server, "mettle", "stream-one", {"ysolde": {"mettle": 5}})
    two = await new_table(vigil_server, "hursagmu", "stream-two", {"juk": {}})
    watch = await new_page(1280, 720)
    await open_live(watch, f"{vigil_server.url}/watch#token={one['spectator']}")
    await expect(watch.locator("[data-char='ysolde']")).to_be_visible()
    await watch.evaluate("(t) => { location.hash = 'token=' + t; }", two["spectator"])
    await expect(watch.locator("[data-char='juk']")).to_be_visible()
    await expect(watch.locator("[data-char='ysolde']")).to_have_count(0)
    await expect(watch.locator("#watch-conn")).to_have_attribute("data-status", "connected")
    assert await watch.evaluate("window.vigil.state.system") == "hursagmu"
    no_page_errors(watch)


async def test_a_malformed_or_revoked_link_says_so_at_once(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    page = await new_page()
    await page.goto(f"{vigil_server.url}/#token=not-a-token")
    await expect(page.locator("#conn")).to_have_attribute("data-status", "refused")
    await expect(page.locator("#login")).to_be_visible()
    assert (await page.locator("#login-reason").text_content() or "").strip() != ""

    watch = await new_page()
    await watch.goto(f"{vigil_server.url}/watch#token=garbage")
    await expect(watch.locator("#watch-conn")).to_have_attribute("data-status", "refused")
    await expect(watch.locator("#watch-problem")).to_be_visible()

    # A revoked stream link: the open tab says so, and reopening it too.
    tokens = await new_table(vigil_server, "mettle", "revoked", {"ysolde": {"mettle": 5}})
    stream = await new_page()
    await open_live(stream, f"{vigil_server.url}/watch#token={tokens['spectator']}")
    token_id = await stream.evaluate("window.vigil.welcome.token_id")
    await ws_command(vigil_server, tokens["gm"], {"type": "token.revoke", "token_id": token_id}, "revoked")
    await expect(stream.locator("#watch-problem")).to_be_visible()
    await stream.reload()
    await expect(stream.locator("#watch-problem")).to_be_visible()
    await expect(stream.locator("#watch-conn")).not_to_have_attribute("data-status", "connected")


async def test_minted_links_stay_until_dismissed_and_a_confirmation_stays_armed(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Two spectator links minted one after the other both stay, newest
    first, each with Open and Copy, until dismissed; revoking asks "Sure?"
    and stays armed until answered (still armed seconds later), "Keep"
    disarms it, and two clicks revoke."""
    gm = await new_page(1440, 900)
    await open_live(gm, f"{vigil_server.url}/#token={vigil_server.gm_token}")
    await gm.locator("#spectator-label").fill("first")
    await gm.get_by_role("button", name="Mint spectator link").click()
    await expect(gm.locator("#invite-out .link-out")).to_have_count(1)
    first = await gm.locator("#invite-out input.link-field").first.input_value()
    await gm.locator("#spectator-label").fill("second")
    await gm.get_by_role("button", name="Mint spectator link").click()
    links = gm.locator("#invite-out .link-out")
    await expect(links).to_have_count(2)
    assert await links.nth(1).locator("input.link-field").input_value() == first
    for n in range(2):
        await expect(links.nth(n).get_by_role("link", name="Open")).to_have_attribute("target", "_blank")
        await expect(links.nth(n).get_by_role("button", name="Copy")).to_be_visible()
    await links.nth(0).get_by_role("button", name="Dismiss this link").click()
    await expect(links).to_have_count(1)
    assert await links.first.locator("input.link-field").input_value() == first

    row = gm.locator("#tokens-body tr", has_text="first")
    revoke = row.get_by_role("button", name=re.compile("^Revoke"))
    await revoke.click()
    await expect(revoke).to_have_text("Sure?")
    await row.get_by_role("button", name="Keep").click()
    await expect(revoke).to_have_text("Revoke")
    await revoke.click()
    await gm.wait_for_timeout(5_000)  # the old confirmation re-armed itself after 4 s
    await expect(revoke).to_have_text("Sure?")
    await revoke.click()
    await expect(gm.locator("#tokens-body tr", has_text="first")).to_have_count(0)
    no_page_errors(gm)
