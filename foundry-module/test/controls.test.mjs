/**
 * The Vigil window (scripts/controls/panel.js): one form of the shared form
 * builder per command of the catalogue this user may send for the window's
 * character now (scripts/core/offers.js). Every body it sends is one the
 * protocol schema accepts; a player is offered only what
 * server/vigil/permissions.py lets a player send; the GM every command of
 * the game; state-dependent offers follow the state (an open roll to join, a
 * pending choice with the server's legal moves). Then a DRYH roll through
 * help → roll → despair → hope → resolve → choose against a real server,
 * driven through the window's forms.
 */
import { test, afterEach, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildPanel, carryInputs } from "../scripts/controls/panel.js";
import { ELSEWHERE } from "../scripts/controls/panel.js";
import { characterOffers, commandsOf, mayAct } from "../scripts/core/offers.js";
import { readForm } from "../scripts/core/forms.js";
import { CATALOGUE } from "../scripts/core/catalogue.js";
import { wantsButton } from "../scripts/controls/hud.js";
import { registerSettings, storeToken, MODULE_ID } from "../scripts/settings.js";
import { VigilConnection } from "../scripts/connection.js";
import { VigilClient } from "../scripts/core/client.js";
import { FakeUser, FakeNotifications, fakeGame, install, uninstall } from "./fakes/foundry.mjs";
import { FakeDocument } from "./fakes/dom.mjs";
import { assertValid } from "./support/schema.mjs";
import { VigilServer, haveVigil } from "./support/vigil-server.mjs";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
afterEach(() => uninstall());

const gm = new FakeUser({ id: "gm1", name: "Gamemaster", isGM: true });
const alice = new FakeUser({ id: "u-alice", name: "Alice" });

function browser(user) {
  const env = { game: fakeGame({ user, users: [gm, alice], activeGM: gm, lang }), ui: { notifications: new FakeNotifications() } };
  install(env);
  registerSettings();
  return env;
}

/** Which commands a player may send, read from the server's own table. */
const permissions = readFileSync(new URL("../../server/vigil/permissions.py", import.meta.url), "utf8");
const block = (name) => permissions.slice(permissions.indexOf(`${name}:`)).split(/\n[})]/)[0];
const PLAYER_OWN = Object.fromEntries([...block("PLAYER_OWN").matchAll(/"([\w.]+)": \(([^)]*)\)/g)]
  .map(([, tag, fields]) => [tag, [...fields.matchAll(/"(\w+)"/g)].map((m) => m[1])]));
const PLAYER_ANY = [...block("PLAYER_ANY").matchAll(/"([\w.]+)"/g)].map((m) => m[1]);

/** permissions.allowed() for a player bound to `own`. */
function playerMay(body, own) {
  if (PLAYER_ANY.includes(body.type)) return own.length > 0;
  const fields = PLAYER_OWN[body.type];
  if (!fields) return false;
  return fields.every((f) => own.includes(body[f] ?? (f === "who" ? body.char : undefined)));
}

/**
 * What the server's view says is legal (state.legal, server/vigil/moves.py)
 * when a test does not say: every move the catalogue marks `legal`, on
 * every character and the table, as the form's defaults (1). A test of
 * what depends on the state gives the state's own `legal`; what the real
 * server says in real states is tests/browser/test_legal_offers.py's and
 * the real-server test below.
 */
function everyMove(state) {
  const judged = commandsOf(CATALOGUE, state.system).filter((e) => e.legal);
  const chars = Object.fromEntries(Object.keys(state.characters).map((id) => [id, Object.fromEntries(judged.filter((e) => e.scope === "character").map((e) => [e.type, 1]))]));
  return { table: Object.fromEntries(judged.filter((e) => e.scope === "table").map((e) => [e.type, 1])), chars };
}

function fakeConnection(state, { role = "gm", own = [] } = {}) {
  if (!state.legal) state.legal = everyMove(state);
  return { state, sent: [], client: { role, ownCharacters: own, status: "connected" }, async send(body) { this.sent.push(body); return { result: null, rev: 1 }; } };
}

const valid = (body) => assertValid("out", { type: "cmd", id: "1", table: "t", body });
/** The commands the window offers, in its order. */
const ids = (root) => root.querySelectorAll("form").map((f) => f.getAttribute("data-command"));
const form = (root, tag) => root.querySelector(`form[data-command="${tag}"]`);
const field = (root, tag, name) => form(root, tag).querySelector(`[name="${name}"]`);
const options = (select) => select.children.map((o) => o.value).filter((v) => v !== "");
const submit = (root, tag) => form(root, tag).dispatchEvent({ type: "submit", preventDefault() {} });

