/**
 * The Vigil window's controls (scripts/controls/): each builds a command
 * body that the protocol schema accepts, offers a player only what
 * server/vigil/permissions.py lets a player send, and fits the state (a
 * pending choice offers only its kind's choices). Then a DRYH roll through
 * help → roll → despair → hope → resolve → choose against a real server,
 * driven through the window.
 */
import { test, afterEach, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildPanel, carryInputs } from "../scripts/controls/panel.js";
import { actionsFor, offeredFor, fieldsOf, optionsOf, TABLE_ACTIONS } from "../scripts/controls/actions.js";
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

function fakeConnection(state, { role = "gm", own = [] } = {}) {
  return { state, sent: [], client: { role, ownCharacters: own, status: "connected" }, async send(body) { this.sent.push(body); return { result: null, rev: 1 }; } };
}

const valid = (body) => assertValid("out", { type: "cmd", id: "1", table: "t", body });
const ids = (root) => root.querySelectorAll("button").map((b) => b.getAttribute("data-action"));
const form = (root, id) => root.querySelector(`[data-form="${id}"]`);
const field = (root, id, name) => form(root, id).querySelector(`[name="${name}"]`);
const options = (select) => select.querySelectorAll("option").map((o) => o.getAttribute("value"));
const click = (root, id) => root.querySelector(`[data-action="${id}"]`).click();

/** Click every control of the window, filling required fields, and return the bodies sent. */
function clickAll(conn, root) {
  for (const i of root.querySelectorAll("input")) {
    if (i.value === "" && i.getAttribute("type") === "number") i.value = "1";
    if (i.value === "" && i.getAttribute("type") === "text") i.value = "k";
  }
  const before = conn.sent.length;
  for (const b of root.querySelectorAll("button")) b.click();
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
const rolledRoll = { phase: "rolled", helpers: [], dice: { discipline: [1, 5], exhaustion: [], madness: [6], pain: [2], helpers: {} }, success: false, dominant: "madness", pending: {} };

const mettle = () => ({
  table: "t", system: "mettle", clock: { mode: "paused" },
  characters: {
    brannoc: ch("brannoc", { sheet: { kits: { bandages: 2, empty: 0 }, injuries: [{ id: "i1", label: "Cut", penalty: 2 }] } }),
    ysolde: ch("ysolde", { badges: ["dying"], sheet: { kits: {}, injuries: [] } }),
  },
  game: {},
  options: {},
});

const hursagmu = () => ({
  table: "t", system: "hursagmu", clock: { mode: "paused" },
  characters: { gil: ch("gil", { sheet: {} }), ur: ch("ur", { sheet: {} }) },
  game: {},
  options: {},
});

test("DRYH: help, leave, despair, failure consequence, pending choices — bodies match the schema", () => {
  browser(gm);
  const doc = new FakeDocument();
  // No roll yet: nothing to help in, spend on or choose.
  let conn = fakeConnection(dryh());
  let root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  for (const id of ["dryh.help", "dryh.help_leave", "dryh.despair_spend", "dryh.hope_improve", "dryh.choose"]) assert.ok(!ids(root).includes(id), id);
  assert.ok(ids(root).includes("dryh.wake") && ids(root).includes("dryh.session_start") && !ids(root).includes("hursagmu.morning_all"));
  clickAll(conn, root).forEach(valid);
  assert.deepEqual(conn.sent.find((b) => b.type === "dryh.resolve"), { type: "dryh.resolve", char: "mina" });
  assert.ok(conn.sent.some((b) => b.type === "dryh.session_start") && conn.sent.some((b) => b.type === "dryh.session_end"));

  // Mina's roll is open: Jack may join it, then leave it.
  conn = fakeConnection(dryh({ rolls: { mina: { phase: "open", helpers: [], pending: {} } } }));
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.deepEqual(options(field(root, "dryh.help", "owner")), ["mina"]);
  click(root, "dryh.help");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.help", char: "mina", helper: "jack", leave: false });
  conn = fakeConnection(dryh({ rolls: { mina: { phase: "declared", helpers: ["jack"], pending: {} } } }));
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.ok(!ids(root).includes("dryh.help"), "already in a roll");
  click(root, "dryh.help_leave");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.help", char: "mina", helper: "jack", leave: true });
  valid(conn.sent.at(-1));

  // Rolled and failed, madness dominant, failure consequences on.
  conn = fakeConnection(dryh({ rolls: { mina: rolledRoll }, options: { failure_consequences: true } }));
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(options(field(root, "dryh.despair_spend", "pool")), ["discipline", "exhaustion", "madness", "pain"]);
  field(root, "dryh.despair_spend", "pool").value = "pain";
  field(root, "dryh.despair_spend", "op").value = "remove";
  click(root, "dryh.despair_spend");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.despair_spend", char: "mina", pool: "pain", op: "remove" });
  assert.deepEqual(options(field(root, "dryh.resolve", "failure")), ["none", "exhaustion"], "madness dominated: no response checked (DRYH-21)");
  field(root, "dryh.resolve", "failure").value = "exhaustion";
  click(root, "dryh.resolve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.resolve", char: "mina", failure: "exhaustion" });
  click(root, "dryh.hope_improve");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.hope_improve", char: "mina" });
  clickAll(conn, root).forEach(valid);
  // The option off (or a success): no failure field.
  root = buildPanel(doc, { connection: fakeConnection(dryh({ rolls: { mina: rolledRoll } })), tokenDoc: tok("mina") });
  assert.equal(form(root, "dryh.resolve"), null);

  // Resolved: Mina owes a discipline choice, Jack (helper) a madness one.
  const resolved = dryh({
    rolls: { mina: { ...rolledRoll, phase: "resolved", helpers: ["jack"], pending: { mina: "discipline", jack: "madness" } } },
    sheets: { mina: { fight: 1, flight: 0, exhaustion: 2 } },
  });
  conn = fakeConnection(resolved);
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["uncheck_fight", "exhaustion_down", "nothing"], "nothing to uncheck in Flight");
  root = buildPanel(doc, { connection: conn, tokenDoc: tok("jack") });
  assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["check_fight", "check_flight"]);
  field(root, "dryh.choose", "choice").value = "check_flight";
  click(root, "dryh.choose");
  assert.deepEqual(conn.sent.at(-1), { type: "dryh.choose", char: "mina", who: "jack", choice: "check_flight" });
  clickAll(conn, root).forEach(valid);
});

