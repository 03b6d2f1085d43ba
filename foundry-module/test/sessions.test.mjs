/**
 * One user logged in twice (fakes/world.mjs [i9425]): exactly one browser
 * of the active GM does the GM's duties (sessions.js), whichever user has
 * two sessions, and published keys never flip-flop (token-delivery.js).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, storedToken, MODULE_ID } from "../scripts/settings.js";
import { TokenDelivery, deviceKeys } from "../scripts/token-delivery.js";
import { SessionElection, leader, hasGmDuties, STALE_MS } from "../scripts/sessions.js";
import { installChat } from "../scripts/chat.js";
import { FakeWorld, as } from "./fakes/world.mjs";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
const SERVER = "ws://vigil.test:8765/ws";
const USERS = [
  { id: "gm1", name: "Gamemaster", isGM: true },
  { id: "gm2", name: "Assistant", assistant: true },
  { id: "u-alice", name: "Alice" },
];
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(cond, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(5);
  }
}

/** A Vigil connection stand-in for a GM browser, with a server-like token store shared by both sessions. */
function gmConnection(records, sent) {
  const c = new EventTarget();
  c.status = "connected";
  c.state = { table: "demo", system: "mettle", clock: { mode: "paused" }, game: {}, characters: { brannoc: { name: "Brannoc", actor_id: "actB", token_id: null } } };
  c.send = async (body) => {
    sent.push(body);
    if (body.type === "token.mint") {
      const id = `t${records.length + 1}`;
      records.push({ token_id: id, role: body.role, chars: body.chars, label: body.label, revoked: false, expires: null });
      return { result: { token: `tok-${id}`, token_id: id } };
    }
    if (body.type === "token.list") return { result: structuredClone(records) };
    if (body.type === "token.revoke") { records.find((r) => r.token_id === body.token_id).revoked = true; return { result: null }; }
    return { result: null };
  };
  return c;
}

function world() {
  const actors = [{ id: "actB", testUserPermission: (u, level) => level === "OWNER" && u.id === "u-alice" }];
  const w = new FakeWorld({ users: USERS, lang, actors });
  const records = [];
  const sent = [];
  let clock = Date.now();
  const sessions = [];
  /** A browser logged in as `userId`, with its election and token delivery started. */
  const join = async (userId, origin = `http://device-${sessions.length}.test:30000`) => {
    const b = w.browser(userId, { version: 12, secure: false, origin });
    registerSettings(() => {}, b.game);
    clock += 1; // each session starts a moment after the one before
    const election = new SessionElection(b, { since: clock, settleMs: 20 }).start();
    const conn = userId.startsWith("gm") ? gmConnection(records, sent) : Object.assign(new EventTarget(), { state: null, status: "idle", start() {} });
    const delivery = new TokenDelivery(conn, b, { election });
    delivery.registerQueries();
    await delivery.start();
    const s = { b, election, delivery, conn };
    sessions.push(s);
    return s;
  };
  const stop = () => sessions.forEach((s) => { s.delivery.stop(); s.election.stop(); });
  return { w, join, records, sent, stop };
}

test("leader: the session that started first, ties by id; the same for every session", () => {
  assert.equal(leader([{ session: "b", since: 5 }, { session: "a", since: 7 }]), "b");
  assert.equal(leader([{ session: "z", since: 5 }, { session: "c", since: 5 }]), "c");
  assert.equal(leader([{ session: "c", since: 5 }, { session: "z", since: 5 }]), "c", "order of hearing does not matter");
  assert.equal(leader([]), null);
});

