/**
 * The module's Foundry-facing logic against fakes of Hooks, game, canvas,
 * Token and ui: settings scopes, active-GM-only duties (clock, combat,
 * chat), the token HUD button and window, status/notifications, and
 * delivering a player's token to that player only (v13 query; v12 sealed).
 */
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, SETTINGS, MODULE_ID, isActiveGM } from "../scripts/settings.js";
import { installSync, combatCommand } from "../scripts/sync.js";
import { installChat, installDiceColors, newlyRolled, rollCardHtml, dsnData, serverBase } from "../scripts/chat.js";
import { installHud, hudRoot } from "../scripts/controls/hud.js";
import { buildPanel, slugId, createCommand, linkCommand, openPanel, resetPanel } from "../scripts/controls/panel.js";
import { VigilConnection } from "../scripts/connection.js";
import { FakeHooks, FakeUser, FakeNotifications, FakeApplicationV2, fakeGame, install, uninstall, openTokenHUD, tokenHudHtml } from "./fakes/foundry.mjs";
import { FakeDocument } from "./fakes/dom.mjs";
import { ELSEWHERE } from "../scripts/controls/panel.js";
import { tableOffers } from "../scripts/core/offers.js";
import { CATALOGUE } from "../scripts/core/catalogue.js";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
const module = JSON.parse(readFileSync(new URL("../module.json", import.meta.url)));
afterEach(() => uninstall());

const gm = new FakeUser({ id: "gm1", name: "Gamemaster", isGM: true });
const gm2 = new FakeUser({ id: "gm2", name: "Assistant", isGM: true });
const alice = new FakeUser({ id: "u-alice", name: "Alice" });
const bob = new FakeUser({ id: "u-bob", name: "Bob" });

/** A browser: its own game/ui/Hooks, made current with install(). */
function browser(user, { activeGM = gm, socket = null, actors = [] } = {}) {
  const env = {
    Hooks: new FakeHooks(),
    game: fakeGame({ user, users: [gm, gm2, alice, bob], activeGM, lang, socket, actors }),
    ui: { notifications: new FakeNotifications() },
    CONFIG: {},
  };
  install(env);
  registerSettings();
  return env;
}

/** A VigilConnection stand-in recording sent commands. */
function fakeConnection(state, { role = "gm", own = [] } = {}) {
  const c = new EventTarget();
  c.state = state;
  c.sent = [];
  c.client = { role, ownCharacters: own, status: "connected" };
  c.send = async (body) => {
    c.sent.push(body);
    if (body.type === "token.mint") return { result: { token: `tok-for-${body.chars.join("+")}` }, rev: 1 };
    return { result: null, rev: 1 };
  };
  c.emitState = (s, changes = {}) => { c.state = s; c.dispatchEvent(new CustomEvent("state", { detail: { state: s, changes, rev: 1 } })); };
  return c;
}

const mettle = (clock = {}) => ({
  table: "demo", system: "mettle",
  clock: { mode: "follow", rate: 1, game: 0, wall: 0, in_combat: false, round: 0, ...clock },
  characters: {
    brannoc: { name: "Brannoc", visibility: "full", actor_id: "actB", token_id: null, badges: [], countdowns: [], sheet: { pain: 0 } },
    ysolde: { name: "Ysolde", visibility: "full", actor_id: "actY", token_id: null, badges: [], countdowns: [] },
  },
  game: {},
  // What the server's view says is legal for healthy Brannoc (server/vigil/moves.py):
  // not rattled (no shake-off), not resting (no rest to stop), not dying.
  legal: {
    table: { "combat.start": 1 },
    chars: { brannoc: { "mettle.pain": 1, "mettle.rattle": 1, "mettle.effort": 1, "mettle.injury_add": 1, "mettle.rest_start": 1, "mettle.strenuous": 1 } },
  },
});

test("module.json: id, compatibility, entry points, socket", () => {
  assert.equal(module.id, "vigil");
  assert.deepEqual(module.compatibility, { minimum: "12", verified: "13" });
  assert.deepEqual(module.esmodules, ["scripts/main.js"]);
  assert.deepEqual(module.styles, ["styles/vigil.css"]);
  assert.equal(module.languages[0].path, "lang/en.json");
  assert.equal(module.socket, true);
  // No placeholder: manifest and download are filled in by the Vigil
  // server that serves the module (/foundry/module.json).
  assert.ok(!JSON.stringify(module).includes("OWNER"));
  for (const key of ["manifest", "download", "url", "readme"]) assert.equal(module[key], undefined, key);
  // The module's own licence (the server serves it and ships it in the zip);
  // Dice So Nice recommended (PackageManifestData relationships.recommends).
  assert.equal(module.license, "LICENSE");
  assert.ok(readFileSync(new URL("../LICENSE", import.meta.url), "utf8").startsWith("MIT License"));
  assert.deepEqual(module.relationships.recommends.map((r) => [r.id, r.type]), [["dice-so-nice", "module"]]);
});

