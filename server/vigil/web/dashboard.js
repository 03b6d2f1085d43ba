/**
 * The GM dashboard: one page, three faces chosen by the token's role.
 *
 * - operator: the server's tables (list, create, archive, export, import,
 *   delete);
 * - gm: one table, live, with every command of its game, the DRYH roll
 *   panel, history, undo, corrections, visibility and invites;
 * - player / spectator: the same cards read-only (this page is for GMs; a
 *   stream should use /watch).
 *
 * All traffic goes through the shared client core (`VigilClient`), which
 * reconnects and resumes by itself; this file only draws its `state` and
 * turns clicks into commands. The client is exposed as `window.vigil` for
 * debugging and for the browser tests.
 */

import { VigilClient } from "/client/core/client.js";
import { CATALOGUE } from "/client/core/catalogue.js";
import { ACTIONS, TABLE_ACTIONS, actionForm, refreshDynamic } from "./actions.js";
import {
  STATUS_WORDS,
  errorSentence,
  eventSentence,
  formatGameTime,
  h,
  loadCatalogue,
  swap,
  takeToken,
  trackEdits,
  wsUrl,
} from "./common.js";
import { characterCard, diceByPool, die, phaseTrack, reading, tick } from "./render.js";

const TOKEN_KEY = "vigil.dashboard.token";
const $ = (id) => document.getElementById(id);

let client = null;
let names = {};
let built = null; // the system the GM view was built for
let historyEntries = new Map();
let historyOldest = null;
let historyTimer = null;

// ---- messages --------------------------------------------------------------

/** Show a sentence at the top of the page; errors stay until dismissed or 10 s. */
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
  setTimeout(() => note.remove(), tone === "error" ? 10000 : 5000);
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
  $("login").hidden = true;
  $("signout").hidden = false;
  client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-web" });
  window.vigil = client;
  client.addEventListener("status", (ev) => showStatus(ev.detail.status));
  client.addEventListener("welcome", (ev) => onWelcome(ev.detail));
  client.addEventListener("state", () => scheduleRender());
  client.addEventListener("refused", (ev) => {
    sessionStorage.removeItem(TOKEN_KEY);
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
      showLink($("created-link"), ack.result.url, `Table ${ack.result.table} created. Its GM link:`);
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
      if (ack.result?.url) showLink($("created-link"), ack.result.url, "Its GM link:");
      refreshTables();
    }
  });
  $("refresh-tables").addEventListener("click", refreshTables);
}