/** Submit every form of the window, filling what a person must fill, and return the bodies sent. */
function submitAll(conn, root) {
  for (const i of root.querySelectorAll("input")) {
    if (i.value === "" && i.getAttribute("type") === "number") i.value = "1";
    if (i.value === "" && i.getAttribute("type") === "text") i.value = "k";
  }
  for (const s of root.querySelectorAll("select")) {
    if (s.value !== "" || s.getAttribute("required") === null) continue;
    s.value = options(s)[0] ?? "";
    s.dispatchEvent({ type: "change" }); // as a browser does when a person picks
  }
  const before = conn.sent.length;
  for (const tag of ids(root)) submit(root, tag);
  return conn.sent.slice(before);
}

const ch = (name, extra = {}) => ({ name, visibility: "full", actor_id: `act-${name}`, token_id: null, badges: [], countdowns: [], ...extra });
const tok = (name) => ({ id: `t-${name}`, actorId: `act-${name}` });

const dryh = ({ rolls = {}, options = { failure_consequences: false }, sheets = {} } = {}) => ({
  table: "t", system: "dryh", clock: { mode: "paused" },
  characters: {
    mina: ch("mina", { sheet: { discipline: 3, madness: 0, exhaustion: 0, fight: 0, flight: 0, ...sheets.mina } }),
    jack: ch("jack", { sheet: { discipline: 3, madness: 0, exhaustion: 0, fight: 0, flight: 0, ...sheets.jack } }),
  },
  game: { hope: 1, despair: 2, session: { number: 1, active: true }, rolls },
  options,
});
// `legal` is what server/vigil/rules/dryh/view.py legal_moves puts in the view.
const rolledRoll = {
  phase: "rolled", helpers: [], dice: { discipline: [1, 5], exhaustion: [], madness: [6], pain: [2], helpers: {} }, success: false, dominant: "madness", pending: {},
  legal: { failures: ["none"], choices: {} },
};

const mettle = () => ({
  table: "t", system: "mettle", clock: { mode: "paused" },
  characters: {
    brannoc: ch("brannoc", { sheet: { kits: { bandages: 2, empty: 0 }, injuries: [{ id: "i1", label: "Cut", penalty: 2 }] } }),
    ysolde: ch("ysolde", { badges: ["dying"], sheet: { kits: {}, injuries: [] } }),
  },
  game: {},
  options: {},
});

/** Pain & Mettle's legal moves as the server says them for mettle(): Ysolde
 * dying, Brannoc able with bandages left (MET-11), his injury to remove. */
function mettleLegal(state, { helpers = ["brannoc"] } = {}) {
  const legal = everyMove(state);
  delete legal.chars.brannoc["mettle.stabilize"];
  delete legal.chars.ysolde["mettle.injury_remove"];
  legal.chars.brannoc["mettle.injury_remove"] = [{ injury: "i1" }];
  const attempts = helpers.flatMap((helper) => ["survival", "ingenuity", "lore", "intuition"].map((discipline) => ({ helper, discipline, kit: "bandages" })));
  if (attempts.length) legal.chars.ysolde["mettle.stabilize"] = attempts;
  else delete legal.chars.ysolde["mettle.stabilize"];
  state.legal = legal;
  return state;
}

const hursagmu = () => ({
  table: "t", system: "hursagmu", clock: { mode: "paused" },
  characters: { gil: ch("gil", { sheet: { traits: { strength: { label: "Strength" } } } }), ur: ch("ur", { sheet: {} }) },
  game: {},
  options: {},
});

