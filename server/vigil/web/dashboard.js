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
import { CATALOGUE } from "/client/core/catalogue.js";
import { buildForm, choiceLabel, commandLabel, maySend, subjectField } from "/client/core/forms.js";
import { characterOffers, commandsOf, legalFor, waitsOn } from "/client/core/offers.js";
import {
  STATUS_WORDS,
  diceFingerprint,
  errorSentence,
  eventSentence,
  explanation,
  followNewLinks,
  forgetToken,
  formatGameTime,
  h,
  keepToken,
  loadCatalogue,
  swap,
  t,
  takeToken,
  trackEdits,
  verifyUrl,
  wsUrl,
} from "./common.js";
import { characterCard, diceByPool, die, phaseTrack, reading, tick } from "./render.js";

const TOKEN_KEY = "vigil.dashboard.token";
let pageToken = null; // this page's token: the /verify page it opens reads what it may
const $ = (id) => document.getElementById(id);

let client = null;
let names = {};
let built = null; // the system the GM view was built for
let historyEntries = new Map();
let historyOldest = null;
let historyTimer = null;

// ---- messages --------------------------------------------------------------

/** Show a sentence in the corner (vigil.css .messages: clicks pass through
 * to what lies under it); it fades and goes when dismissed or after 6 s
 * (errors) / 4 s. */
function say(text, tone = "info") {
  const box = $("messages");
  const note = h(
    "div",
    { class: `message tone-${tone}`, role: tone === "error" ? "alert" : "status" },
    h("span", {}, text),
    h("button", { type: "button", class: "btn small", "aria-label": "Dismiss", onclick: () => note.remove() }, "×"),
  );
  box.append(note);
  while (box.children.length > 4) box.firstElementChild.remove();
  const stay = tone === "error" ? 6000 : 4000;
  setTimeout(() => note.classList.add("fading"), stay - 1000);
  setTimeout(() => note.remove(), stay);
}

/** Send a command; a refusal becomes a readable sentence. Resolves to the ack or null. */
async function run(body, opts = {}) {
  try {
    return await client.send(body, opts);
  } catch (err) {
    say(errorSentence(err, names), "error");
    return null;
  }
}

// ---- connecting ------------------------------------------------------------

function showLogin(reason = "") {
  $("login").hidden = false;
  $("operator").hidden = true;
  $("gm").hidden = true;
  $("signout").hidden = true;
  $("login-reason").textContent = reason;
  $("token-input").focus();
}

function start(token) {
  pageToken = token;
  $("login").hidden = true;
  $("signout").hidden = false;
  client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-web" });
  window.vigil = client;
  client.addEventListener("status", (ev) => showStatus(ev.detail.status));
  client.addEventListener("welcome", (ev) => {
    keepToken(TOKEN_KEY, token, ev.detail.role);
    onWelcome(ev.detail);
  });
  client.addEventListener("state", () => scheduleRender());
  client.addEventListener("refused", (ev) => {
    forgetToken(TOKEN_KEY);
    $("gm").hidden = true;
    $("operator").hidden = true;
    showLogin(errorSentence(ev.detail, names));
  });
  client.connect();
}

function showStatus(status) {
  const pill = $("conn");
  pill.textContent = STATUS_WORDS[status] ?? status;
  pill.dataset.status = status;
}

function onWelcome(welcome) {
  document.body.dataset.role = welcome.role;
  if (welcome.role === "operator") {
    $("operator").hidden = false;
    $("gm").hidden = true;
    $("table-title").textContent = "Server tables";
    buildOperator();
    refreshTables();
  } else {
    $("operator").hidden = true;
    $("gm").hidden = false;
    refreshHistory(true);
    if (welcome.role === "gm") refreshTokens();
  }
}

// ---- operator ----------------------------------------------------------------

let operatorBuilt = false;

function buildOperator() {
  if (operatorBuilt) return;
  operatorBuilt = true;
  trackEdits($("operator"));
  $("create-table").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { type: "table.create", system: $("new-system").value, name: $("new-name").value.trim() };
    if ($("new-id").value.trim()) body.id = $("new-id").value.trim();
    const ack = await run(body);
    if (ack) {
      gmLinks.set(ack.result.table, ack.result.url);
      showLink($("created-link"), ack.result.url, `Table ${body.name} created. Its GM link:`);
      $("new-name").value = "";
      $("new-id").value = "";
      refreshTables();
    }
  });
  $("import-table").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = $("import-file").files[0];
    if (!file) return say("Choose an exported table file first.", "error");
    let document_;
    try {
      document_ = JSON.parse(await file.text());
    } catch {
      return say(`${file.name} is not a JSON file.`, "error");
    }
    const ack = await run({ type: "table.import", document: document_ });
    if (ack) {
      say(`Imported as table ${ack.result?.table ?? ""}.`);
      if (ack.result?.url) {
        gmLinks.set(ack.result.table, ack.result.url);
        showLink($("created-link"), ack.result.url, "Its GM link:");
      }
      refreshTables();
    }
  });
  $("refresh-tables").addEventListener("click", refreshTables);
}

/**
 * The GM link of each table made in this page (created, imported or asked
 * for with "GM link"), by table id: the server keeps only token hashes, so
 * a link is shown when minted and kept in its table's row from then on.
 */
const gmLinks = new Map();