test("settings: server URL is a world setting, the token a client one", () => {
  const { game } = browser(gm);
  const spec = (k) => game.settings.specs.get(`${MODULE_ID}.${k}`);
  assert.equal(spec("serverUrl").scope, "world");
  assert.equal(spec("accessToken").scope, "client", "never a secret in a world setting");
  assert.equal(spec("overlays").scope, "client", "overlays switch per client");
  for (const { name, hint, config } of Object.values(SETTINGS)) if (config) assert.ok(lang[name] && lang[hint], name);
  assert.equal(spec("tokens").scope, "client");
  assert.equal(spec("keys").scope, "client");
});

test("only the active GM syncs world time, and only when the clock follows it", async () => {
  const env = browser(gm);
  const conn = fakeConnection(mettle());
  installSync(conn, env.Hooks);
  env.Hooks.callAll("updateWorldTime", 3600, 60, {}, "gm1");
  assert.deepEqual(conn.sent, [{ type: "clock.world", world_time: 3600 }]);
  conn.state = mettle({ mode: "paused" });
  env.Hooks.callAll("updateWorldTime", 3700, 100, {}, "gm1");
  assert.equal(conn.sent.length, 1, "not following: the world clock is not pushed");

  const other = browser(gm2); // a second GM, not the active one
  const conn2 = fakeConnection(mettle());
  installSync(conn2, other.Hooks);
  other.Hooks.callAll("updateWorldTime", 4000, 300, {}, "gm1");
  other.Hooks.callAll("updateCombat", { round: 1, active: true }, { round: 1 }, {}, "gm1");
  assert.deepEqual(conn2.sent, [], "two GMs never double an advance");
  assert.equal(isActiveGM(), false);
});

test("combat: start, next round, end from the combat tracker's updates", () => {
  assert.deepEqual(combatCommand({ in_combat: false, round: 0 }, { round: 1 }), { type: "combat.start" });
  assert.deepEqual(combatCommand({ in_combat: true, round: 1 }, { round: 2 }), { type: "combat.next_round" });
  assert.equal(combatCommand({ in_combat: true, round: 2 }, { round: 2 }), null);
  assert.equal(combatCommand({ in_combat: false }, { turn: 3 }), null, "turn changes alone do nothing");
  assert.equal(combatCommand({ in_combat: false }, { round: 0 }), null);

  const env = browser(gm);
  const conn = fakeConnection(mettle({ in_combat: true, round: 3 }));
  installSync(conn, env.Hooks);
  env.Hooks.callAll("updateCombat", { round: 4, active: true }, { round: 4 }, {}, "gm1");
  env.Hooks.callAll("deleteCombat", { started: true, active: true }, {}, "gm1");
  assert.deepEqual(conn.sent, [{ type: "combat.next_round" }, { type: "combat.end" }]);
});

test("combat: advancing an inactive encounter (updateCombat fires for every combat) moves nothing", () => {
  const env = browser(gm);
  const conn = fakeConnection(mettle({ in_combat: true, round: 3 }));
  installSync(conn, env.Hooks);
  env.Hooks.callAll("updateCombat", { round: 9, active: false, started: true }, { round: 9 }, {}, "gm1");
  env.Hooks.callAll("updateCombat", { round: 1, active: false, started: true }, { round: 1 }, {}, "gm1");
  assert.deepEqual(conn.sent, []);
  env.Hooks.callAll("updateCombat", { round: 4, active: true, started: true }, { round: 4 }, {}, "gm1");
  assert.deepEqual(conn.sent, [{ type: "combat.next_round" }]);
});

const dryhRolled = (visibility = "full") => ({
  table: "t", system: "dryh", clock: { mode: "paused" },
  characters: { mina: { name: "Mina", visibility, badges: [], countdowns: [] } },
  game: { rolls: { mina: { phase: "rolled", opened_at: 5, dice: { discipline: [1, 5], exhaustion: [], madness: [6], pain: [2], helpers: {} }, successes: 1, success: false, dominant: "madness" } } },
});
const dryhOpen = () => ({ ...dryhRolled(), game: { rolls: { mina: { phase: "open", opened_at: 5, dice: null } } } });

