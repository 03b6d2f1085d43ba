/**
 * The table's face for its GM, a player or a spectator: the clock and
 * combat bar, the characters' cards (the GM's with their controls), undo
 * (named in words: what it takes back), the dice period's proof, and the
 * wiring of the GM's controls; it draws the roll panel, the forms and the
 * history from their modules, at most once per frame.
 */

import { CATALOGUE } from "/client/core/catalogue.js";
import { commandLabel } from "/client/core/fields.js";
import { diceFingerprint, formatGameTime, h, swap, t, trackEdits, verifyUrl, withLanguage } from "./common.js";
import { renderForms, slots } from "./acting.js";
import { historyChanged, loadOlderHistory } from "./history.js";
import { refreshTokens } from "./invites.js";
import { $, actorWords, charList, confirmButton, fillSelect, page, run, say, showLink } from "./page.js";
import { characterCard, tick } from "./render.js";
import { renderDryh } from "./roll-panel.js";

let built = null; // the system the GM view was built for

let renderQueued = false;
export function scheduleRender({ history = true } = {}) {
  if (history) historyChanged();
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

function selectedChar() {
  return $("act-char").value;
}

function buildGm(state) {
  built = state.system;
  const gm = page.client.role === "gm";
  document.body.dataset.system = state.system;
  $("gm").classList.toggle("readonly", !gm);
  for (const el of document.querySelectorAll(".gm-only")) el.hidden = !gm;
  $("actions").hidden = !(gm || page.client.role === "player");
  $("dryh-panel").hidden = state.system !== "dryh";
  trackEdits($("gm"));
  slots.clear();
  $("action-forms").replaceChildren();
  $("table-forms").replaceChildren();
}

export function wireGmControls() {
  $("clock-pause").addEventListener("click", () => run({ type: "clock.pause" }));
  $("clock-run").addEventListener("click", () => run({ type: "clock.run", rate: Number($("clock-rate").value) || 1 }));
  $("clock-advance").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const minutes = Number($("clock-minutes").value);
    if (!(minutes > 0)) return say(t("VIGIL.Page.minutesAboveZero"), "error");
    run({ type: "clock.set", to: page.client.gameNow() + minutes * 60 });
  });
  $("combat-start").addEventListener("click", () => run({ type: "combat.start" }));
  $("combat-next").addEventListener("click", () => run({ type: "combat.next_round" }));
  $("combat-end").addEventListener("click", () => run({ type: "combat.end" }));
  $("undo").addEventListener("click", async () => {
    const what = $("undo").dataset.what; // the patch that follows page.names the next one
    const ack = await run({ type: "undo" });
    if (ack) say(what ? t("VIGIL.Undo.done", { what }) : t("VIGIL.Undo.doneBare"));
  });
  $("act-char").addEventListener("change", () => renderTable());
  $("invite-player").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const chars = [...document.querySelectorAll("#invite-chars input:checked")].map((i) => i.value);
    if (!chars.length) return say(t("VIGIL.Page.tickCharacters"), "error");
    const label = $("invite-label").value.trim() || t("VIGIL.Page.playerOf", { names: chars.map((c) => page.names[c] ?? c).join(", ") });
    const ack = await run({ type: "token.mint", role: "player", chars, label });
    if (ack) {
      showLink($("invite-out"), ack.result.url, t("VIGIL.Page.playerLink", { label }), { keep: true });
      refreshTokens();
    }
  });
  $("spectator-label").value = t("VIGIL.Page.streamLabel");
  $("invite-spectator").addEventListener("click", async () => {
    const ack = await run({ type: "token.mint", role: "spectator", label: $("spectator-label").value.trim() || t("VIGIL.Page.streamLabel") });
    if (ack) {
      showLink($("invite-out"), withLanguage(ack.result.url), t("VIGIL.Page.spectatorLink"), { keep: true });
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
        const now = page.client.state?.game?.[coin] ?? 0;
        run({ type: "correct", char: null, field: coin, value: Math.max(0, now + delta) });
      });
    }
  }
}