test("DRYH: help, leave, despair, failure consequence, pending choices — bodies match the schema", () => {
  browser(gm);
  const doc = new FakeDocument();
  // No roll yet: nothing to help in, spend on, resolve or choose.
  // As the server's view says (state.legal) with no roll open: no help, coin or choice.
  const noRoll = { ...dryh(), legal: { table: { "dryh.session_start": 1, "dryh.session_end": 1 }, chars: { mina: { "dryh.open": 1, "dryh.wake": 1 } } } };
  let conn = fakeConnection(noRoll);
  let root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  for (const tag of ["dryh.help", "dryh.despair_spend", "dryh.hope_improve", "dryh.resolve", "dryh.choose"]) assert.ok(!ids(root).includes(tag), tag);
  assert.ok(ids(root).includes("dryh.wake") && ids(root).includes("dryh.session_start") && !ids(root).includes("hursagmu.morning"));
  submitAll(conn, root).forEach(valid);
  assert.ok(conn.sent.some((b) => b.type === "dryh.session_start") && conn.sent.some((b) => b.type === "dryh.session_end"));
  assert.deepEqual(conn.sent.find((b) => b.type === "dryh.wake"), { type: "dryh.wake", char: "mina" });

  // Mina's roll is open: Jack may join it, then leave it.
  const openRoll = dryh({ rolls: { mina: { phase: "open", helpers: [], pending: {}, legal: { failures: [], choices: {} } } } });
  openRoll.legal = { table: {}, chars: { mina: { "dryh.help": [{ helper: "jack", leave: false }] } } };
  conn = fakeConnection(openRoll);
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.deepEqual(options(field(root, "dryh.help", "char")), ["mina"]);
  assert.deepEqual(options(field(root, "dryh.help", "helper")), ["jack"]);
  submit(root, "dryh.help");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.help", char: "mina", helper: "jack" });
  const joined = dryh({ rolls: { mina: { phase: "declared", helpers: ["jack"], pending: {}, legal: { failures: [], choices: {} } } } });
  joined.legal = { table: {}, chars: { mina: { "dryh.help": [{ helper: "jack", leave: true }] } } };
  conn = fakeConnection(joined);
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.equal(field(root, "dryh.help", "leave").checked, true, "already in a roll: the form leaves it");
  submit(root, "dryh.help");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.help", char: "mina", helper: "jack", leave: true });
  valid(conn.sent.at(-1));

  // Rolled and failed, madness dominant, failure consequences on: the server's legal failures.
  const failed = { ...rolledRoll, legal: { failures: ["none", "exhaustion"], choices: {} } };
  const spends = { "dryh.despair_spend": ["discipline", "exhaustion", "madness", "pain"].map((pool) => ({ pool })), "dryh.resolve": 1, "dryh.hope_improve": 1 };
  conn = fakeConnection({ ...dryh({ rolls: { mina: failed }, options: { failure_consequences: true } }), legal: { table: {}, chars: { mina: spends } } });
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(options(field(root, "dryh.despair_spend", "pool")), ["discipline", "exhaustion", "madness", "pain"]);
  field(root, "dryh.despair_spend", "pool").value = "pain";
  field(root, "dryh.despair_spend", "op").value = "remove";
  submit(root, "dryh.despair_spend");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.despair_spend", char: "mina", pool: "pain", op: "remove" });
  assert.deepEqual(options(field(root, "dryh.resolve", "failure")), ["none", "exhaustion"], "as legal_moves says (DRYH-21)");
  field(root, "dryh.resolve", "failure").value = "exhaustion";
  submit(root, "dryh.resolve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.resolve", char: "mina", failure: "exhaustion" });
  submit(root, "dryh.hope_improve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.hope_improve", char: "mina" });
  submitAll(conn, root).forEach(valid);
  // Only "none" is legal (the option off, or a success): no failure field, and resolve sends none.
  conn = fakeConnection({ ...dryh({ rolls: { mina: rolledRoll } }), legal: { table: {}, chars: { mina: spends } } });
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.equal(field(root, "dryh.resolve", "failure"), null);
  submit(root, "dryh.resolve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.resolve", char: "mina" });

  // Resolved: Mina owes a discipline choice, Jack (helper) a madness one; the legal moves are the server's.
  const resolved = dryh({
    rolls: { mina: { ...rolledRoll, phase: "resolved", helpers: ["jack"], pending: { mina: "discipline", jack: "madness" },
      legal: { failures: [], choices: { mina: ["uncheck_fight", "exhaustion_down", "nothing"], jack: ["check_fight", "check_flight"] } } } },
    sheets: { mina: { fight: 1, flight: 0, exhaustion: 2 } },
  });
  const choices = (who, list) => list.map((choice) => ({ who, choice }));
  resolved.legal = { table: {}, chars: { mina: { "dryh.choose": [...choices(null, ["uncheck_fight", "exhaustion_down", "nothing"]), ...choices("jack", ["check_fight", "check_flight"])] } } };
  conn = fakeConnection(resolved);
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["uncheck_fight", "exhaustion_down", "nothing"], "nothing to uncheck in Flight");
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["check_fight", "check_flight"]);
  field(root, "dryh.choose", "choice").value = "check_flight";
  submit(root, "dryh.choose");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.choose", char: "mina", who: "jack", choice: "check_flight" });
  submitAll(conn, root).forEach(valid);
  // No legal move left (the server lists none): nothing to choose is offered.
  resolved.legal.chars.mina["dryh.choose"] = choices(null, ["nothing"]);
  assert.ok(!ids(buildPanel(doc, { connection: fakeConnection(resolved), tokenDoc: tok("jack") })).includes("dryh.choose"));
});