test("the GM logged in twice: exactly one session does the duties, a newcomer never takes them, the next takes over when the first leaves", async () => {
  const t = world();
  try {
    const first = await t.join("gm1");
    await first.b.game.settings.set(MODULE_ID, "serverUrl", SERVER);
    await pause(40);
    assert.equal(hasGmDuties(first.b.game, first.election), true, "alone, it leads");
    const second = await t.join("gm1");
    await pause(40);
    const duty = () => [first, second].map((s) => hasGmDuties(s.b.game, s.election));
    assert.deepEqual(duty(), [true, false], "the older session keeps the duties");

    // Both sessions see the same roll: one card only.
    const posted = [];
    for (const s of [first, second]) {
      await as(s.b, async () => {
        globalThis.ChatMessage = { create: async (data) => posted.push(data) };
        const conn = new EventTarget();
        installChat(conn, s.election);
        const open = { system: "dryh", characters: { mina: { name: "Mina", visibility: "full" } }, game: { rolls: { mina: { phase: "open", opened_at: 1, dice: null } } } };
        conn.dispatchEvent(new CustomEvent("state", { detail: { state: open } }));
        conn.dispatchEvent(new CustomEvent("state", { detail: { state: { ...open, game: { rolls: { mina: { phase: "rolled", opened_at: 1, dice: { discipline: [1], exhaustion: [], madness: [], pain: [] }, successes: 1 } } } } } }));
      });
    }
    await pause(10);
    assert.equal(posted.length, 1, "one roll card, not one per session");
    delete globalThis.ChatMessage;

    // Alice asks: one session answers, one token is minted.
    const alice = await t.join("u-alice");
    await until(() => storedToken(alice.b.game), "Alice's token");
    await pause(40);
    assert.equal(t.sent.filter((b) => b.type === "token.mint").length, 1, "one mint, not one per GM session");
    assert.equal(t.records.filter((r) => !r.revoked).length, 1, "nobody revokes the other session's token");

    // Each GM session's keys stay in their own flag key: no flip-flop.
    const gmUser = alice.b.game.users.get("gm1");
    assert.equal(deviceKeys(gmUser).length, 2, "both GM devices published, neither overwrote the other");

    // The first session closes: the second takes over.
    first.election.stop();
    t.w.leave(first.b);
    await pause(20);
    assert.equal(hasGmDuties(second.b.game, second.election), true, "the next oldest leads once the first said bye");
  } finally { t.stop(); }
});

test("announcements from another user's session are ignored (the socket names the sender)", async () => {
  const t = world();
  try {
    const gm = await t.join("gm1");
    await pause(40);
    gm.election.onMessage({ kind: "session", session: "0000", since: 0, hello: true }, "u-alice");
    assert.equal(gm.election.leads(), true, "a player cannot pose as an older session of the GM");
    gm.election.onMessage({ kind: "session", session: "0000", since: 0, hello: true }, "gm1");
    assert.equal(gm.election.leads(), false, "an older session of the same user does lead");
  } finally { t.stop(); }
});

test("a player on two devices gets its token on both (one box per published device)", async () => {
  const t = world();
  try {
    const gm = await t.join("gm1");
    await gm.b.game.settings.set(MODULE_ID, "serverUrl", SERVER);
    await pause(40);
    const phone = await t.join("u-alice", "http://phone.test:30000");
    const laptop = await t.join("u-alice", "http://laptop.test:30000");
    await until(() => storedToken(phone.b.game) && storedToken(laptop.b.game), "both devices' tokens");
    assert.equal(storedToken(phone.b.game), storedToken(laptop.b.game), "the same live token");
    assert.equal(deviceKeys(gm.b.game.users.get("u-alice")).length, 2);
  } finally { t.stop(); }
});

test("activeGM is the full Gamemaster over an Assistant, and an Assistant may not write world settings", async () => {
  const w = new FakeWorld({ users: USERS, lang });
  const asst = w.browser("gm2");
  registerSettings(() => {}, asst.game);
  assert.equal(asst.game.users.activeGM.id, "gm2", "an Assistant alone is the active GM");
  await assert.rejects(asst.game.settings.set(MODULE_ID, "serverUrl", SERVER), /only a GM/);
  const full = w.browser("gm1");
  registerSettings(() => {}, full.game);
  assert.equal(asst.game.users.activeGM.id, "gm1", "a full GM is preferred once present");
});

test("a session that falls silent (a crashed tab) is forgotten after STALE_MS; a newcomer leads nothing before it settles", () => {
  let now = 1_000_000;
  const sent = [];
  const env = { game: { user: { id: "gm1", isGM: true }, users: {}, socket: { on() {}, emit: (_e, m) => sent.push(m) } } };
  const e = new SessionElection(env, { now: () => now, since: now, session: "bbb", settleMs: 60_000 });
  e.start();
  assert.equal(e.leads(), false, "not settled: it may not have heard an older session yet");
  assert.equal(sent[0].hello, true, "it announced itself, asking the others to answer");
  e.settled = true;
  e.onMessage({ kind: "session", session: "aaa", since: now - 5000 }, "gm1");
  assert.equal(e.leads(), false, "an older session of the same user leads");
  now += STALE_MS - 1;
  assert.equal(e.leads(), false, "a throttled background tab keeps its lead for a while");
  now += 2;
  assert.equal(e.leads(), true, "silent for STALE_MS: forgotten, the next takes over");
  e.stop();
  assert.equal(sent.at(-1).bye, true);
});