async function refreshTables() {
  const ack = await run({ type: "table.list" });
  if (!ack) return;
  const rows = ack.result.map((row) => {
    const linkCell = h("div", { class: "table-link" });
    if (gmLinks.has(row.id)) showLink(linkCell, gmLinks.get(row.id), `GM link for ${row.name}:`);
    return h(
      "tr",
      { dataset: { table: row.id } },
      h("td", {}, h("strong", {}, row.name), h("div", { class: "muted" }, row.id), linkCell),
      h("td", {}, t(`VIGIL.Game.${row.system}`)),
      // Another node's table: its owner alone knows these (a cluster).
      h("td", { class: "num" }, String(row.characters ?? "—")),
      h("td", { class: "num" }, String(row.rev ?? "—")),
      h("td", {}, row.archived ? "archived" : "active"),
      h(
        "td",
        {},
        h(
        "div",
        { class: "row-actions" },
        h("button", { type: "button", class: "btn small", "aria-label": `GM link for ${row.name}`, onclick: () => openAsGm(row, linkCell) }, "GM link"),
        h("button", { type: "button", class: "btn small", onclick: () => exportTable(row.id) }, "Export"),
        h(
          "button",
          { type: "button", class: "btn small", onclick: async () => (await run({ type: "table.archive", archived: !row.archived }, { table: row.id })) && refreshTables() },
          row.archived ? "Unarchive" : "Archive",
        ),
        confirmButton(`Delete ${row.name}`, "Delete", async () => (await run({ type: "table.delete", table: row.id })) && refreshTables()),
        ),
      ),
    );
  });
  swap($("tables-body"), rows.length ? rows : h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No tables yet.")));
}

async function openAsGm(table, cell) {
  const ack = await run({ type: "token.mint", role: "gm", label: "dashboard" }, { table: table.id });
  if (!ack) return;
  gmLinks.set(table.id, ack.result.url);
  showLink(cell, ack.result.url, `GM link for ${table.name}:`);
}

async function exportTable(tableId) {
  const ack = await run({ type: "table.export" }, { table: tableId });
  if (!ack) return;
  download(ack.result, `vigil-${tableId}.json`);
  say("Exported.");
}

/** Save a JSON document as a file download. */
function download(document_, filename) {
  const blob = new Blob([JSON.stringify(document_, null, 2)], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/**
 * A button that asks once more before it acts (no modal dialog: works by
 * keyboard). Once armed it stays armed until answered: pressed again it
 * acts; "Keep" (or Escape) puts it back. It never re-arms silently, so a
 * leaked link is revoked in two clicks, not three.
 */
function confirmButton(label, text, action, key = null, command = null) {
  const button = h("button", { type: "button", class: "btn small tone-danger", "aria-label": label, dataset: { ...(key ? { key } : {}), ...(command ? { command } : {}) } }, text);
  const keep = h("button", { type: "button", class: "btn small", hidden: true }, t("VIGIL.Page.keep"));
  let armed = false;
  const disarm = () => {
    armed = false;
    button.textContent = text;
    button.classList.remove("armed");
    keep.hidden = true;
  };
  button.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      button.textContent = t("VIGIL.Page.sure");
      button.classList.add("armed");
      keep.hidden = false;
      return;
    }
    disarm();
    action();
  });
  button.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") disarm();
  });
  keep.addEventListener("click", disarm);
  return h("span", { class: "confirm" }, button, keep);
}

/**
 * Put a link into a visible, selectable field with Open and Copy buttons.
 * With `keep`, each minted link stays (newest first) until dismissed, so a
 * second mint never replaces a link not yet copied; else it replaces what
 * the container showed.
 */
function showLink(container, url, caption, { keep = false } = {}) {
  const field = h("input", { type: "text", readonly: true, value: url, class: "link-field", "aria-label": caption, onfocus: (ev) => ev.target.select() });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = h("button", {
    type: "button",
    class: "btn small",
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        copied.textContent = "Copied.";
      } catch {
        field.select();
        copied.textContent = "Select the text and copy it (Ctrl+C).";
      }
    },
  }, "Copy");
  const open = h("a", { class: "btn small", href: url, target: "_blank", rel: "noopener" }, t("VIGIL.Page.open"));
  const box = h("div", { class: "link-out" }, h("div", { class: "caption" }, caption), h("div", { class: "link-row" }, field, open, copy, copied));
  if (keep) {
    box.append(h("button", { type: "button", class: "btn small dismiss", "aria-label": t("VIGIL.Page.dismiss"), onclick: () => box.remove() }, "×"));
    container.prepend(box);
  } else {
    container.replaceChildren(box);
  }
}

// ---- GM view -----------------------------------------------------------------

let renderQueued = false;
function scheduleRender() {
  // A new rev means new history: refetch the newest page shortly after.
  // Throttled, not debounced, so a busy table still sees its history move.
  if (!historyTimer) {
    historyTimer = setTimeout(() => {
      historyTimer = null;
      refreshHistory(false);
    }, 200);
  }
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderTable();
    // New cards start blank ("--:--"): fill their countdowns now, not at
    // the next quarter-second tick.
    tickAll();
  });
}

function charList(state) {
  return Object.entries(state.characters).map(([id, ch]) => [id, ch.name]);
}

function selectedChar() {
  return $("act-char").value;
}

function buildGm(state) {
  built = state.system;
  const gm = client.role === "gm";
  document.body.dataset.system = state.system;
  $("gm").classList.toggle("readonly", !gm);
  for (const el of document.querySelectorAll(".gm-only")) el.hidden = !gm;
  $("actions").hidden = !(gm || client.role === "player");
  $("dryh-panel").hidden = state.system !== "dryh";
  trackEdits($("gm"));
  slots.clear();
  $("action-forms").replaceChildren();
  $("table-forms").replaceChildren();
}

// ---- forms from the catalogue ------------------------------------------------

/**
 * Commands this page sends through its own controls rather than a built
 * form (the clock bar, the cards, the DRYH roll panel, the invites, the
 * operator's page). Every other command of the catalogue for the table's
 * game gets a form, so nothing the server offers is out of reach; the
 * controls of these carry data-command too (tests check the union).
 */
const BESPOKE = new Set([
  "clock.pause", "clock.run", "clock.set", "combat.start", "combat.next_round", "combat.end", "undo",
  "token.mint", "token.list", "token.revoke", "character.remove",
  "dryh.open", "dryh.declare", "dryh.help", "dryh.roll", "dryh.cancel", "dryh.despair_spend", "dryh.hope_improve", "dryh.resolve", "dryh.choose",
  "table.create", "table.import", "table.list", "table.delete",
]);