export function renderTable() {
  const state = page.client?.state;
  if (!state) return;
  if (built !== state.system) buildGm(state);
  const gm = page.client.role === "gm";
  const player = page.client.role === "player";
  document.body.dataset.rev = String(page.client.rev); // drawn up to this rev (tests wait on it)
  // The rev whose legal moves are drawn (they follow the state: core/client.js followLegal).
  document.body.dataset.legalRev = String(page.client.legalRev);
  page.names = Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
  $("table-title").textContent = `${state.name} · ${t(`VIGIL.Game.${state.system}`)}`;
  $("table-title").title = $("table-title").textContent;
  document.title = `${state.name} — Vigil`;
  renderDiceProof(state);
  renderClock(state);
  if (gm) renderUndo(state);

  const chars = charList(state);
  const own = new Set(page.client.ownCharacters ?? []);
  // The GM acts on any character; a player on its own ones (that it sees).
  const actable = gm ? chars : chars.filter(([id]) => own.has(id));
  if (gm || player) fillSelect($("act-char"), actable);
  if (gm) fillSelect($("open-char"), chars);
  const selected = gm || player ? selectedChar() : null;
  const cards = Object.entries(state.characters).map(([id, ch]) => characterCard(state.system, id, ch, gm ? cardControls(id, ch, selected) : null));
  swap($("characters"), cards.length ? cards : h("p", { class: "muted" }, t("VIGIL.Page.noCharacters")));

  if (state.system === "dryh") renderDryh(state, gm);
  if (!gm && !player) return;

  const sel = state.characters[selected];
  $("act-title").textContent = sel ? t("VIGIL.Page.actOnName", { name: sel.name }) : t("VIGIL.Page.actOnSomeone");
  $("act-none").hidden = actable.length > 0;
  renderForms(state, selected);
  if (gm) {
    swap(
      $("invite-chars"),
      chars.map(([id, name]) => h("label", { class: "check" }, h("input", { type: "checkbox", value: id, dataset: { key: `invite:${id}` } }), ` ${name}`)),
    );
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
        "aria-label": t(selected === id ? "VIGIL.Page.actingOnName" : "VIGIL.Page.actOnName", { name: ch.name }),
        dataset: { key: `pick:${id}` },
        onclick: () => {
          $("act-char").value = id;
          renderTable();
          $("actions").scrollIntoView({ block: "nearest" });
        },
      },
      selected === id ? t("VIGIL.Page.actingOn") : t("VIGIL.Page.actOn"),
    ),
    h("label", { for: visId, class: "inline" }, t("VIGIL.Page.visible"), h("span", { class: "sr-only" }, ` (${ch.name})`)),
    h(
      "select",
      {
        id: visId,
        dataset: { key: visId },
        onchange: (ev) => run({ type: "character.meta", char: id, visibility: ev.target.value }),
      },
      ["full", "status", "hidden"].map((v) => h("option", { value: v, selected: ch.visibility === v }, t(`VIGIL.Choice.visibility.${v}`))),
    ),
    confirmButton(t("VIGIL.Page.removeName", { name: ch.name }), t("VIGIL.Page.remove"), () => run({ type: "character.remove", char: id }), `remove:${id}`, "character.remove"),
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
    title = [u.by ? t("VIGIL.Undo.by", { by: actorWords(u.by) }) : "", typeof u.at === "number" ? t("VIGIL.Undo.at", { time: formatGameTime(u.at) }) : ""].filter(Boolean).join(" ");
  }
  if (button.textContent !== text) button.textContent = text;
  button.disabled = !u;
  button.dataset.what = what;
  button.dataset.rev = u ? String(u.rev) : "";
  button.title = title ? t("VIGIL.Undo.titleWith", { detail: title }) : t("VIGIL.Undo.title");
}

/**
 * What an undo takes back, in page.names: a correction as what it set ("Hope
 * set to 3": the DRYH coin buttons are corrections), any other command by
 * its catalogue label and the character it is about ("Apply pain —
 * Ysolde").
 */
function undoWhat(u) {
  const who = u.char ? page.names[u.char] ?? u.name ?? null : null;
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
  $("clock-mode").textContent = c.mode === "running" ? t("VIGIL.Page.running", { rate: c.rate }) : t(`VIGIL.Page.clock.${c.mode}`);
  $("clock-mode").dataset.mode = c.mode;
  $("combat-state").textContent = c.in_combat ? t("VIGIL.Page.combatRound", { round: c.round }) : t("VIGIL.Page.noCombat");
}

/** The dice period's fingerprint in the top bar and the history's verify button, both opening /verify. */
function renderDiceProof(state) {
  const link = $("dice-proof");
  const proof = diceFingerprint(state);
  link.hidden = !proof;
  swap(link, proof ? [proof] : []);
  const verify = $("history-verify");
  verify.hidden = !page.token;
  verify.textContent = t("VIGIL.Verify.button");
  if (page.token) link.href = verify.href = verifyUrl(page.token);
}

export function tickAll() {
  // While the server is away its clock is unknown: the reading stops (the
  // mode says so) instead of running on as if the table were live.
  if (page.client?.state && page.client.status !== "connected") {
    const offline = t("VIGIL.Page.clock.offline");
    if ($("clock-mode").textContent !== offline) $("clock-mode").textContent = offline;
    return;
  }
  if (page.client?.state) {
    const now = page.client.gameNow();
    const text = formatGameTime(now);
    if ($("clock-now").textContent !== text) $("clock-now").textContent = text;
    tick(document.body, now);
  }
}
