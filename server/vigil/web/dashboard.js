/**
 * The GM dashboard: one page, three faces chosen by the token's role.
 *
 * - operator: the server's tables (list, create, archive, export, import,
 *   delete);
 * - gm: one table, live, with every command of the catalogue for its game
 *   (forms built by the client core's form builder from the command
 *   catalogue: nothing here lists a command's fields), the DRYH roll panel,
 *   history, undo, table options, corrections, visibility and invites;
 * - player: the same table, with every command this player may send for
 *   its own characters (the catalogue's senders) and the pending choices
 *   addressed to them, offering only the moves the server lists as legal;
 * - spectator: the cards, read-only (a stream should use /watch).
 *
 * All traffic goes through the shared client core (`VigilClient`), which
 * reconnects and resumes by itself; this file only draws its `state` and
 * turns clicks into commands. The client is exposed as `window.vigil` for
 * debugging and for the browser tests.
 */

import { VigilClient } from "/client/core/client.js";
import { errorSentence, followNewLinks, forgetToken, keepToken, languagePicker, loadCatalogue, statusWords, t, takeToken, wsUrl } from "./common.js";
import { refreshHistory, wireHistoryFilter } from "./history.js";
import { refreshTokens } from "./invites.js";
import { buildOperator, refreshTables } from "./operator.js";
import { $, page } from "./page.js";
import { renderTable, scheduleRender, tickAll, wireGmControls } from "./table-page.js";

const TOKEN_KEY = "vigil.dashboard.token";

function showLogin(reason = "") {
  $("login").hidden = false;
  $("operator").hidden = true;
  $("gm").hidden = true;
  $("signout").hidden = true;
  $("login-reason").textContent = reason;
  $("token-input").focus();
}

function start(token) {
  page.token = token;
  $("login").hidden = true;
  $("signout").hidden = false;
  // The GM's and a player's page offer only the moves the server would accept (state.legal).
  page.client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-web", followLegal: true });
  window.vigil = page.client;
  page.client.addEventListener("status", (ev) => showStatus(ev.detail.status));
  page.client.addEventListener("welcome", (ev) => {
    keepToken(TOKEN_KEY, token, ev.detail.role);
    onWelcome(ev.detail);
  });
  page.client.addEventListener("state", () => scheduleRender());
  // The moves offered come after the state they are for (followLegal): only the offers change.
  page.client.addEventListener("legal", () => scheduleRender({ history: false }));
  page.client.addEventListener("refused", (ev) => {
    forgetToken(TOKEN_KEY);
    $("gm").hidden = true;
    $("operator").hidden = true;
    showLogin(errorSentence(ev.detail, page.names));
  });
  page.client.connect();
}

function showStatus(status) {
  const pill = $("conn");
  pill.textContent = statusWords(status);
  pill.dataset.status = status;
}

function onWelcome(welcome) {
  document.body.dataset.role = welcome.role;
  if (welcome.role === "operator") {
    $("operator").hidden = false;
    $("gm").hidden = true;
    $("table-title").textContent = t("VIGIL.Page.serverTables");
    buildOperator();
    refreshTables();
  } else {
    $("operator").hidden = true;
    $("gm").hidden = false;
    refreshHistory(true);
    if (welcome.role === "gm") refreshTokens();
  }
}

async function main() {
  await loadCatalogue();
  $("signout").before(languagePicker());
  page.redraw = renderTable;
  wireGmControls();
  wireHistoryFilter();
  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("token-input").value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token-input").value = "";
    start(token);
  });
  $("signout").addEventListener("click", () => {
    page.client?.close();
    page.client = null;
    forgetToken(TOKEN_KEY);
    location.reload();
  });
  setInterval(tickAll, 250);
  followNewLinks();
  const { token } = takeToken(TOKEN_KEY);
  if (token) start(token);
  else showLogin();
}

main();