/** What waits on character `char` for its player's answer (core/offers.js
 * waitsOn), in words from lang/en.json VIGIL.Wait.<field> (or ""). */
function waitingSentence(state, char) {
  const ch = state.characters[char];
  return waitsOn(CATALOGUE, state, char)
    .map((w) => t(`VIGIL.Wait.${w.field}`, { name: ch.name, value: ch.sheet[w.field] }))
    .join(" ");
}

/** Built forms by slot ("act:<tag>", "table:<tag>"), kept across renders. */
const slots = new Map();

/** The catalogue commands of this table's game (its own and the generic
 * ones) in the catalogue's order of play, less those only a Foundry client
 * can fill (Foundry's world time). */
function tableCommands(system) {
  return commandsOf(CATALOGUE, system).filter((e) => !e.foundry_only);
}

/** May this page's viewer send `entry` (the catalogue's senders)? */
function mayUse(entry) {
  return maySend(entry, { role: client.role, own: client.ownCharacters ?? [] });
}

function formCtx(state, extra = {}) {
  return {
    catalogue: CATALOGUE,
    game: state.system,
    state,
    role: client.role,
    own: client.ownCharacters ?? [],
    t,
    errorText: (err) => errorSentence(err, names),
    onSubmit: (body, form) => submitForm(body, form),
    ...extra,
  };
}

/**
 * Send a built form's body; on the ack, the outcome is drawn by the form
 * (the history entry of that revision: sentences and dice), so a check's
 * pass or fail, TN and dice are read where the button was pressed. A
 * refusal is shown in the form's own alert (by the form builder).
 */
async function submitForm(body, sent) {
  delete sent.dataset.dirty;
  const ack = await client.send(body);
  // The patch may have rebuilt the form meanwhile: draw into the one shown.
  const form = slots.get(sent.dataset.slot)?.form ?? sent;
  form.dataset.result = "ack";
  if (body.type === "table.export") download(ack.result, `vigil-${client.tableId ?? "table"}.json`);
  const out = form.querySelector(".form-result") ?? form.appendChild(h("div", { class: "form-result", role: "status", "aria-live": "polite" }));
  let lines = [h("p", { class: "muted" }, "Done.")];
  if (ack.rev !== null && ack.rev !== undefined) {
    try {
      const page = await client.history({ before: ack.rev + 1, limit: 1 });
      const entry = page.entries.find((e) => e.rev === ack.rev);
      if (entry) lines = entry.events.map((ev) => h("p", { class: `result-line code-${ev.code}`, dataset: { code: ev.code } }, eventSentence(ev, names), eventDice(ev), explanation(ev, client.state?.system)));
    } catch {
      /* the history shows it anyway */
    }
  }
  swap(slots.get(sent.dataset.slot)?.form.querySelector(".form-result") ?? out, lines);
  return ack;
}

/**
 * Place one built form per tag into `container`, reusing the form already
 * there while neither its identity (the character it acts on, the
 * characters' names) nor the data it shows changed. A form the person has
 * typed into is rebuilt only when its identity changes, so an unrelated
 * patch never wipes a half-filled form.
 */
function placeForms(container, prefix, entries, identity, data, extraFor = () => ({})) {
  const state = client.state;
  const wanted = [];
  for (const entry of entries) {
    const slot = `${prefix}:${entry.type}`;
    const id = `${identity}|${JSON.stringify(extraFor(entry))}`;
    const have = slots.get(slot);
    let form = have?.form;
    if (!have || have.identity !== id || (have.data !== data && !have.form.dataset.dirty)) {
      form = buildForm(entry, formCtx(state, extraFor(entry)));
      form.classList.add("action");
      form.dataset.slot = slot;
      if (have?.form.dataset.result) form.dataset.result = have.form.dataset.result;
      form.addEventListener("input", () => {
        form.dataset.dirty = "1";
      });
      const result = have?.form.querySelector(".form-result");
      if (result) form.append(result);
      slots.set(slot, { form, identity: id, data });
    }
    wanted.push(form);
  }
  const same = wanted.length === container.children.length && wanted.every((f, i) => container.children[i] === f);
  if (!same) container.replaceChildren(...wanted);
}

/** This page's viewer, as core/offers.js takes it. */
const viewer = () => ({ role: client.role, own: client.ownCharacters ?? [] });

let offersMemo = { rev: null, byChar: new Map() };
/**
 * What this viewer may send now for character `char` (core/offers.js
 * characterOffers: the same offers as the Foundry window, with the state's
 * legal moves, pending choices and waits), memoized per drawn rev.
 */
function offersFor(state, char) {
  if (offersMemo.rev !== client.rev) offersMemo = { rev: client.rev, byChar: new Map() };
  if (!offersMemo.byChar.has(char)) offersMemo.byChar.set(char, char && state.characters[char] ? characterOffers(CATALOGUE, state, char, viewer()) : []);
  return offersMemo.byChar.get(char);
}

/** The offer of command `tag` for character `char`, or null. */
const offerFor = (state, char, tag) => offersFor(state, char).find((o) => o.entry.type === tag) ?? null;

/**
 * The "Act on" forms for character `selected`: what core/offers.js offers
 * this viewer now (as in the Foundry window: the moves the server's view
 * says are legal, prefilled and narrowed by them), what waits on the
 * character first. A player's answered form stays (see answered).
 */
function actingForms(state, selected) {
  const offers = new Map(offersFor(state, selected).map((o) => [o.entry.type, o]));
  const waiting = waitsOn(CATALOGUE, state, selected);
  const answers = (e) => waiting.some((w) => w.answers.includes(e.type));
  const acting = tableCommands(state.system)
    .filter((e) => e.scope === "character" && !BESPOKE.has(e.type) && mayUse(e))
    .filter((e) => offers.has(e.type) || (client.role === "player" && answered(e, selected)));
  acting.sort((a, b) => Number(answers(b)) - Number(answers(a)));
  const ctxFor = (entry) => {
    const offer = offers.get(entry.type);
    if (!offer) return { char: selected };
    return { ...(offer.char ? { char: offer.char } : {}), values: offer.values, choices: offer.choices };
  };
  // An answered form whose offer is gone stays in view with its button off.
  const live = (e) => offers.has(e.type);
  return { entries: acting.map((e) => offers.get(e.type)?.entry ?? e), ctxFor, live };
}