test("chat: the active GM posts one card per roll, with Dice So Nice showing the server's faces", async () => {
  const env = browser(gm);
  const posted = [];
  globalThis.ChatMessage = { create: async (data) => posted.push(data) };
  const shown = [];
  env.game.dice3d = { show: async (data, user, sync) => shown.push([data, user, sync]) };
  const conn = fakeConnection(dryhOpen());
  installChat(conn);
  conn.emitState(dryhOpen(), null); // snapshot: primes
  conn.emitState(dryhRolled());
  conn.emitState(dryhRolled()); // same roll again: no second card
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(posted.length, 1);
  assert.match(posted[0].content, /Mina rolls/);
  assert.match(posted[0].content, /Madness dominates/);
  assert.equal(posted[0].speaker.alias, "Mina");
  assert.deepEqual(shown[0][0].throws[0].dice.map((d) => d.result), [1, 5, 6, 2]);
  assert.equal(shown[0][1].id, gm.id);

  // Not the active GM → nothing; hidden characters never reach public chat.
  assert.equal(newlyRolled(dryhRolled("hidden"), new Map()).length, 0);
  browser(gm2);
  const conn2 = fakeConnection(dryhOpen());
  const before = posted.length;
  installChat(conn2);
  conn2.emitState(dryhOpen(), null);
  conn2.emitState(dryhRolled());
  assert.equal(posted.length, before);
});

test("chat card escapes names and marks successes", () => {
  browser(gm);
  const html = rollCardHtml("<b>x</b>", dryhRolled().game.rolls.mina);
  assert.ok(!html.includes("<b>x</b>"));
  // The pages' dice drawing (core/dice-view.js): a discipline 1 succeeds.
  assert.match(html, /class="die pool-discipline success"[^>]*><span class="die-face">1</);
  assert.equal(dsnData(dryhRolled().game.rolls.mina).throws[0].dice[0].type, "d6");
});

test("chat card shows the dice period's fingerprint, its title the whole commitment (docs/dice.md)", () => {
  browser(gm);
  const dice = { period: 2, commitment: "ab12cd34".padEnd(64, "0"), fingerprint: "ab12cd34" };
  const html = rollCardHtml("Mina", dryhRolled().game.rolls.mina, { dice });
  assert.match(html, /<p class="vigil-proof" title="[^"]*0000"[^>]*>[^<]*ab12cd34<\/p>/);
  assert.ok(!html.includes("{"), "every template filled");
  assert.ok(!rollCardHtml("Mina", dryhRolled().game.rolls.mina).includes("vigil-proof"));
});

test("the Vigil window offers the GM, and only the GM, the reveal of the dice seed (docs/dice.md)", () => {
  const offered = (role, own = []) => tableOffers(CATALOGUE, mettle(), { role, own }, { skip: ELSEWHERE }).map((o) => o.entry.type);
  assert.ok(offered("gm").includes("dice.reveal"));
  assert.ok(!offered("player", ["brannoc"]).includes("dice.reveal"));
});