test("Pain & Mettle: stabilize as helper, by fiat, kits, strenuous, effort, injuries — bodies match the schema", () => {
  const env = browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettle());
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  assert.deepEqual(options(field(root, "mettle.stabilize", "patient")), ["ysolde"]);
  assert.deepEqual(options(field(root, "mettle.stabilize", "kit")), ["bandages"], "only kits with uses left");
  click(root, "mettle.stabilize");
  assert.equal(conn.sent.length, 0, "no TN: nothing sent");
  assert.deepEqual(env.ui.notifications.messages.at(-1), ["warn", "Vigil: fill in “TN” first."]);
  assert.equal(field(root, "mettle.stabilize", "tn").getAttribute("aria-invalid"), "true");
  field(root, "mettle.stabilize", "tn").value = "8";
  field(root, "mettle.stabilize", "discipline").value = "lore";
  field(root, "mettle.stabilize", "lot").value = "crit";
  click(root, "mettle.stabilize");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize", char: "ysolde", helper: "brannoc", discipline: "lore", kit: "bandages", tn: 8, lot: "crit" });
  field(root, "mettle.stabilize", "lot").value = "auto";
  field(root, "mettle.stabilize", "modifiers").value = "-2";
  click(root, "mettle.stabilize");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize", char: "ysolde", helper: "brannoc", discipline: "lore", kit: "bandages", tn: 8, modifiers: -2 });

  field(root, "mettle.stabilize_by_fiat", "means").value = " herbs ";
  click(root, "mettle.stabilize_by_fiat");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.stabilize_by_fiat", char: "brannoc", means: "herbs" });
  field(root, "mettle.kit_set", "kit").value = "rope";
  field(root, "mettle.kit_set", "uses").value = "3";
  click(root, "mettle.kit_set");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.kit_set", char: "brannoc", kit: "rope", uses: 3 });
  field(root, "mettle.strenuous", "reason").value = "faster_than_stride";
  click(root, "mettle.strenuous");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.strenuous", char: "brannoc", reason: "faster_than_stride" });
  root.querySelector("[name=\"amount\"]").value = "4";
  click(root, "mettle.effort");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.effort", char: "brannoc", effort: 4 });
  field(root, "mettle.injury_add", "label").value = "Broken arm";
  click(root, "mettle.injury_add");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.injury_add", char: "brannoc", penalty: 4, label: "Broken arm" });
  assert.deepEqual(options(field(root, "mettle.injury_remove", "injury")), ["i1"]);
  click(root, "mettle.injury_remove");
  assert.deepEqual(conn.sent.at(-1), { type: "mettle.injury_remove", char: "brannoc", injury: "i1" });
  conn.sent.forEach(valid);
  clickAll(conn, root).forEach(valid);

  // Nobody dying, or no kit: no stabilize attempt offered.
  const calm = mettle();
  calm.characters.ysolde.badges = ["dying", "stabilized"];
  assert.ok(!ids(buildPanel(doc, { connection: fakeConnection(calm), tokenDoc: tok("brannoc") })).includes("mettle.stabilize"));
  assert.ok(!ids(buildPanel(doc, { connection: fakeConnection(mettle()), tokenDoc: tok("ysolde") })).includes("mettle.stabilize"));
});