test("Pain & Mettle: stabilize as helper, by fiat, kits, strenuous, effort, injuries — bodies match the schema", () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettleLegal(mettle()));
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  assert.deepEqual(options(field(root, "mettle.stabilize", "char")), ["ysolde"]);
  assert.deepEqual(options(field(root, "mettle.stabilize", "helper")), ["brannoc"]);
  assert.deepEqual(options(field(root, "mettle.stabilize", "kit")), ["bandages"], "only kits with uses left, as the server says");
  field(root, "mettle.stabilize", "kit").value = "bandages";
  submit(root, "mettle.stabilize");
  assert.equal(conn.sent.length, 0, "no discipline: nothing sent");
  assert.equal(field(root, "mettle.stabilize", "discipline").getAttribute("aria-invalid"), "true");
  field(root, "mettle.stabilize", "discipline").value = "lore";
  submit(root, "mettle.stabilize");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize", char: "ysolde", helper: "brannoc", discipline: "lore", kit: "bandages" }, "no TN: the table's stabilize_tn (MET-11)");
  field(root, "mettle.stabilize", "lot").value = "crit";
  field(root, "mettle.stabilize", "tn").value = "8";
  submit(root, "mettle.stabilize");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize", char: "ysolde", helper: "brannoc", discipline: "lore", kit: "bandages", tn: 8, lot: "crit" });
  field(root, "mettle.stabilize", "lot").value = "";
  field(root, "mettle.stabilize", "modifiers").value = "-2";
  submit(root, "mettle.stabilize");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize", char: "ysolde", helper: "brannoc", discipline: "lore", kit: "bandages", tn: 8, modifiers: -2 });

  field(root, "mettle.stabilize_by_fiat", "means").value = " herbs ";
  submit(root, "mettle.stabilize_by_fiat");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize_by_fiat", char: "brannoc", means: "herbs" });
  field(root, "mettle.strenuous", "reason").value = "faster_than_stride";
  submit(root, "mettle.strenuous");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.strenuous", char: "brannoc", reason: "faster_than_stride" });
  field(root, "mettle.effort", "effort").value = "4";
  submit(root, "mettle.effort");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.effort", char: "brannoc", effort: 4 });
  field(root, "mettle.injury_add", "label").value = "Broken arm";
  field(root, "mettle.injury_add", "penalty").value = "4";
  submit(root, "mettle.injury_add");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.injury_add", char: "brannoc", label: "Broken arm", penalty: 4 });
  assert.deepEqual(options(field(root, "mettle.injury_remove", "injury")), ["i1"]);
  field(root, "mettle.injury_remove", "injury").value = "i1";
  submit(root, "mettle.injury_remove");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.injury_remove", char: "brannoc", injury: "i1" });
  conn.sent.forEach(valid);
  submitAll(conn, root).forEach(valid);

  // Nobody dying, or no kit: no stabilize attempt offered; no injury: none to remove.
  const calm = mettle();
  calm.characters.ysolde.badges = ["dying", "stabilized"];
  mettleLegal(calm, { helpers: [] });
  assert.ok(!ids(buildPanel(doc, { connection: fakeConnection(calm), tokenDoc: tok("brannoc") })).includes("mettle.stabilize"));
  const dyingWindow = buildPanel(doc, { connection: fakeConnection(mettleLegal(mettle())), tokenDoc: tok("ysolde") });
  const ysolde = ids(dyingWindow);
  assert.ok(!ysolde.includes("mettle.injury_remove") && ysolde.includes("mettle.injury_add"));
  // The dying one's own window: it is stabilized, by another present character
  // (one with kit uses left first), never by itself.
  assert.equal(field(dyingWindow, "mettle.stabilize", "char").value, "ysolde");
  assert.equal(field(dyingWindow, "mettle.stabilize", "helper").value, "brannoc");
  assert.deepEqual(options(field(dyingWindow, "mettle.stabilize", "helper")), ["brannoc"]);
  assert.deepEqual(options(field(dyingWindow, "mettle.stabilize", "kit")), ["bandages"], "the helper's kits with uses left");
  const alone = mettle();
  alone.characters.brannoc.badges = ["unconscious"];
  mettleLegal(alone, { helpers: [] });
  assert.ok(!ids(buildPanel(doc, { connection: fakeConnection(alone), tokenDoc: tok("ysolde") })).includes("mettle.stabilize"), "nobody able to help");
});