test("chat card explains the roll with the server's numbers, the rule linked on the Vigil server", () => {
  browser(gm);
  const explain = {
    from_dice: 3, talent: "exhaustion_major", talent_adds: 7, successes: 10, degree: 3, success: true,
    dominance: { pool: "pain", strength: 6, rival: "discipline", rival_strength: 5, by: "strength" },
  };
  const base = serverBase("wss://vigil.example:8443/ws");
  assert.equal(base, "https://vigil.example:8443");
  const html = rollCardHtml("Mina", { ...dryhRolled().game.rolls.mina, explain }, { base });
  assert.match(html, /3 \(dice showing 1–3\) \+ 7 \(Major exhaustion talent\) = 10 successes against 3: success/);
  assert.match(html, /Pain dominates: its 6 beats Discipline&#39;s 5/);
  assert.match(html, /href="https:\/\/vigil.example:8443\/rules\/dryh#DRYH-07"/);
});

test("HUD: a Vigil button for the GM on any token, for a player on their own only", () => {
  const env = browser(gm);
  const doc = new FakeDocument();
  const { html, right } = tokenHudHtml(doc);
  const opened = [];
  const conn = fakeConnection(mettle());
  installHud(conn, env.Hooks, (c, tokenDoc) => opened.push(tokenDoc.id));
  const hud = { object: { document: { id: "t1", actorId: "actB" } } };
  env.Hooks.callAll("renderTokenHUD", hud, html, {}); // v13: HTMLElement
  const button = right.querySelector("[data-action=\"vigil\"]");
  assert.ok(button, "button added to the right column");
  assert.equal(button.title, "Vigil controls");
  button.click();
  assert.deepEqual(opened, ["t1"]);
  env.Hooks.callAll("renderTokenHUD", { object: { document: { id: "t9", actorId: "zzz" } } }, [html], {}); // v12: jQuery
  assert.equal(right.querySelectorAll("[data-action=\"vigil\"]").at(-1).title, "Link to Vigil");
  assert.equal(hudRoot([html]), html);

  // A player: Foundry opens the HUD only on tokens it owns ([i12440]).
  const penv = browser(alice);
  const phtml = doc.createElement("div");
  const pconn = fakeConnection(mettle(), { role: "player", own: ["brannoc"] });
  installHud(pconn, penv.Hooks, () => {});
  const owns = (ids) => (u, level) => level === "OWNER" && ids.includes(u.id);
  const ysolde = { id: "t2", actorId: "actY", testUserPermission: owns(["u-bob"]) };
  assert.equal(openTokenHUD(penv, ysolde, phtml), false, "no HUD on another's token");
  assert.equal(phtml.querySelector("[data-action=\"vigil\"]"), null);
  assert.equal(openTokenHUD(penv, { id: "t1", actorId: "actB", testUserPermission: owns(["u-alice"]) }, phtml), true);
  assert.ok(phtml.querySelector("[data-action=\"vigil\"]"));
});

test("window: GM commands for the character, clock/combat, and linking", async () => {
  browser(gm);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettle());
  const root = buildPanel(doc, { connection: conn, tokenDoc: { id: "t1", actorId: "actB" } });
  const submit = (tag) => root.querySelector(`form[data-command="${tag}"]`).dispatchEvent({ type: "submit", preventDefault() {} });
  root.querySelector("form[data-command=\"mettle.pain\"] [name=\"amount\"]").value = "1";
  submit("mettle.pain");
  submit("clock.follow");
  submit("mettle.rest_start");
  assert.deepEqual(conn.sent[0], { type: "mettle.pain", char: "brannoc", amount: 1 });
  assert.deepEqual(conn.sent[1], { type: "clock.follow", world_time: game.time.worldTime }, "Foundry's world time, prefilled");
  assert.deepEqual(conn.sent[2], { type: "mettle.rest_start", char: "brannoc" });
  assert.equal(root.querySelector("form[data-command=\"mettle.stabilize_by_fiat\"]"), null, "not dying: not offered");

  const unlinked = { id: "tok9", actorId: "act9", actorLink: false, name: "Ghoul", actor: { name: "Ghoul", hasPlayerOwner: false } };
  const r2 = buildPanel(doc, { connection: conn, tokenDoc: unlinked });
  r2.querySelector("[data-action=\"create\"]").click();
  assert.deepEqual(conn.sent.at(-1), { type: "character.create", id: "ghoul", name: "Ghoul", kind: "npc", actor_id: "act9", token_id: "tok9" });
  r2.querySelector("[data-action=\"link\"]").click();
  assert.deepEqual(conn.sent.at(-1), { type: "character.meta", char: "brannoc", actor_id: "act9", token_id: "tok9" });
  assert.equal(slugId("Brannoc", { brannoc: {} }), "brannoc_2");
  assert.equal(createCommand(mettle(), { id: "x", actorId: "a", actorLink: true }, { name: "Élise d'Or", hasPlayerOwner: true }).id, "elise_d_or");
  assert.equal(linkCommand("c", { id: "x", actorId: "a", actorLink: true }).token_id, null, "linked actor: every token of it");
});

test("window: a player gets only the actions the server allows on their own character", () => {
  browser(alice);
  const doc = new FakeDocument();
  const conn = fakeConnection(mettle(), { role: "player", own: ["brannoc"] });
  const root = buildPanel(doc, { connection: conn, tokenDoc: { id: "t1", actorId: "actB" } });
  const commands = (r) => r.querySelectorAll("form").map((f) => f.getAttribute("data-command"));
  assert.deepEqual(commands(root), ["mettle.effort", "mettle.rest_start", "mettle.strenuous"], "what the server says is legal now, of what a player may send");
  const other = buildPanel(doc, { connection: conn, tokenDoc: { id: "t2", actorId: "actY" } });
  assert.deepEqual(other.querySelectorAll("button"), []);
  const spectator = fakeConnection(mettle(), { role: "spectator", own: ["brannoc"] });
  assert.deepEqual(buildPanel(doc, { connection: spectator, tokenDoc: { id: "t1", actorId: "actB" } }).querySelectorAll("button"), []);
});