test("Hursagmu: damage, fall, poison, morning, heal, rest — bodies match the schema", () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(hursagmu());
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("gil") });
  root.querySelector("[name=\"amount\"]").value = "3";
  click(root, "hursagmu.damage");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.damage", char: "gil", amount: 3 });
  field(root, "hursagmu.damage", "bonus").value = "2";
  click(root, "hursagmu.damage");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.damage", char: "gil", amount: 3, bonus: 2 });
  field(root, "hursagmu.fall", "spaces").value = "2.5";
  field(root, "hursagmu.fall", "athlete").checked = true;
  click(root, "hursagmu.fall");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.fall", char: "gil", spaces: 2.5, athlete: true });
  field(root, "hursagmu.poison", "kind").value = "drug";
  field(root, "hursagmu.poison", "name").value = "Lotus";
  click(root, "hursagmu.poison");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.poison", char: "gil", damage: 1, interval: 60, duration: 600, kind: "drug", name: "Lotus" });
  click(root, "hursagmu.morning");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.morning", char: "gil" });
  click(root, "hursagmu.morning_all");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.morning" });
  assert.deepEqual(options(field(root, "hursagmu.heal", "healer")), ["", "ur"]);
  field(root, "hursagmu.heal", "healer_level").value = "7";
  click(root, "hursagmu.heal");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.heal", patient: "gil", healer_level: 7 });
  field(root, "hursagmu.heal", "healer").value = "ur";
  click(root, "hursagmu.heal");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.heal", patient: "gil", healer: "ur" });
  click(root, "hursagmu.rest");
  assert.deepEqual(conn.sent.at(-1), { type: "hursagmu.rest", char: "gil" });
  conn.sent.forEach(valid);
  clickAll(conn, root).forEach(valid);
});