/**
 * A player's answer to what waited on its character (a fall taken or
 * broken) keeps its form in view, its button off, with the outcome under
 * it: what waited is over, but the outcome should not vanish with the form.
 * Until the player picks another character or the form is needed again.
 */
function answered(entry, selected) {
  const form = slots.get(`act:${entry.type}`)?.form;
  return Boolean(form?.isConnected && form.dataset.result === "ack" && form.querySelector("[name='char']")?.value === selected);
}

/** The forms of the "Act on" panel and (GM) the table panel. */
function renderForms(state, selected) {
  const commands = tableCommands(state.system).filter((e) => !BESPOKE.has(e.type) && mayUse(e));
  const sheet = state.characters[selected] ?? null;
  const waiting = waitingSentence(state, selected);
  $("act-waiting").hidden = !waiting;
  $("act-waiting").textContent = waiting;
  // Manual dice adds fields to the rolling forms (core/forms.js visibleFields): a new shape, a new form.
  const identity = JSON.stringify([selected, Object.keys(state.characters).map((id) => [id, state.characters[id].name]), Boolean(state.options?.manual_dice)]);
  const { entries, ctxFor, live } = actingForms(state, selected);
  placeForms($("action-forms"), "act", entries, identity, JSON.stringify(sheet), ctxFor);
  for (const e of entries) slots.get(`act:${e.type}`).form.querySelector("button[type=submit]").disabled = !live(e);
  if (client.role !== "gm") return;
  const data = JSON.stringify([state.options, state.settings, Object.values(state.characters).map((c) => c.sheet)]);
  const legalNow = (e) => !e.legal || state.legal?.table?.[e.type] !== undefined;
  placeForms($("table-forms"), "table", commands.filter((e) => e.scope !== "character" && legalNow(e)), identity, data, () => ({}));
  $("manual-dice-note").hidden = !state.options?.manual_dice;
}

function wireGmControls() {
  $("clock-pause").addEventListener("click", () => run({ type: "clock.pause" }));
  $("clock-run").addEventListener("click", () => run({ type: "clock.run", rate: Number($("clock-rate").value) || 1 }));
  $("clock-advance").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const minutes = Number($("clock-minutes").value);
    if (!(minutes > 0)) return say("Give a number of minutes above zero.", "error");
    run({ type: "clock.set", to: client.gameNow() + minutes * 60 });
  });
  $("combat-start").addEventListener("click", () => run({ type: "combat.start" }));
  $("combat-next").addEventListener("click", () => run({ type: "combat.next_round" }));
  $("combat-end").addEventListener("click", () => run({ type: "combat.end" }));
  $("undo").addEventListener("click", async () => {
    const what = $("undo").dataset.what; // the patch that follows names the next one
    const ack = await run({ type: "undo" });
    if (ack) say(what ? t("VIGIL.Undo.done", { what }) : t("VIGIL.Undo.doneBare"));
  });
  $("act-char").addEventListener("change", () => renderTable());
  $("invite-player").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const chars = [...document.querySelectorAll("#invite-chars input:checked")].map((i) => i.value);
    if (!chars.length) return say("Tick the characters this player plays.", "error");
    const label = $("invite-label").value.trim() || `${chars.map((c) => names[c] ?? c).join(", ")}'s player`;
    const ack = await run({ type: "token.mint", role: "player", chars, label });
    if (ack) {
      showLink($("invite-out"), ack.result.url, `Player link (${label}):`, { keep: true });
      refreshTokens();
    }
  });
  $("invite-spectator").addEventListener("click", async () => {
    const ack = await run({ type: "token.mint", role: "spectator", label: $("spectator-label").value.trim() || "stream" });
    if (ack) {
      showLink($("invite-out"), ack.result.url, "Spectator link (add &layout=overlay for OBS):", { keep: true });
      refreshTokens();
    }
  });
  $("refresh-tokens").addEventListener("click", refreshTokens);
  $("history-older").addEventListener("click", () => loadOlderHistory());
  // DRYH table-level controls
  $("dryh-open").addEventListener("submit", (ev) => {
    ev.preventDefault();
    run({ type: "dryh.open", char: $("open-char").value, pain: Number($("open-pain").value), kind: $("open-kind").value });
  });
  for (const coin of ["hope", "despair"]) {
    for (const delta of [-1, 1]) {
      $(`${coin}-${delta > 0 ? "up" : "down"}`).addEventListener("click", () => {
        const now = client.state?.game?.[coin] ?? 0;
        run({ type: "correct", char: null, field: coin, value: Math.max(0, now + delta) });
      });
    }
  }
}

function renderTable() {
  const state = client?.state;
  if (!state) return;
  if (built !== state.system) buildGm(state);
  const gm = client.role === "gm";
  const player = client.role === "player";
  document.body.dataset.rev = String(client.rev); // drawn up to this rev (tests wait on it)
  names = Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
  $("table-title").textContent = `${state.name} · ${t(`VIGIL.Game.${state.system}`)}`;
  $("table-title").title = $("table-title").textContent;
  document.title = `${state.name} — Vigil`;
  renderDiceProof(state);
  renderClock(state);
  if (gm) renderUndo(state);

  const chars = charList(state);
  const own = new Set(client.ownCharacters ?? []);
  // The GM acts on any character; a player on its own ones (that it sees).
  const actable = gm ? chars : chars.filter(([id]) => own.has(id));
  if (gm || player) fillSelect($("act-char"), actable);
  if (gm) fillSelect($("open-char"), chars);
  const selected = gm || player ? selectedChar() : null;
  const cards = Object.entries(state.characters).map(([id, ch]) => characterCard(state.system, id, ch, gm ? cardControls(id, ch, selected) : null));
  swap($("characters"), cards.length ? cards : h("p", { class: "muted" }, "No characters yet."));

  if (state.system === "dryh") renderDryh(state, gm);
  if (!gm && !player) return;

  const sel = state.characters[selected];
  $("act-title").textContent = sel ? `Act on ${sel.name}` : "Act on a character";
  $("act-none").hidden = actable.length > 0;
  renderForms(state, selected);
  if (gm) {
    swap(
      $("invite-chars"),
      chars.map(([id, name]) => h("label", { class: "check" }, h("input", { type: "checkbox", value: id, dataset: { key: `invite:${id}` } }), ` ${name}`)),
    );
  }
}