async function refreshTables() {
  const ack = await run({ type: "table.list" });
  if (!ack) return;
  const rows = ack.result.map((t) =>
    h(
      "tr",
      { dataset: { table: t.id } },
      h("td", {}, h("strong", {}, t.name), h("div", { class: "muted" }, t.id)),
      h("td", {}, t.system),
      h("td", { class: "num" }, String(t.characters)),
      h("td", { class: "num" }, String(t.rev)),
      h("td", {}, t.archived ? "archived" : "active"),
      h(
        "td",
        {},
        h(
        "div",
        { class: "row-actions" },
        h("button", { type: "button", class: "btn small", onclick: () => openAsGm(t) }, "GM link"),
        h("button", { type: "button", class: "btn small", onclick: () => exportTable(t.id) }, "Export"),
        h(
          "button",
          { type: "button", class: "btn small", onclick: async () => (await run({ type: "table.archive", archived: !t.archived }, { table: t.id })) && refreshTables() },
          t.archived ? "Unarchive" : "Archive",
        ),
        confirmButton(`Delete ${t.name}`, "Delete", async () => (await run({ type: "table.delete", table: t.id })) && refreshTables()),
        ),
      ),
    ),
  );
  swap($("tables-body"), rows.length ? rows : h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No tables yet.")));
}

async function openAsGm(t) {
  const ack = await run({ type: "token.mint", role: "gm", label: "dashboard" }, { table: t.id });
  if (ack) showLink($("created-link"), ack.result.url, `GM link for ${t.name}:`);
}

async function exportTable(tableId) {
  const ack = await run({ type: "table.export" }, { table: tableId });
  if (!ack) return;
  const blob = new Blob([JSON.stringify(ack.result, null, 2)], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `vigil-${tableId}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  say(`Exported ${tableId}.`);
}

/** A button that asks once more before it acts (no modal dialog: works by keyboard). */
function confirmButton(label, text, action, key = null) {
  const button = h("button", { type: "button", class: "btn small tone-danger", "aria-label": label, dataset: key ? { key } : {} }, text);
  let armed = false;
  button.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      button.textContent = "Sure?";
      button.classList.add("armed");
      setTimeout(() => {
        armed = false;
        button.textContent = text;
        button.classList.remove("armed");
      }, 4000);
      return;
    }
    action();
  });
  return button;
}

/** Put a link into a visible, selectable field with a Copy button. */
function showLink(container, url, caption) {
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
  container.replaceChildren(h("div", { class: "link-out" }, h("div", { class: "caption" }, caption), h("div", { class: "link-row" }, field, copy, copied)));
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
  $("dryh-panel").hidden = state.system !== "dryh";
  trackEdits($("gm"));
  if (!gm) return;

  const ctx = {
    char: selectedChar,
    send: (body) => run(body),
  };
  const forms = ACTIONS[state.system].map((spec) => actionForm(spec, ctx));
  $("action-forms").replaceChildren(...forms);
  $("table-actions").replaceChildren(
    ...TABLE_ACTIONS[state.system].map((spec) => h("button", { type: "button", class: "btn", onclick: () => run({ type: spec.type }) }, spec.label)),
  );
  $("new-sheet").value = { mettle: '{"mettle": 5}', dryh: '{"discipline": 3}', hursagmu: '{"traits": {"constitution": 10, "willpower": 10}}' }[state.system];
  $("revive-fields").placeholder = { mettle: '{"status": "unconscious", "pain": 5}', dryh: '{"status": "awake"}', hursagmu: '{"wounds": 5}' }[state.system];
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
    const ack = await run({ type: "undo" });
    if (ack) say("Undone.");
  });
  $("act-char").addEventListener("change", () => renderTable());
  $("notes-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if ((await run({ type: "character.meta", char: selectedChar(), notes: $("notes").value })) !== null) {
      delete $("notes").dataset.edited;
      say("Notes saved.");
    }
  });
  $("correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const target = $("correct-target").value;
    run({ type: "correct", char: target === "" ? null : target, field: $("correct-field").value.trim(), value: parseValue($("correct-value").value) });
  });
  $("revive-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    let fields;
    try {
      fields = JSON.parse($("revive-fields").value || "{}");
    } catch {
      return say("The revive fields must be JSON, e.g. {\"status\": \"unconscious\"}.", "error");
    }
    run({ type: "revive", char: $("revive-char").value, fields });
  });
  $("create-char").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let sheet;
    try {
      sheet = JSON.parse($("new-sheet").value || "{}");
    } catch {
      return say("The sheet must be JSON, e.g. {\"mettle\": 5}.", "error");
    }
    const body = { type: "character.create", id: $("new-char-id").value.trim(), name: $("new-char-name").value.trim(), kind: $("new-char-kind").value, sheet };
    if ($("new-char-vis").value) body.visibility = $("new-char-vis").value;
    if (await run(body)) {
      $("new-char-id").value = "";
      $("new-char-name").value = "";
      say(`${body.name} joins the table.`);
    }
  });
  $("invite-player").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const chars = [...document.querySelectorAll("#invite-chars input:checked")].map((i) => i.value);
    if (!chars.length) return say("Tick the characters this player plays.", "error");
    const label = $("invite-label").value.trim() || `${chars.map((c) => names[c] ?? c).join(", ")}'s player`;
    const ack = await run({ type: "token.mint", role: "player", chars, label });
    if (ack) {
      showLink($("invite-out"), ack.result.url, `Player link (${label}):`);
      refreshTokens();
    }
  });
  $("invite-spectator").addEventListener("click", async () => {
    const ack = await run({ type: "token.mint", role: "spectator", label: $("spectator-label").value.trim() || "stream" });
    if (ack) {
      showLink($("invite-out"), ack.result.url, "Spectator link (add &layout=overlay for OBS):");
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

/** A correction's value: JSON when it parses (numbers, true, null, lists), else the text. */
function parseValue(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function renderTable() {
  const state = client?.state;
  if (!state) return;
  if (built !== state.system) buildGm(state);
  const gm = client.role === "gm";
  document.body.dataset.rev = String(client.rev); // drawn up to this rev (tests wait on it)
  names = Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
  $("table-title").textContent = `${state.name} · ${{ mettle: "Pain & Mettle", dryh: "Don't Rest Your Head", hursagmu: "Hursagmu" }[state.system] ?? state.system}`;
  document.title = `${state.name} — Vigil`;
  renderClock(state);

  const chars = charList(state);
  if (gm) {
    for (const id of ["act-char", "open-char", "revive-char"]) fillSelect($(id), chars);
    fillSelect($("correct-target"), [["", "the table"], ...chars]);
  }
  const selected = gm ? selectedChar() : null;
  const cards = Object.entries(state.characters).map(([id, ch]) => characterCard(state.system, id, ch, gm ? cardControls(id, ch, selected) : null));
  swap($("characters"), cards.length ? cards : h("p", { class: "muted" }, "No characters yet."));

  if (state.system === "dryh") renderDryh(state, gm);
  if (!gm) return;

  const sel = state.characters[selected];
  $("act-title").textContent = sel ? `Act on ${sel.name}` : "Act on a character";
  const injuries = (sel?.sheet?.injuries ?? []).map((i) => [i.id, `${i.label || i.id} (−${i.penalty})`]);
  refreshDynamic($("action-forms"), chars, injuries);
  if (sel && !("edited" in $("notes").dataset)) $("notes").value = sel.notes ?? "";
  $("correct-fields").replaceChildren(...fieldPaths(state, $("correct-target").value).map((p) => h("option", { value: p })));
  swap(
    $("invite-chars"),
    chars.map(([id, name]) => h("label", { class: "check" }, h("input", { type: "checkbox", value: id, dataset: { key: `invite:${id}` } }), ` ${name}`)),
  );
}

function fillSelect(select, pairs) {
  const current = select.value;
  const same = select.options.length === pairs.length && pairs.every(([v, l], i) => select.options[i].value === v && select.options[i].text === l);
  if (!same) {
    select.replaceChildren(...pairs.map(([value, label]) => h("option", { value }, label)));
    if (pairs.some(([v]) => v === current)) select.value = current;
  }
}

/** Dotted field paths a correction can name, from the sheet (or the table's game fields). */
function fieldPaths(state, target) {
  const source = target === "" ? state.game : state.characters[target]?.sheet;
  const out = [];
  const walk = (obj, prefix) => {
    for (const [k, v] of Object.entries(obj ?? {})) {
      if (v && typeof v === "object" && !Array.isArray(v)) walk(v, `${prefix}${k}.`);
      else out.push(`${prefix}${k}`);
    }
  };
  walk(source, "");
  return out.filter((p) => !p.startsWith("rolls."));
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
        dataset: { key: `pick:${id}` },
        onclick: () => {
          $("act-char").value = id;
          renderTable();
          $("actions").scrollIntoView({ block: "nearest" });
        },
      },
      selected === id ? "Acting on" : "Act on",
    ),
    h("label", { for: visId, class: "inline" }, "Visible"),
    h(
      "select",
      {
        id: visId,
        dataset: { key: visId },
        onchange: (ev) => run({ type: "character.meta", char: id, visibility: ev.target.value }),
      },
      ["full", "status", "hidden"].map((v) => h("option", { value: v, selected: ch.visibility === v }, v)),
    ),
    confirmButton(`Remove ${ch.name}`, "Remove", () => run({ type: "character.remove", char: id }), `remove:${id}`),
  );
}

function renderClock(state) {
  const c = state.clock;
  $("clock-mode").textContent = c.mode === "running" ? `running ${c.rate}×` : c.mode;
  $("clock-mode").dataset.mode = c.mode;
  $("combat-state").textContent = c.in_combat ? `Combat · round ${c.round}` : "No combat";
}

// ---- DRYH ----------------------------------------------------------------------

/** DRYH-14/16/20: the moves of each kind of pending choice, from the server's catalogue. */
const PENDING_CHOICES = CATALOGUE.games.dryh.pending_choices;

function renderDryh(state, gm) {
  const g = state.game;
  $("hope").textContent = String(g.hope ?? 0);
  $("despair").textContent = String(g.despair ?? 0);
  $("session").textContent = g.session?.active ? `Session ${g.session.number}` : `No session (${g.session?.number ?? 0} played)`;
  const rolls = Object.entries(g.rolls ?? {});
  swap(
    $("rolls"),
    rolls.length ? rolls.map(([char, roll]) => rollBox(state, char, roll, gm)) : h("p", { class: "muted" }, "No open roll."),
  );
}

function rollBox(state, char, roll, gm) {
  const name = names[char] ?? char;
  const k = (s) => `${char}:${s}`;
  const d = roll.declaration;
  const controls = [];
  if (gm && (roll.phase === "open" || roll.phase === "declared")) {
    controls.push(
      h(
        "form",
        {
          class: "inline-form",
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
        h("select", { id: `decl-t-${char}`, name: "talent", dataset: { key: k("talent") } }, ["none", "exhaustion_minor", "exhaustion_major", "madness"].map((t) => h("option", { value: t, selected: d?.talent === t }, t))),
        h("button", { type: "submit", class: "btn", dataset: { key: k("declare") } }, "Declare"),
      ),
      h(
        "form",
        {
          class: "inline-form",
          onsubmit: (ev) => {
            ev.preventDefault();
            run({ type: "dryh.help", char, helper: ev.target.helper.value });
          },
        },
        h("label", { for: `help-${char}` }, "Helper"),
        h("select", { id: `help-${char}`, name: "helper", dataset: { key: k("helper") } }, Object.entries(state.characters).filter(([id]) => id !== char && !roll.helpers.includes(id)).map(([id, ch]) => h("option", { value: id }, ch.name))),
        h("button", { type: "submit", class: "btn", dataset: { key: k("help") } }, "Join as helper"),
        roll.helpers.map((hid) => h("button", { type: "button", class: "btn small", onclick: () => run({ type: "dryh.help", char, helper: hid, leave: true }) }, `${names[hid] ?? hid} leaves`)),
      ),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "btn primary big", dataset: { key: k("roll") }, onclick: () => run({ type: "dryh.roll", char }) }, `Roll for ${name}`),
        h("button", { type: "button", class: "btn", dataset: { key: k("cancel") }, onclick: () => run({ type: "dryh.cancel", char }) }, "Cancel roll"),
      ),
    );
  }
  if (gm && (roll.phase === "rolled" || roll.phase === "adjusted")) {
    controls.push(
      h(
        "form",
        {
          class: "inline-form",
          onsubmit: (ev) => {
            ev.preventDefault();
            run({ type: "dryh.despair_spend", char, pool: ev.target.pool.value, op: ev.target.op.value });
          },
        },
        h("label", { for: `dsp-pool-${char}` }, "Despair: pool"),
        h("select", { id: `dsp-pool-${char}`, name: "pool", dataset: { key: k("dpool") } }, ["pain", "discipline", "exhaustion", "madness"].map((p) => h("option", { value: p }, p))),
        h("label", { for: `dsp-op-${char}` }, "Change"),
        h("select", { id: `dsp-op-${char}`, name: "op", dataset: { key: k("dop") } }, h("option", { value: "add" }, "add a 6"), h("option", { value: "remove" }, "remove a 6")),
        h("button", { type: "submit", class: "btn tone-danger", dataset: { key: k("despair") } }, "Spend despair"),
      ),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "btn tone-good", dataset: { key: k("hope") }, onclick: () => run({ type: "dryh.hope_improve", char }) }, "Spend hope: add a 1 to discipline"),
      ),
      h(
        "form",
        {
          class: "inline-form",
          onsubmit: (ev) => {
            ev.preventDefault();
            run({ type: "dryh.resolve", char, failure: ev.target.failure.value });
          },
        },
        h("label", { for: `fail-${char}` }, "Failure consequence"),
        h("select", { id: `fail-${char}`, name: "failure", dataset: { key: k("failure") } }, ["none", "exhaustion", "fight", "flight"].map((f) => h("option", { value: f }, f))),
        h("button", { type: "submit", class: "btn primary big", dataset: { key: k("resolve") } }, "Resolve"),
      ),
    );
  }
  if (gm && roll.phase === "resolved") {
    for (const [who, kind] of Object.entries(roll.pending ?? {})) {
      const choices = PENDING_CHOICES[kind] ?? [];
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.choose", char, who, choice: ev.target.choice.value });
            },
          },
          h("label", { for: `choose-${char}-${who}` }, `${names[who] ?? who} chooses (${kind})`),
          h("select", { id: `choose-${char}-${who}`, name: "choice", dataset: { key: k(`choice-${who}`) } }, choices.map((c) => h("option", { value: c }, c.replace(/_/g, " ")))),
          h("button", { type: "submit", class: "btn primary", dataset: { key: k(`choose-${who}`) } }, "Choose"),
        ),
      );
    }
  }
  const decl = d
    ? `Declared: ${d.madness} madness dice${d.exhaustion_up ? ", exhaustion +1" : ""}${d.talent && d.talent !== "none" ? `, talent ${d.talent}` : ""}`
    : null;
  return h(
    "section",
    { class: `roll phase-${roll.phase}`, dataset: { roll: char, phase: roll.phase }, "aria-label": `${name}'s roll` },
    h("header", { class: "roll-head" }, h("h3", {}, `${name}'s roll`), h("span", { class: "muted" }, `${roll.pain} ${roll.kind} pain dice`), phaseTrack(roll.phase)),
    decl && roll.phase !== "open" ? h("p", { class: "muted" }, decl) : null,
    roll.helpers?.length ? h("p", { class: "muted" }, `Helpers: ${roll.helpers.map((x) => names[x] ?? x).join(", ")}`) : null,
    diceByPool(roll.dice, roll.dominant, names),
    reading(roll),
    controls,
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
              }),
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