test("players are offered exactly what permissions.py lets them send; the GM everything", () => {
  assert.ok(PLAYER_OWN["dryh.help"]?.[0] === "helper" && PLAYER_ANY.includes("dryh.hope_improve"), "parsed permissions.py");
  browser(alice);
  const doc = new FakeDocument();
  const cases = [
    [mettle(), "brannoc", ["mettle.shake_off", "mettle.effort", "mettle.stabilize", "mettle.rest_start", "mettle.rest_stop", "mettle.strenuous"]],
    [hursagmu(), "gil", ["hursagmu.rest"]],
    [dryh(), "jack", ["dryh.declare", "dryh.exhaustion_up", "dryh.roll", "dryh.hope_spend", "dryh.recover_discipline"]],
    [dryh({ rolls: { mina: { phase: "open", helpers: [], pending: {} } } }), "jack",
      ["dryh.declare", "dryh.exhaustion_up", "dryh.help", "dryh.roll", "dryh.hope_spend", "dryh.recover_discipline"]],
    [dryh({ rolls: { jack: rolledRoll } }), "jack",
      ["dryh.declare", "dryh.exhaustion_up", "dryh.roll", "dryh.hope_improve", "dryh.hope_spend", "dryh.recover_discipline"]],
    [dryh({ rolls: { mina: { ...rolledRoll, phase: "resolved", helpers: ["jack"], pending: { mina: "madness", jack: "madness" } } } }), "jack",
      ["dryh.declare", "dryh.exhaustion_up", "dryh.roll", "dryh.choose", "dryh.hope_spend", "dryh.recover_discipline"]],
  ];
  for (const [state, me, expected] of cases) {
    const conn = fakeConnection(state, { role: "player", own: [me] });
    const root = buildPanel(doc, { connection: conn, tokenDoc: tok(me) });
    assert.deepEqual(ids(root), expected, `${state.system} as ${me}`);
    for (const body of clickAll(conn, root)) {
      valid(body);
      assert.ok(playerMay(body, [me]), `the server would refuse ${JSON.stringify(body)}`);
    }
    // The GM sees all of it and more, on any character.
    const gmIds = ids(buildPanel(doc, { connection: fakeConnection(state), tokenDoc: tok(me) }));
    assert.ok(expected.every((id) => gmIds.includes(id)) && gmIds.length > expected.length);
  }
  // Another's character: only what any player may do (DRYH-09 hope), and a HUD button for it.
  const rolledMina = dryh({ rolls: { mina: rolledRoll } });
  const conn = fakeConnection(rolledMina, { role: "player", own: ["jack"] });
  const root = buildPanel(doc, { connection: conn, tokenDoc: tok("mina") });
  assert.deepEqual(ids(root), ["dryh.hope_improve"]);
  click(root, "dryh.hope_improve");
  assert.ok(playerMay(conn.sent.at(-1), ["jack"]));
  assert.equal(wantsButton(conn, tok("mina")), true);
  assert.equal(wantsButton(fakeConnection(dryh(), { role: "player", own: ["jack"] }), tok("mina")), false);
  assert.deepEqual(offeredFor(rolledMina, "mina", { role: "player", ownCharacters: [] }), [], "a player with no character");
  assert.deepEqual(offeredFor(rolledMina, "mina", { role: "spectator", ownCharacters: ["mina"] }), []);
});

test("every label the controls build at run time is in en.json", () => {
  const ctx = { state: dryh({ options: { failure_consequences: true }, rolls: { x: { success: false } } }), char: "x", role: "gm", own: false };
  const keys = TABLE_ACTIONS.map((a) => `VIGIL.Action.${a.id}`);
  for (const system of ["dryh", "mettle", "hursagmu"]) {
    for (const a of actionsFor(system, { role: "gm" })) {
      keys.push(`VIGIL.Action.${a.id}`);
      for (const f of a.fields ?? []) {
        keys.push(`VIGIL.Field.${f.name}`);
        if (f.empty) keys.push(f.empty);
        keys.push(...optionsOf({ ...f, filter: null }, ctx).map(([, k]) => k));
      }
    }
  }
  assert.ok(keys.length > 100);
  assert.deepEqual(keys.filter((k) => typeof lang[k] !== "string"), []);
  assert.equal(fieldsOf(actionsFor("dryh", { role: "gm" }).find((a) => a.id === "dryh.resolve"), ctx).length, 1);
});