function fillSelect(select, pairs) {
  const current = select.value;
  const same = select.options.length === pairs.length && pairs.every(([v, l], i) => select.options[i].value === v && select.options[i].text === l);
  if (!same) {
    select.replaceChildren(...pairs.map(([value, label]) => h("option", { value }, label)));
    if (pairs.some(([v]) => v === current)) select.value = current;
  }
}

function cardControls(id, ch, selected) {
  const visId = `vis-${id}`;
  return h(
    "div",
    { class: "card-controls" },
    h(
      "button",
      {
        type: "button",
        class: `btn small ${selected === id ? "active" : ""}`,
        "aria-pressed": String(selected === id),
        "aria-label": `${selected === id ? "Acting on" : "Act on"} ${ch.name}`,
        dataset: { key: `pick:${id}` },
        onclick: () => {
          $("act-char").value = id;
          renderTable();
          $("actions").scrollIntoView({ block: "nearest" });
        },
      },
      selected === id ? "Acting on" : "Act on",
    ),
    h("label", { for: visId, class: "inline" }, "Visible", h("span", { class: "sr-only" }, ` (${ch.name})`)),
    h(
      "select",
      {
        id: visId,
        dataset: { key: visId },
        onchange: (ev) => run({ type: "character.meta", char: id, visibility: ev.target.value }),
      },
      ["full", "status", "hidden"].map((v) => h("option", { value: v, selected: ch.visibility === v }, t(`VIGIL.Choice.visibility.${v}`))),
    ),
    confirmButton(`Remove ${ch.name}`, "Remove", () => run({ type: "character.remove", char: id }), `remove:${id}`, "character.remove"),
  );
}

/**
 * The undo button says what it takes back: the server's `state.undo` (the
 * GM's view only: what Table.next_undo() would undo), as "Undo: Apply pain —
 * Ysolde (rev 42)" (the command's catalogue label) with who sent it and when; disabled when nothing can be
 * undone.
 */
function renderUndo(state) {
  const button = $("undo");
  const u = state.undo ?? null;
  let text = t("VIGIL.Undo.nothing");
  let what = "";
  let title = "";
  if (u) {
    what = t("VIGIL.Undo.what", { what: undoWhat(u), rev: u.rev });
    text = t("VIGIL.Undo.button", { what });
    title = [u.by ? t("VIGIL.Undo.by", { by: u.by }) : "", typeof u.at === "number" ? t("VIGIL.Undo.at", { time: formatGameTime(u.at) }) : ""].filter(Boolean).join(" ");
  }
  if (button.textContent !== text) button.textContent = text;
  button.disabled = !u;
  button.dataset.what = what;
  button.dataset.rev = u ? String(u.rev) : "";
  button.title = title ? t("VIGIL.Undo.titleWith", { detail: title }) : t("VIGIL.Undo.title");
}

/**
 * What an undo takes back, in names: a correction as what it set ("Hope
 * set to 3": the DRYH coin buttons are corrections), any other command by
 * its catalogue label and the character it is about ("Apply pain —
 * Ysolde").
 */
function undoWhat(u) {
  const who = u.char ? names[u.char] ?? u.name ?? null : null;
  if (u.command === "correct" && u.field) {
    const field = t(`VIGIL.Field.${String(u.field).split(".").pop()}`);
    const value = typeof u.value === "object" ? "" : String(u.value);
    return t(who ? "VIGIL.Undo.setOf" : "VIGIL.Undo.set", { field, value, name: who ?? "" });
  }
  const entry = u.command ? CATALOGUE.commands[u.command] : null;
  const label = entry ? commandLabel(entry, t) : t("VIGIL.Undo.change");
  return who ? `${label} — ${who}` : label;
}

function renderClock(state) {
  const c = state.clock;
  $("clock-mode").textContent = c.mode === "running" ? `running ${c.rate}×` : c.mode;
  $("clock-mode").dataset.mode = c.mode;
  $("combat-state").textContent = c.in_combat ? `Combat · round ${c.round}` : "No combat";
}

// ---- DRYH ----------------------------------------------------------------------

/** The last resolved roll (from the history), kept in view after it closes. */
let lastRoll = null;

const choiceField = (tag, name) => CATALOGUE.commands[tag].fields.find((f) => f.name === name);
const choiceText = (tag, name, v) => choiceLabel(choiceField(tag, name), v, t);

function renderDryh(state, gm) {
  const g = state.game;
  $("hope").textContent = String(g.hope ?? 0);
  $("despair").textContent = String(g.despair ?? 0);
  $("session").textContent = g.session?.active ? `Session ${g.session.number}` : `No session (${g.session?.number ?? 0} played)`;
  const rolls = Object.entries(g.rolls ?? {});
  const boxes = rolls.map(([char, roll]) => rollBox(state, char, roll, gm));
  if (!rolls.length && lastRoll) {
    boxes.push(
      h(
        "section",
        { class: "roll last-roll", dataset: { roll: lastRoll.protagonist, phase: "done" }, "aria-label": "Last roll" },
        h("header", { class: "roll-head" }, h("h3", {}, `Last roll: ${names[lastRoll.protagonist] ?? lastRoll.protagonist}`)),
        diceByPool(lastRoll.dice, lastRoll.dominant, names, lastRoll.adjustments),
        reading(lastRoll),
        explanation({ params: { explain: lastRoll.explain } }, "dryh"),
      ),
    );
  }
  swap($("rolls"), boxes.length ? [boxes, rolls.length ? null : h("p", { class: "muted" }, "No open roll.")] : h("p", { class: "muted" }, "No open roll."));
}