test("Hursagmu: damage, fall, poison, heal, rest — bodies match the schema", () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(hursagmuLegal(hursagmu()));
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("gil") });
  field(root, "hursagmu.damage", "amount").value = "3";
  submit(root, "hursagmu.damage");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.damage", char: "gil", amount: 3 });
  field(root, "hursagmu.damage", "bonus").value = "2";
  submit(root, "hursagmu.damage");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.damage", char: "gil", amount: 3, bonus: 2 });
  // HUR-14: the GM declares the fall; breaking or taking it is the character's answer.
  field(root, "hursagmu.fall", "spaces").value = "2.5";
  submit(root, "hursagmu.fall");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.fall", char: "gil", spaces: 2.5 });
  assert.equal(form(root, "hursagmu.break_fall"), null, "no fall pending yet");
  // Spans of game time are typed in minutes (the unit shown first), sent in seconds.
  for (const [name, v] of [["damage", "1"], ["interval.amount", "1"], ["duration.amount", "10"]]) field(root, "hursagmu.poison", name).value = v;
  field(root, "hursagmu.poison", "kind").value = "drug";
  field(root, "hursagmu.poison", "name").value = "Lotus";
  submit(root, "hursagmu.poison");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.poison", char: "gil", damage: 1, interval: 60, duration: 600, kind: "drug", name: "Lotus" });
  assert.deepEqual(options(field(root, "hursagmu.heal", "healer")), ["ur"], "another character of the table (HUR-11)");
  field(root, "hursagmu.heal", "healer").value = "";
  field(root, "hursagmu.heal", "healer_level").value = "7";
  submit(root, "hursagmu.heal");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.heal", patient: "gil", healer_level: 7 });
  field(root, "hursagmu.heal", "healer_level").value = "";
  field(root, "hursagmu.heal", "healer").value = "ur";
  submit(root, "hursagmu.heal");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.heal", patient: "gil", healer: "ur" });
  submit(root, "hursagmu.rest");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.rest", char: "gil" });
  // The table's morning (every character, or one) is a table command.
  submit(root, "hursagmu.morning");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.morning" });
  conn.sent.forEach(valid);
  submitAll(conn, root).forEach(valid);
});

/** Hursagmu's legal moves as the server says them for hursagmu(): no fall
 * pending (HUR-14: none to break or take), Ur a healer for Gil (HUR-11);
 * with Gil's fall pending, his answers and what is done to him. */
function hursagmuLegal(state) {
  const legal = everyMove(state);
  const falling = (state.characters.gil.sheet.pending_fall ?? null) !== null;
  for (const id of Object.keys(legal.chars)) {
    const mine = legal.chars[id];
    if (!(falling && id === "gil")) {
      delete mine["hursagmu.break_fall"];
      delete mine["hursagmu.take_fall"];
    } else {
      for (const tag of ["hursagmu.rest", "hursagmu.trait_roll", "hursagmu.see_dim", "hursagmu.fall"]) delete mine[tag];
    }
  }
  legal.chars.gil["hursagmu.heal"] = [{ healer: "ur", healer_level: null }];
  legal.chars.ur["hursagmu.heal"] = [{ healer: "gil", healer_level: null }];
  state.legal = legal;
  return state;
}

/** States of each game in which every state-dependent offer of the window is made. */
const everyState = () => ({
  dryh: [
    [dryh(), "mina"],
    [dryh({ rolls: { mina: { phase: "open", helpers: [], pending: {}, legal: { failures: [], choices: {} } } } }), "jack"],
    [dryh({ rolls: { mina: rolledRoll } }), "mina"],
    [dryh({ rolls: { mina: { ...rolledRoll, phase: "resolved", pending: { mina: "madness" }, legal: { failures: [], choices: { mina: ["check_fight"] } } } } }), "mina"],
  ],
  mettle: [[mettleLegal(mettle()), "brannoc"]],
  hursagmu: [[hursagmuLegal(hursagmu()), "gil"], [(() => { const s = hursagmu(); s.characters.gil.sheet.pending_fall = 4; return hursagmuLegal(s); })(), "gil"]],
});