test("a rebuilt window keeps what the user typed and picked", () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettle());
  const old = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  field(old, "mettle.stabilize", "tn").value = "9";
  field(old, "mettle.stabilize", "discipline").value = "intuition";
  old.querySelector("[name=\"amount\"]").value = "5";
  const fresh = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  const focus = carryInputs(old, fresh, field(old, "mettle.stabilize", "tn"));
  assert.equal(field(fresh, "mettle.stabilize", "tn").value, "9");
  assert.equal(field(fresh, "mettle.stabilize", "discipline").value, "intuition");
  assert.equal(fresh.querySelector("[name=\"amount\"]").value, "5");
  assert.equal(focus, field(fresh, "mettle.stabilize", "tn"));
  // A pick whose value left the state falls back to what the state offers.
  field(old, "mettle.stabilize", "patient").value = "gone";
  const again = buildPanel(doc, { connection: conn, tokenDoc: tok("brannoc") });
  carryInputs(old, again, null);
  assert.equal(field(again, "mettle.stabilize", "patient").value, "ysolde");
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

/** Click a window control as `env`'s user; resolve once the command's patch is in every connection's state. */
async function press(env, conn, tokenDoc, id, setup = () => {}, everyone = [conn]) {
  install(env);
  const sent = [];
  const spy = { client: conn.client, state: conn.state, send: (body) => { const p = conn.send(body); sent.push(p); return p; } };
  const root = buildPanel(new FakeDocument(), { connection: spy, tokenDoc });
  assert.ok(ids(root).includes(id), `${id} offered (offered: ${ids(root).join(", ")})`);
  setup(root);
  click(root, id);
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
  await press(gmEnv, g, tok("mina"), "dryh.open", (root) => { root.querySelector("[name=\"amount\"]").value = "2"; }, both);
  await press(playerEnv, p, tok("jack"), "dryh.help", (root) => { field(root, "dryh.help", "owner").value = "mina"; }, both);
  assert.deepEqual(g.state.game.rolls.mina.helpers, ["jack"]);
  await press(gmEnv, g, tok("mina"), "dryh.declare", (root) => { root.querySelector("[name=\"amount\"]").value = "1"; }, both);
  // The window's roll body with the GM's manual faces (discipline 1 2 3,
  // madness 5, pain 4 4, Jack's 1 2 3): madness dominates, a success.
  install(gmEnv);
  const roll = actionsFor("dryh", { role: "gm" }).find((a) => a.id === "dryh.roll").body("mina");
  const { rev } = await g.send({ ...roll, faces: [1, 2, 3, 5, 4, 4, 1, 2, 3] });
  while (p.client.rev < rev || g.client.rev < rev) await new Promise((r) => setTimeout(r, 10));
  assert.equal(g.state.game.rolls.mina.dominant, "madness");

  await press(gmEnv, g, tok("mina"), "dryh.despair_spend", (root) => { field(root, "dryh.despair_spend", "pool").value = "madness"; }, both);
  assert.deepEqual(g.state.game.rolls.mina.dice.madness, [5, 6]);
  assert.equal(g.state.game.hope, 1, "the despair coin became hope");
  await press(playerEnv, p, tok("mina"), "dryh.hope_improve", () => {}, both);
  assert.equal(g.state.game.hope, 0);
  await press(gmEnv, g, tok("mina"), "dryh.resolve", (root) => assert.equal(form(root, "dryh.resolve"), null, "a success: no failure consequence"), both);
  assert.deepEqual(g.state.game.rolls.mina.pending, { mina: "madness", jack: "madness" });

  await press(playerEnv, p, tok("jack"), "dryh.choose", (root) => {
    assert.deepEqual(options(field(root, "dryh.choose", "choice")), ["check_fight", "check_flight"]);
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