/** The newest resolved DRYH roll of the history (null when none). */
function newestResolved(entries) {
  for (const e of entries) {
    if (e.undone) continue;
    const ev = e.events.find((x) => x.code === "roll_resolved" && x.params?.dice);
    if (ev) return { ...ev.params, protagonist: ev.params.protagonist ?? ev.char };
  }
  return null;
}

function rollBox(state, char, roll, gm) {
  const name = names[char] ?? char;
  const k = (s) => `${char}:${s}`;
  const d = roll.declaration;
  const controls = [];
  const talents = choiceField("dryh.declare", "talent").choices;
  if (offerFor(state, char, "dryh.declare")) {
    controls.push(
      h(
        "form",
        {
          class: "inline-form",
          dataset: { command: "dryh.declare" },
          onsubmit: (ev) => {
            ev.preventDefault();
            const f = ev.target;
            run({ type: "dryh.declare", char, madness: Number(f.madness.value), exhaustion_up: f.exhaustion_up.checked, talent: f.talent.value });
          },
        },
        h("label", { for: `decl-m-${char}` }, "Madness dice"),
        h("select", { id: `decl-m-${char}`, name: "madness", dataset: { key: k("madness") } }, [0, 1, 2, 3, 4, 5, 6].map((n) => h("option", { value: n, selected: (d?.madness ?? 0) === n }, String(n)))),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "exhaustion_up", checked: !!d?.exhaustion_up, dataset: { key: k("exh") } }), " Exhaustion +1"),
        h("label", { for: `decl-t-${char}` }, "Talent"),
        h("select", { id: `decl-t-${char}`, name: "talent", dataset: { key: k("talent") } }, talents.map((v) => h("option", { value: v, selected: d?.talent === v }, choiceText("dryh.declare", "talent", v)))),
        h("button", { type: "submit", class: "btn", dataset: { key: k("declare") } }, "Declare"),
      ),
    );
  }
  if (roll.phase === "open" || roll.phase === "declared") {
    // DRYH-03: who may join this roll and who may leave it, as the server's view says (state.legal).
    const help = legalFor(state, char, "dryh.help");
    const variants = Array.isArray(help) ? help : [];
    const helpers = variants.filter((v) => !v.leave).map((v) => [v.helper, state.characters[v.helper]]).filter(([, ch]) => ch);
    const leaving = variants.filter((v) => v.leave).map((v) => v.helper);
    if (helpers.length || leaving.length) {
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.help" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.help", char, helper: ev.target.helper.value });
            },
          },
          helpers.length ? [
            h("label", { for: `help-${char}` }, "Helper"),
            h("select", { id: `help-${char}`, name: "helper", dataset: { key: k("helper") } }, helpers.map(([id, ch]) => h("option", { value: id }, ch.name))),
            h("button", { type: "submit", class: "btn", dataset: { key: k("help") } }, "Join as helper"),
          ] : null,
          leaving.map((hid) => h("button", { type: "button", class: "btn small", onclick: () => run({ type: "dryh.help", char, helper: hid, leave: true }) }, `${names[hid] ?? hid} leaves`)),
        ),
      );
    }
    const row = [];
    if (gm && state.options?.manual_dice) controls.push(manualRoll(state, char));
    else if (offerFor(state, char, "dryh.roll")) row.push(h("button", { type: "button", class: "btn primary big", dataset: { key: k("roll"), command: "dryh.roll" }, onclick: () => run({ type: "dryh.roll", char }) }, `Roll for ${name}`));
    if (gm && offerFor(state, char, "dryh.cancel")) row.push(h("button", { type: "button", class: "btn", dataset: { key: k("cancel"), command: "dryh.cancel" }, onclick: () => run({ type: "dryh.cancel", char }) }, "Cancel roll"));
    if (row.length) controls.push(h("div", { class: "row" }, row));
  }
  if (roll.phase === "rolled" || roll.phase === "adjusted") {
    if (gm && offerFor(state, char, "dryh.despair_spend")) {
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.despair_spend" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.despair_spend", char, pool: ev.target.pool.value, op: ev.target.op.value });
            },
          },
          h("label", { for: `dsp-pool-${char}` }, "Despair: pool"),
          h("select", { id: `dsp-pool-${char}`, name: "pool", dataset: { key: k("dpool") } }, choiceField("dryh.despair_spend", "pool").choices.map((p) => h("option", { value: p }, choiceText("dryh.despair_spend", "pool", p)))),
          h("label", { for: `dsp-op-${char}` }, "Change"),
          h("select", { id: `dsp-op-${char}`, name: "op", dataset: { key: k("dop") } }, h("option", { value: "add" }, "add a 6"), h("option", { value: "remove" }, "remove a 6")),
          h("button", { type: "submit", class: "btn tone-danger", dataset: { key: k("despair") } }, "Spend despair"),
        ),
      );
    }
    if (offerFor(state, char, "dryh.hope_improve")) {
      controls.push(
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", class: "btn tone-good", dataset: { key: k("hope"), command: "dryh.hope_improve" }, onclick: () => run({ type: "dryh.hope_improve", char }) }, "Spend hope: add a 1 to discipline"),
        ),
      );
    }
    const resolve = gm ? offerFor(state, char, "dryh.resolve") : null;
    if (resolve) {
      // DRYH-21: only the failure consequences the rules would accept now.
      const failures = resolve.choices?.failure ?? ["none"];
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.resolve" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.resolve", char, failure: ev.target.failure.value });
            },
          },
          failures.length > 1 ? [
            h("label", { for: `fail-${char}` }, "Failure consequence"),
            h("select", { id: `fail-${char}`, name: "failure", dataset: { key: k("failure") } }, failures.map((f) => h("option", { value: f }, choiceText("dryh.resolve", "failure", f)))),
          ] : h("input", { type: "hidden", name: "failure", value: "none" }),
          h("button", { type: "submit", class: "btn primary big", dataset: { key: k("resolve") } }, "Resolve"),
        ),
      );
    }
  }
  if (roll.phase === "resolved") {
    // DRYH-14/16/20: each pending choice, to its chooser, with the legal moves only.
    const chooses = legalFor(state, char, "dryh.choose");
    for (const [who, kind] of Object.entries(roll.pending ?? {})) {
      const chooser = names[who] ?? who;
      const kindWord = t(`VIGIL.Choice.pending.${kind}`);
      // The choices the server's view offers this viewer for `who` (none: another's to make).
      const choices = (Array.isArray(chooses) ? chooses : []).filter((v) => (v.who ?? char) === who).map((v) => v.choice);
      if (!choices.length) {
        controls.push(h("p", { class: "muted pending-other" }, `${chooser} must choose a ${kindWord.toLowerCase()} consequence.`));
        continue;
      }
      controls.push(
        h(
          "form",
          {
            class: "inline-form pending-choice",
            dataset: { command: "dryh.choose", who },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.choose", char, who, choice: ev.target.choice.value });
            },
          },
          h("label", { for: `choose-${char}-${who}` }, `${chooser} chooses (${kindWord})`),
          h("select", { id: `choose-${char}-${who}`, name: "choice", dataset: { key: k(`choice-${who}`) } }, choices.map((c) => h("option", { value: c }, choiceText("dryh.choose", "choice", c)))),
          h("button", { type: "submit", class: "btn primary", dataset: { key: k(`choose-${who}`) } }, "Choose"),
        ),
      );
    }
  }
  const decl = d
    ? `Declared: ${d.madness} madness ${d.madness === 1 ? "die" : "dice"}${d.exhaustion_up ? ", exhaustion +1" : ""}${d.talent && d.talent !== "none" ? `, ${choiceText("dryh.declare", "talent", d.talent)}` : ""}`
    : null;
  return h(
    "section",
    { class: `roll phase-${roll.phase}`, dataset: { roll: char, phase: roll.phase }, "aria-label": `${name}'s roll` },
    h("header", { class: "roll-head" }, h("h3", {}, `${name}'s roll`), h("span", { class: "muted" }, `${roll.pain} ${roll.kind} pain dice`), phaseTrack(roll.phase)),
    decl && roll.phase !== "open" ? h("p", { class: "muted" }, decl) : null,
    roll.helpers?.length ? h("p", { class: "muted" }, `Helpers: ${roll.helpers.map((x) => names[x] ?? x).join(", ")}`) : null,
    diceByPool(roll.dice, roll.dominant, names, roll.adjustments),
    reading(roll),
    explanation({ params: { explain: roll.explain } }, "dryh"),
    controls,
  );
}