test("the window holds every command of the catalogue a GM or a player may send for a character", () => {
  browser(gm);
  const doc = new FakeDocument();
  for (const [system, cases] of Object.entries(everyState())) {
    for (const [role, ownOf] of [["gm", () => []], ["player", (me) => [me]]]) {
      const seen = new Set();
      for (const [state, me] of cases) {
        const root = buildPanel(doc, { connection: fakeConnection(state, { role, own: ownOf(me) }), tokenDoc: tok(me) });
        ids(root).forEach((tag) => seen.add(tag));
        // Words people read, never keys.
        assert.ok(!/VIGIL\./.test(root.text), `${system} ${role}: a raw key in ${root.text.match(/\S*VIGIL\.\S*/)?.[0]}`);
      }
      const wanted = commandsOf(CATALOGUE, system)
        .filter((e) => (role === "gm" ? e.senders.gm : e.senders.player && e.scope === "character"))
        .filter((e) => !ELSEWHERE.includes(e.type))
        .map((e) => e.type);
      assert.deepEqual(wanted.filter((tag) => !seen.has(tag)), [], `${system}, ${role}: missing from the window`);
    }
  }
});

test("players are offered exactly what permissions.py lets them send; the GM everything", () => {
  assert.ok(PLAYER_OWN["dryh.help"]?.[0] === "helper" && PLAYER_ANY.includes("dryh.hope_improve"), "parsed permissions.py");
  browser(alice);
  const doc = new FakeDocument();
  const open = { phase: "open", helpers: [], pending: {}, legal: { failures: [], choices: {} } };
  // What the server's view says is legal in each state (server/vigil/moves.py).
  const says = (state, chars) => ({ ...state, legal: { table: {}, chars } });
  const coins = { "dryh.hope_spend": [{ what: "exhaustion" }], "dryh.recover_discipline": 1 };
  const cases = [
    // In the catalogue's order of play: harm and healing, rolls and checks, conditions.
    [mettleLegal(mettle()), "brannoc", ["mettle.stabilize", "mettle.shake_off", "mettle.effort", "mettle.rest_start", "mettle.rest_stop", "mettle.strenuous"]],
    [hursagmuLegal(hursagmu()), "gil", ["hursagmu.rest"]],
    // HUR-14: while a declared fall waits, its character's player breaks or takes it.
    // Until then its own actions wait (the server refuses them: falling), the answers first.
    [(() => { const s = hursagmu(); s.characters.gil.sheet.pending_fall = 4; return hursagmuLegal(s); })(), "gil", ["hursagmu.break_fall", "hursagmu.take_fall"]],
    [says(dryh(), { jack: coins }), "jack", ["dryh.hope_spend", "dryh.recover_discipline"]],
    [says(dryh({ rolls: { mina: open } }), { mina: { "dryh.help": [{ helper: "jack", leave: false }] }, jack: coins }), "jack", ["dryh.help", "dryh.hope_spend", "dryh.recover_discipline"]],
    [says(dryh({ rolls: { jack: rolledRoll } }), { jack: { "dryh.hope_improve": 1, ...coins } }), "jack", ["dryh.hope_improve", "dryh.hope_spend", "dryh.recover_discipline"]],
    [says(dryh({ rolls: { mina: { ...rolledRoll, phase: "resolved", helpers: ["jack"], pending: { mina: "madness", jack: "madness" }, legal: { failures: [], choices: { mina: ["check_fight"], jack: ["check_fight", "check_flight"] } } } } }),
      { mina: { "dryh.choose": [{ who: "jack", choice: "check_fight" }, { who: "jack", choice: "check_flight" }] }, jack: coins }), "jack",
      ["dryh.choose", "dryh.hope_spend", "dryh.recover_discipline"]],
  ];
  for (const [state, me, expected] of cases) {
    const conn = fakeConnection(state, { role: "player", own: [me] });
    const root = buildPanel(doc, { connection: conn, tokenDoc: tok(me) });
    assert.deepEqual(ids(root), expected, `${state.system} as ${me}`);
    // A player never sees the GM's inputs (senders.player.gm_only): the stabilize TN is the table's.
    if (state.system === "mettle") assert.equal(field(root, "mettle.stabilize", "tn"), null);
    const sent = submitAll(conn, root);
    assert.ok(sent.length >= expected.length - 1, `${me}: the forms send (${sent.map((b) => b.type)})`);
    for (const body of sent) {
      valid(body);
      assert.ok(playerMay(body, [me]), `the server would refuse ${JSON.stringify(body)}`);
      assert.ok(mayAct(CATALOGUE.commands[body.type], { role: "player", own: [me] }, body));
    }
    // The GM sees all of it and more, on any character.
    const gmIds = ids(buildPanel(doc, { connection: fakeConnection(state), tokenDoc: tok(me) }));
    assert.ok(expected.every((id) => gmIds.includes(id)) && gmIds.length > expected.length);
  }
  // Another's character: only what any player may do (DRYH-09 hope), and a HUD button for it.
  const rolledMina = says(dryh({ rolls: { mina: rolledRoll } }), { mina: { "dryh.hope_improve": 1 }, jack: coins });
  const conn = fakeConnection(rolledMina, { role: "player", own: ["jack"] });
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(ids(root), ["dryh.hope_improve"]);
  submit(root, "dryh.hope_improve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.hope_improve", char: "mina" });
  assert.ok(playerMay(conn.sent.at(-1), ["jack"]));
  // Foundry opens no HUD on another's token for a player ([i12440]): the way
  // in is the window of the player's own token, which lists Mina's roll.
  assert.equal(wantsButton(conn, tok("mina")), false);
  assert.equal(wantsButton(conn, tok("jack")), true);
  const mine = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  const others = mine.querySelector("section.vigil-others");
  assert.ok(others, "Jack's window lists the rolls he may act on");
  assert.equal(others.querySelector("h5").textContent, "mina", "by the character's name");
  others.querySelector('form[data-command="dryh.hope_improve"]').dispatchEvent({ type: "submit", preventDefault() {} });
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.hope_improve", char: "mina" });
  const calm = buildPanel(doc, { connection: fakeConnection(says(dryh(), { jack: coins }), { role: "player", own: ["jack"] }), tokenDoc: tok("jack") });
  assert.equal(calm.querySelector("section.vigil-others"), null, "no roll to act on: no list");
  assert.deepEqual(characterOffers(CATALOGUE, rolledMina, "mina", { role: "player", own: [] }), [], "a player with no character");
  assert.deepEqual(characterOffers(CATALOGUE, rolledMina, "mina", { role: "spectator", own: ["mina"] }), []);
});