test("unreachable server: a warning once, a status pill, then 'back' — Foundry unaffected", () => {
  const env = browser(gm);
  const doc = new FakeDocument();
  const conn = new VigilConnection({ document: doc });
  conn._onStatus("connecting");
  conn._onStatus("reconnecting");
  conn._onStatus("reconnecting");
  const pill = doc.body.children[0];
  assert.equal(pill.dataset.status, "reconnecting");
  assert.equal(pill.textContent, "Vigil: server unreachable, retrying…");
  assert.equal(env.ui.notifications.messages.filter(([lvl]) => lvl === "warn").length, 1);
  conn._onStatus("connected");
  assert.equal(pill.textContent, "Vigil: connected");
  assert.deepEqual(env.ui.notifications.messages.at(-1), ["info", lang["VIGIL.Notify.Back"]]);
});

test("a GM without a server URL is told; without a token a player waits", () => {
  const env = browser(gm);
  const conn = new VigilConnection({ document: new FakeDocument(), WebSocketImpl: class { constructor() { throw new Error("no"); } } });
  assert.equal(conn.start(), null);
  assert.deepEqual(env.ui.notifications.messages, [["info", lang["VIGIL.Notify.NoUrl"]]]);
  browser(alice);
  globalThis.game.settings.values.set("vigil.serverUrl", "ws://x/ws");
  const doc = new FakeDocument();
  assert.equal(new VigilConnection({ document: doc }).start(), null);
  const pill = doc.body.children[0];
  assert.equal(pill.dataset.status, "waiting", "a player without a token waits for a GM; it has nothing to configure");
  assert.equal(pill.textContent, lang["VIGIL.Status.waiting"]);
});

test("the status pill stays clear of Foundry's Players list (bottom left)", () => {
  const css = readFileSync(new URL("../styles/vigil.css", import.meta.url), "utf8");
  const rule = /#vigil-status\s*\{([^}]*)\}/.exec(css)[1];
  assert.doesNotMatch(rule, /(^|[\s;])left\s*:/, "not pinned to the left edge, where the Players list is");
  assert.match(rule, /right\s*:/);
});

test("the window: opened twice from the HUD, one instance and one state listener", async () => {
  browser(gm);
  resetPanel();
  globalThis.document = new FakeDocument();
  globalThis.foundry = { applications: { api: { ApplicationV2: FakeApplicationV2 } } };
  const conn = fakeConnection(mettle());
  let listeners = 0;
  const add = conn.addEventListener.bind(conn);
  conn.addEventListener = (type, fn, o) => { if (type === "state") listeners += 1; add(type, fn, o); };
  try {
    const a = openPanel(conn, { id: "tokA", actorId: "actB", actorLink: true });
    const b = openPanel(conn, { id: "tokB", actorId: "actY", actorLink: true });
    assert.equal(a, b);
    assert.equal(b.tokenDoc.id, "tokB", "the window shows the token last opened");
    assert.equal(listeners, 1);
    await new Promise((r) => setTimeout(r, 5));
    const renders = b.renders;
    const changed = mettle();
    changed.characters.ysolde.name = "Ysolde the Grey";
    conn.emitState(changed);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(b.renders, renders + 1, "a patch that changes what the window shows re-renders it once");
    await b.close();
    conn.emitState(mettle());
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(b.renders, renders + 1, "a closed window is not re-rendered");
  } finally {
    resetPanel();
    delete globalThis.document;
  }
});

test("the window's title and heading name the character of the token it was last opened from", async () => {
  browser(gm);
  resetPanel();
  globalThis.document = new FakeDocument();
  globalThis.foundry = { applications: { api: { ApplicationV2: FakeApplicationV2 } } };
  const conn = fakeConnection(mettle());
  try {
    const win = openPanel(conn, { id: "tokA", actorId: "actB", actorLink: true });
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(win.frame.title, "Vigil — Brannoc");
    openPanel(conn, { id: "tokB", actorId: "actY", actorLink: true });
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(win.frame.title, "Vigil — Ysolde", "the frame's title follows the token (render({window: {title}}))");
    assert.equal(win.content.children[0].querySelector("h3.vigil-who").textContent, "Ysolde", "and the window names her inside");
  } finally {
    resetPanel();
    delete globalThis.document;
  }
});