/**
 * With manual dice on, the GM's roll of `char`'s open roll is the
 * catalogue's dryh.roll form with its faces (core/forms.js shows them while
 * the option is on); left empty, the server rolls. Kept across renders like
 * the other built forms (`slots`), so faces being typed survive a patch.
 */
function manualRoll(state, char) {
  const roll = state.game.rolls[char];
  const slot = `roll:${char}`;
  const identity = JSON.stringify([char, roll.opened_at, roll.helpers, Object.keys(state.characters).map((id) => [id, state.characters[id].name])]);
  let form = slots.get(slot)?.identity === identity ? slots.get(slot).form : null;
  if (!form) {
    form = buildForm(CATALOGUE.commands["dryh.roll"], formCtx(state, { char }));
    form.classList.add("action", "manual-roll");
    form.dataset.slot = slot;
    slots.set(slot, { form, identity, data: null });
  }
  return h(
    "div",
    { class: "manual-roll-box" },
    h("p", { class: "note" }, "Manual dice: type the faces in the order the dice are drawn — discipline, exhaustion, madness, pain, then each helper's dice in joining order — or leave them empty for the server's dice."),
    form,
  );
}

// ---- tokens --------------------------------------------------------------------

async function refreshTokens() {
  const ack = await run({ type: "token.list" });
  if (!ack) return;
  const rows = ack.result
    .filter((t) => !t.revoked)
    .map((t) =>
      h(
        "tr",
        { dataset: { token: t.token_id } },
        h("td", {}, t.label || t.token_id, h("div", { class: "muted" }, t.role, t.chars?.length ? `: ${t.chars.map((c) => names[c] ?? c).join(", ")}` : "")),
        h("td", {}, t.expires ? new Date(t.expires * 1000).toLocaleDateString() : "never"),
        h(
          "td",
          {},
          t.token_id === client.welcome?.token_id
            ? h("span", { class: "muted" }, "this page")
            : confirmButton(`Revoke ${t.label || t.token_id}`, "Revoke", async () => {
                if (await run({ type: "token.revoke", token_id: t.token_id })) {
                  say(`Revoked ${t.label || t.token_id}.`);
                  refreshTokens();
                }
              }, null, "token.revoke"),
        ),
      ),
    );
  swap($("tokens-body"), rows);
}

// ---- history -------------------------------------------------------------------

async function refreshHistory(reset) {
  if (!client || client.status !== "connected" || client.role === "operator") return;
  try {
    const page = await client.history({ before: null, limit: 25 });
    if (reset) {
      historyEntries = new Map();
      historyOldest = null;
    }
    for (const e of page.entries) historyEntries.set(e.rev, e);
    if (historyOldest === null) historyOldest = page.next_before;
    const newest = newestResolved([...historyEntries.values()].sort((a, b) => b.rev - a.rev));
    if (JSON.stringify(newest) !== JSON.stringify(lastRoll)) {
      lastRoll = newest;
      renderTable();
    }
    renderHistory();
  } catch (err) {
    console.warn("history refresh failed", err); // the next state change tries again
  }
}