test("a rebuilt window keeps what the user typed and picked", () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettleLegal(mettle()));
  const old = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  field(old, "mettle.stabilize", "tn").value = "9";
  field(old, "mettle.stabilize", "discipline").value = "intuition";
  field(old, "mettle.pain", "amount").value = "5";
  const fresh = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  const focus = carryInputs(old, fresh, field(old, "mettle.stabilize", "tn"));
  assert.equal(field(fresh, "mettle.stabilize", "tn").value, "9");
  assert.equal(field(fresh, "mettle.stabilize", "discipline").value, "intuition");
  assert.equal(field(fresh, "mettle.pain", "amount").value, "5");
  assert.equal(focus, field(fresh, "mettle.stabilize", "tn"));
  // A pick whose value left the state falls back to what the state offers.
  field(old, "mettle.stabilize", "char").value = "gone";
  const again = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  carryInputs(old, again, null);
  assert.equal(field(again, "mettle.stabilize", "char").value, "ysolde");
});

// ---------------------------------------------------------------- real server

const skip = haveVigil ? false : "no .venv/bin/vigil (install the server first)";
let server = null;
after(async () => { await server?.dispose(); });

/** A module connection (the real VigilConnection) for one browser, connected. */
async function moduleConnection(env, url, token) {
  install(env);
  // The world's server URL, as the GM set it (a player may not write it).
  env.game.settings.values.set(`${MODULE_ID}.serverUrl`, url);
  await storeToken(token, { game: env.game });
  const conn = new VigilConnection({ document: null });
  const ready = new Promise((resolve) => conn.addEventListener("state", resolve, { once: true }));
  conn.start();
  await ready;
  conn.client.addEventListener("wire", (e) => assertValid(e.detail.dir, e.detail.msg));
  return conn;
}