test("the window: a patch elsewhere leaves it alone; an open list is never closed under the GM's hand", async () => {
  browser(gm);
  resetPanel();
  const doc = new FakeDocument();
  globalThis.document = doc;
  globalThis.foundry = { applications: { api: { ApplicationV2: FakeApplicationV2 } } };
  const conn = fakeConnection(mettle());
  const tick = () => new Promise((r) => setTimeout(r, 5));
  try {
    const win = openPanel(conn, { id: "tokA", actorId: "actB", actorLink: true });
    await tick();
    const renders = win.renders;
    // The clock's anchor moves (a patch the window does not show): no re-render.
    conn.emitState(mettle({ wall: 1234, game: 99 }));
    await tick();
    assert.equal(win.renders, renders, "nothing the window shows changed: not re-rendered");

    // The GM has a list open (a select focused) when a change comes: it waits.
    const content = win.content;
    content.children[0].querySelector("select").focus();
    const renamed = mettle();
    renamed.characters.brannoc.name = "Brannoc the Bold";
    conn.emitState(renamed);
    await tick();
    assert.equal(win.renders, renders, "held back while the list is open");
    doc.activeElement = null;
    content.dispatchEvent({ type: "focusout" });
    await tick();
    assert.equal(win.renders, renders + 1, "shown once the list closed");
    assert.equal(win.content.children[0].querySelector("h3.vigil-who").textContent, "Brannoc the Bold");
  } finally {
    resetPanel();
    delete globalThis.document;
  }
});

test("chat: a Dice So Nice rejection still posts the card, and rejects nothing unhandled", async () => {
  const env = browser(gm);
  const posted = [];
  globalThis.ChatMessage = { create: async (data) => posted.push(data) };
  env.game.dice3d = { show: async () => { throw new Error("no WebGL"); } };
  const warn = console.warn;
  console.warn = () => {};
  try {
    const conn = fakeConnection(dryhOpen());
    installChat(conn);
    conn.emitState(dryhOpen(), null);
    conn.emitState(dryhRolled());
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(posted.length, 1);
  } finally {
    console.warn = warn;
  }
});

test("notifications escape character names (a player may rename its actor to markup)", async () => {
  const env = browser(gm);
  const conn = new VigilConnection({ document: new FakeDocument() });
  const evil = "<img src=x onerror=alert(1)>";
  conn.client = {
    state: { characters: { mina: { name: evil } } },
    send: async () => { throw { code: "already_resting", params: { char: "mina" }, message: "no" }; },
  };
  await assert.rejects(conn.send({ type: "mettle.pain", char: "mina", amount: 1 }));
  const [[level, message]] = env.ui.notifications.messages;
  assert.equal(level, "warn");
  assert.ok(!message.includes("<img"), message);
  assert.ok(message.includes("&lt;img src=x onerror=alert(1)&gt;"), message);
});

/** Dice So Nice as its README describes it: `addColorset` registers a set;
 * a die naming a set it does not know is drawn with its "custom" set (the
 * built-in list has no "red" nor "blue"). Only the calls the module makes. */
function fakeDice3d() {
  const known = new Map([["custom", {}], ["white", {}], ["black", {}]]);
  return {
    known,
    addColorset: async (set) => { known.set(set.name, set); },
    drawnWith: (colorset) => (known.has(colorset) ? colorset : "custom"),
  };
}

test("Dice So Nice: each pool's dice keep their pool's colour (the module registers its colour sets)", () => {
  const env = browser(gm);
  installDiceColors(env.Hooks);
  const dice3d = fakeDice3d();
  env.Hooks.callAll("diceSoNiceReady", dice3d);
  const roll = dryhRolled().game.rolls.mina;
  const drawn = dsnData(roll).throws[0].dice.map((d) => dice3d.drawnWith(d.options.colorset));
  assert.ok(!drawn.includes("custom"), `every die drawn with a known set: ${drawn}`);
  assert.equal(dice3d.known.get(drawn[2]).background, "#c62828", "madness dice are red");
  assert.equal(dice3d.known.get(drawn[3]).background, "#1e5fbf", "pain dice are blue");
  assert.equal(dice3d.known.get(drawn[2]).description, "Madness");
});