function renderHistory() {
  const entries = [...historyEntries.values()].sort((a, b) => b.rev - a.rev);
  swap(
    $("history"),
    entries.map((e) =>
      h(
        "li",
        { class: `entry ${e.undone ? "undone" : ""}`, dataset: { rev: String(e.rev) } },
        h(
          "div",
          { class: "entry-head" },
          h("span", { class: "rev" }, `#${e.rev}`),
          h("time", { datetime: new Date(e.wall * 1000).toISOString() }, new Date(e.wall * 1000).toLocaleTimeString()),
          h("span", { class: "actor" }, actorName(e.actor)),
          h("span", { class: "muted" }, e.command?.type ?? e.kind),
          e.undone ? h("span", { class: "undone-tag" }, "undone") : null,
        ),
        h("ul", { class: "events" }, e.events.map((ev) => h("li", {}, eventSentence(ev, names), eventDice(ev)))),
      ),
    ),
  );
  $("history-older").hidden = historyOldest === null;
}

/** Dice faces carried by an event: DRYH pools, or plain faces of other games. */
function eventDice(ev) {
  const p = ev.params ?? {};
  if (p.dice && typeof p.dice === "object") return diceByPool(p.dice, p.dominant, names);
  if (Array.isArray(p.faces)) {
    // DRYH coin spends name their pool (hope always improves discipline); other games' dice are plain.
    const pool = p.pool ?? (ev.code === "hope_improved" ? "discipline" : "plain");
    return h("span", { class: "dice small" }, p.faces.map((f) => die(client.state?.system, pool, f)));
  }
  return null;
}

// ---- ticking -------------------------------------------------------------------

function tickAll() {
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
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });
  setInterval(tickAll, 250);
  const { token } = takeToken(TOKEN_KEY);
  if (token) start(token);
  else showLogin();
}

main();