/** Submit a window form as `env`'s user; resolve once the command's patch is in every connection's state. */
async function press(env, conn, tokenDoc, id, setup = () => {}, everyone = [conn]) {
  install(env);
  const sent = [];
  const spy = { client: conn.client, state: conn.state, send: (body) => { const p = conn.send(body); sent.push(p); return p; } };
  const root = buildPanel(new FakeDocument(), { connection: spy, tokenDoc });
  assert.ok(ids(root).includes(id), `${id} offered (offered: ${ids(root).join(", ")})`);
  setup(root);
  submit(root, id);
  assert.equal(sent.length, 1, `${id} sent (${form(root, id).text})`);
  const { rev } = await sent[0];
  const deadline = Date.now() + 10_000;
  while (everyone.some((c) => c.client.rev < rev)) {
    if (Date.now() > deadline) throw new Error(`no patch for ${id}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return root;
}

test("a DRYH roll through the window against a real server: help → roll → despair → hope → resolve → choose", { skip, timeout: 60_000 }, async () => {
  server = await new VigilServer().start();
  const op = new VigilClient({ url: server.wsUrl, token: server.operatorToken, clientName: "node-test" });
  await new Promise((resolve) => { op.addEventListener("welcome", resolve, { once: true }); op.connect(); });
  const created = (await op.send({ type: "table.create", system: "dryh", name: "Window", options: { manual_dice: true, failure_consequences: true } })).result;
  op.close();

  const gmEnv = browser(gm);
  const g = await moduleConnection(gmEnv, server.wsUrl, created.gm_token);
  for (const id of ["mina", "jack"]) await g.send({ type: "character.create", id, name: id, actor_id: `act-${id}` });
  const playerToken = (await g.send({ type: "token.mint", role: "player", chars: ["jack"] })).result.token;
  const playerEnv = browser(alice);
  const p = await moduleConnection(playerEnv, server.wsUrl, playerToken);
  assert.equal(p.client.role, "player");
  const both = [g, p];

  await press(gmEnv, g, null, "dryh.session_start", () => {}, both);
  assert.equal(g.state.game.despair, 2, "one per player character");
  await press(gmEnv, g, tok("mina"), "dryh.open", (root) => { field(root, "dryh.open", "pain").value = "2"; }, both);
  await press(playerEnv, p, tok("jack"), "dryh.help", (root) => { field(root, "dryh.help", "char").value = "mina"; }, both);
  assert.deepEqual(g.state.game.rolls.mina.helpers, ["jack"]);
  await press(gmEnv, g, tok("mina"), "dryh.declare", (root) => { field(root, "dryh.declare", "madness").value = "1"; }, both);
  // The window's roll body with the GM's manual faces (discipline 1 2 3,
  // madness 5, pain 4 4, Jack's 1 2 3): madness dominates, a success.
  install(gmEnv);
  const { body: roll } = readForm(form(buildPanel(new FakeDocument(), { connection: g, tokenDoc: tok("mina") }), "dryh.roll"));
  assert.deepEqual(roll, { type: "dryh.roll", char: "mina" });
  const { rev } = await g.send({ ...roll, faces: [1, 2, 3, 5, 4, 4, 1, 2, 3] });
  while (p.client.rev < rev || g.client.rev < rev) await new Promise((r) => setTimeout(r, 10));
  assert.equal(g.state.game.rolls.mina.dominant, "madness");

  await press(gmEnv, g, tok("mina"), "dryh.despair_spend", (root) => { field(root, "dryh.despair_spend", "pool").value = "madness"; }, both);
  assert.deepEqual(g.state.game.rolls.mina.dice.madness, [5, 6]);
  assert.equal(g.state.game.hope, 1, "the despair coin became hope");
  await press(playerEnv, p, tok("jack"), "dryh.hope_improve", () => {}, both); // DRYH-09 from Jack's own window
  assert.equal(g.state.game.hope, 0);
  await press(gmEnv, g, tok("mina"), "dryh.resolve", (root) => assert.equal(field(root, "dryh.resolve", "failure"), null, "a success: no failure consequence"), both);
  assert.deepEqual(g.state.game.rolls.mina.pending, { mina: "madness", jack: "madness" });

  await press(playerEnv, p, tok("jack"), "dryh.choose", (root) => {
    assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["check_fight", "check_flight"]);
    field(root, "dryh.choose", "choice").value = "check_fight";
  }, both);
  await press(gmEnv, g, tok("mina"), "dryh.choose", (root) => { field(root, "dryh.choose", "choice").value = "check_flight"; }, both);
  assert.deepEqual(g.state.game.rolls, {}, "every choice made: the roll closed");
  assert.equal(g.state.characters.jack.sheet.fight, 1);
  assert.equal(g.state.characters.mina.sheet.flight, 1);

  // A refusal is shown localized, by the module's existing errorText: a GM-only command from the player.
  install(playerEnv);
  const before = playerEnv.ui.notifications.messages.length;
  await assert.rejects(p.send({ type: "dryh.despair_spend", char: "jack", pool: "pain" }), (e) => e.code === "forbidden");
  assert.deepEqual(playerEnv.ui.notifications.messages.slice(before), [["warn", lang["VIGIL.Error.forbidden"]]]);
  g.stop();
  p.stop();
});