async function loadOlderHistory() {
  if (historyOldest === null) return;
  try {
    const page = await client.history({ before: historyOldest, limit: 25 });
    for (const e of page.entries) historyEntries.set(e.rev, e);
    historyOldest = page.next_before;
    renderHistory();
  } catch (err) {
    say(errorSentence(err, names), "error");
  }
}

function actorName(actor) {
  return String(actor ?? "").split("#")[0] || "server";
}

/**
 * The kinds of history entry a page filters by, in words. The history
 * (history_view.py) gives each entry its kind: a command, the clock's own
 * change (timed effects that fell due, a pause for want of a GM) or an
 * undo; a GM's correction or revive is told by its event, which players
 * read too (they are not sent the command). Refusals change nothing and
 * are not in the history.
 */
const HISTORY_KINDS = {
  command: ["Commands", "Command"],
  clock: ["The clock and timed effects", "Clock"],
  correction: ["Corrections and revives", "Correction"],
  undo: ["Undo", "Undo"],
};
const CORRECTION_EVENTS = new Set(["corrected", "revived"]);

function historyKind(entry) {
  if (entry.kind === "undo" || entry.kind === "clock") return entry.kind;
  return entry.events.some((ev) => CORRECTION_EVENTS.has(ev.code)) ? "correction" : "command";
}

/** Does `entry` concern character `char`: an event of its own, or one naming it (a helper, a healer, a roll's owner)? */
function historyMentions(entry, char) {
  const names = (v) => v === char || (Array.isArray(v) ? v.some(names) : v !== null && typeof v === "object" && Object.entries(v).some(([k, x]) => k === char || names(x)));
  return entry.events.some((ev) => ev.char === char || names(ev.params ?? null)) || names(entry.command?.char ?? null);
}

/** What the entry's head says it was: the command's name for the GM (who is sent it), else its kind. */
function entryLabel(entry) {
  const command = entry.command?.type ? CATALOGUE.commands[entry.command.type] : null;
  return command ? t(command.label) : HISTORY_KINDS[historyKind(entry)][1];
}

/** The filter's controls: the kinds once, the characters of this viewer's view as they come and go. */
function wireHistoryFilter() {
  fillSelect($("history-kind"), [["", "Everything"], ...Object.entries(HISTORY_KINDS).map(([k, [words]]) => [k, words])]);
  for (const id of ["history-char", "history-kind"]) $(id).addEventListener("change", () => renderHistory());
  $("history-filter").addEventListener("submit", (ev) => ev.preventDefault());
}

function filteredHistory(entries) {
  if (client?.state) fillSelect($("history-char"), [["", "Everyone"], ...charList(client.state)]);
  const char = $("history-char").value;
  const kind = $("history-kind").value;
  const shown = entries.filter((e) => (!char || historyMentions(e, char)) && (!kind || historyKind(e) === kind));
  $("history-shown").textContent = char || kind ? `${shown.length} of ${entries.length} loaded entries` : "";
  return shown;
}

function renderHistory() {
  const loaded = [...historyEntries.values()].sort((a, b) => b.rev - a.rev);
  const entries = filteredHistory(loaded);
  swap(
    $("history"),
    loaded.length && !entries.length ? h("li", { class: "history-none" }, "No loaded entry matches the filter; older entries may.") : entries.map((e) =>
      h(
        "li",
        { class: `entry ${e.undone ? "undone" : ""}`, dataset: { rev: String(e.rev), kind: historyKind(e) } },
        h(
          "div",
          { class: "entry-head" },
          h("span", { class: "rev" }, `#${e.rev}`),
          // The table thinks in game time; the wall clock is a tooltip.
          h("time", { class: "game-time", datetime: new Date(e.wall * 1000).toISOString(), title: new Date(e.wall * 1000).toLocaleString() }, formatGameTime(e.at)),
          h("span", { class: "actor" }, actorName(e.actor)),
          h("span", { class: "muted entry-kind" }, entryLabel(e)),
          e.undone ? h("span", { class: "undone-tag" }, "undone") : null,
        ),
        h("ul", { class: "events" }, e.events.map((ev) => h("li", {}, eventSentence(ev, names), eventDice(ev), explanation(ev, client.state?.system)))),
      ),
    ),
  );
  $("history-older").hidden = historyOldest === null;
}

/** The dice period's fingerprint in the top bar and the history's verify button, both opening /verify. */
function renderDiceProof(state) {
  const link = $("dice-proof");
  const proof = diceFingerprint(state);
  link.hidden = !proof;
  swap(link, proof ? [proof] : []);
  const verify = $("history-verify");
  verify.hidden = !pageToken;
  verify.textContent = t("VIGIL.Verify.button");
  if (pageToken) link.href = verify.href = verifyUrl(pageToken);
}

/** Dice faces carried by an event: DRYH pools, or plain faces of other games. */
function eventDice(ev) {
  const p = ev.params ?? {};
  if (p.dice && typeof p.dice === "object") return diceByPool(p.dice, p.dominant, names, p.adjustments);
  if (Array.isArray(p.faces)) {
    // DRYH coin spends name their pool (hope always improves discipline); other games' dice are plain.
    const pool = p.pool ?? (ev.code === "hope_improved" ? "discipline" : "plain");
    return h("span", { class: "dice small" }, p.faces.map((f) => die(client.state?.system, pool, f)));
  }
  return null;
}

// ---- ticking -------------------------------------------------------------------

function tickAll() {
  // While the server is away its clock is unknown: the reading stops (the
  // mode says so) instead of running on as if the table were live.
  if (client?.state && client.status !== "connected") {
    if ($("clock-mode").textContent !== "offline") $("clock-mode").textContent = "offline";
    return;
  }
  if (client?.state) {
    const now = client.gameNow();
    const text = formatGameTime(now);
    if ($("clock-now").textContent !== text) $("clock-now").textContent = text;
    tick(document.body, now);
  }
}

// ---- start ---------------------------------------------------------------------

async function main() {
  await loadCatalogue();
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
    client?.close();
    client = null;
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
