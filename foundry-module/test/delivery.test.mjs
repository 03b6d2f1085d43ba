/**
 * Player token delivery (token-delivery.js, sealed.js) between browsers of
 * a fake world (fakes/world.mjs) on v12 and v13, in insecure contexts (no
 * crypto.subtle anywhere in this file), against a player posing as another,
 * replaying, or planting a box.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, storedToken, storedEntry, MODULE_ID } from "../scripts/settings.js";
import { TokenDelivery, QUERY_DELIVER, QUERY_REQUEST, SOCKET, tokenLabel, deviceKeys } from "../scripts/token-delivery.js";
import { seal, open, verify, newSecrets, publicKeys } from "../scripts/sealed.js";
import { FakeWorld } from "./fakes/world.mjs";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
const SERVER = "ws://vigil.test:8765/ws";

// Every browser of this file is on an insecure origin: only getRandomValues.
let savedCrypto;
before(() => {
  savedCrypto = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  const insecure = { getRandomValues: (a) => savedCrypto.get?.call(globalThis)?.getRandomValues(a) ?? savedCrypto.value.getRandomValues(a) };
  Object.defineProperty(globalThis, "crypto", { value: insecure, configurable: true, writable: true });
});
after(() => Object.defineProperty(globalThis, "crypto", savedCrypto));

async function until(cond, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const USERS = [
  { id: "gm1", name: "Gamemaster", isGM: true },
  { id: "gm2", name: "Assistant", isGM: true },
  { id: "u-alice", name: "Alice" },
  { id: "u-bob", name: "Bob" },
];

/** Actors whose ownership the test can change (Alice owns Brannoc, Bob Ysolde). */
function actors() {
  const owners = { actB: new Set(["u-alice"]), actY: new Set(["u-bob"]) };
  const list = Object.keys(owners).map((id) => ({ id, testUserPermission: (u, level) => level === "OWNER" && owners[id].has(u.id) }));
  return { list, owners };
}

const state = () => ({
  table: "demo", system: "mettle", clock: { mode: "paused" }, game: {},
  characters: {
    brannoc: { name: "Brannoc", actor_id: "actB", token_id: null },
    ysolde: { name: "Ysolde", actor_id: "actY", token_id: null },
  },
});

/** A stand-in for the GM's Vigil connection: a token store like the server's. */
function gmConnection() {
  const c = new EventTarget();
  c.state = state();
  c.status = "connected";
  c.records = [];
  c.sent = [];
  c.send = async (body) => {
    c.sent.push(body);
    if (body.type === "token.mint") {
      const id = `t${c.records.length + 1}`;
      c.records.push({ token_id: id, role: body.role, chars: body.chars, label: body.label, revoked: false });
      return { result: { token: `tok-${id}-${body.chars.join("+")}`, token_id: id } };
    }
    if (body.type === "token.list") return { result: structuredClone(c.records) };
    if (body.type === "token.revoke") { c.records.find((r) => r.token_id === body.token_id).revoked = true; return { result: null }; }
    throw new Error(`unexpected ${body.type}`);
  };
  return c;
}

const playerConnection = () => Object.assign(new EventTarget(), { state: null, status: "idle", starts: 0, start() { this.starts += 1; } });

/** A world with the GM logged in and the server URL set; `join` adds players. */
async function table(version, { playersMayQuery = true } = {}) {
  const { list, owners } = actors();
  const world = new FakeWorld({ users: USERS, lang, actors: list, playersMayQuery });
  const browsers = {};
  const delivery = {};
  const conns = {};
  const join = async (userId, origin) => {
    const b = world.browser(userId, { version, secure: false, origin });
    registerSettings(() => {}, b.game);
    const conn = userId.startsWith("gm") ? gmConnection() : playerConnection();
    const d = new TokenDelivery(conn, b, { onToken: () => conn.start() });
    d.registerQueries();
    browsers[userId] = b; delivery[userId] = d; conns[userId] = conn;
    return d;
  };
  await (await join("gm1")).start();
  await browsers.gm1.game.settings.set(MODULE_ID, "serverUrl", SERVER);
  const stop = () => Object.values(delivery).forEach((d) => d.stop());
  return { world, browsers, delivery, conns, join, owners, stop };
}

const tokenOf = (t, id) => storedToken(t.browsers[id].game);

for (const version of [12, 13]) {
  test(`v${version}: each player receives its own token, sealed; nobody else can open it`, async () => {
    const t = await table(version);
    try {
      await (await t.join("u-alice")).start();
      await (await t.join("u-bob")).start();
      await until(() => tokenOf(t, "u-alice") && tokenOf(t, "u-bob"), "both tokens");
      assert.match(tokenOf(t, "u-alice"), /^tok-t\d-brannoc$/);
      assert.match(tokenOf(t, "u-bob"), /^tok-t\d-ysolde$/);
      assert.equal(storedToken(t.browsers.gm1.game), "", "the GM keeps no player's token");
      assert.equal(t.conns["u-alice"].starts, 1, "the player connects once its token is in");
      assert.deepEqual(t.browsers["u-alice"].ui.notifications.messages.at(-1), ["info", lang["VIGIL.Notify.TokenReceived"]]);
      const wire = JSON.stringify(t.world.socketLog);
      assert.ok(!wire.includes("tok-t"), "no token in clear on the module socket");
      if (version === 12) assert.ok(t.world.socketLog.some((m) => m.event === SOCKET && m.data.kind === "token-delivery"));
      // Keys are published in each user's own flag, the same for every client.
      const flag = deviceKeys(t.browsers.gm1.game.users.get("u-alice"));
      assert.equal(flag.length, 1);
      assert.deepEqual(flag, deviceKeys(t.browsers["u-bob"].game.users.get("u-alice")));
      // One live module-minted token per user, labelled for world and user.
      const live = t.conns.gm1.records.filter((r) => !r.revoked);
      assert.deepEqual(live.map((r) => r.label).sort(), [tokenLabel(t.browsers.gm1.game, "u-alice"), tokenLabel(t.browsers.gm1.game, "u-bob")]);
    } finally { t.stop(); }
  });
}

test("v13: a player without the QUERY_USER permission still gets its token over the socket", async () => {
  const t = await table(13, { playersMayQuery: false });
  try {
    await (await t.join("u-alice")).start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    assert.ok(t.world.socketLog.some((m) => m.data.kind === "token-request"));
  } finally { t.stop(); }
});

test("v13: the query handlers are called without a sender, and need none", async () => {
  const t = await table(13);
  try {
    await (await t.join("u-alice")).start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    // Bob poses as Alice: the GM's answer is a box only Alice can open.
    await t.join("u-bob");
    const bob = t.browsers["u-bob"];
    const [box] = await bob.game.users.activeGM.query(QUERY_REQUEST, { userId: "u-alice" }, { timeout: 1000 });
    assert.equal(box.claims.to, "u-alice");
    assert.throws(() => open(box, newSecrets()), "Bob's keys do not open Alice's box");
    const aliceBefore = tokenOf(t, "u-alice");
    // Bob's poses did not mint anything new: Alice keeps her one live token.
    assert.equal(t.conns.gm1.records.filter((r) => !r.revoked && r.label.endsWith("u-alice")).length, 1);
    assert.equal(tokenOf(t, "u-alice"), aliceBefore);
  } finally { t.stop(); }
});

test("a planted box (sealed by a player, or claiming a GM without its key) is refused", async () => {
  const t = await table(13);
  try {
    await (await t.join("u-alice")).start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    const alice = t.browsers["u-alice"];
    const before = storedEntry(alice.game);
    const [aliceKeys] = deviceKeys(alice.game.users.get("u-alice"));
    // Bob seals his own token to Alice's public key and signs it with his key, naming the GM as sender.
    const bobSecrets = newSecrets();
    const claims = { world: "test-world", to: "u-alice", from: "gm1", server: SERVER, iat: Date.now() + 10_000 };
    const planted = seal(aliceKeys, { token: "tok-of-bob" }, claims, bobSecrets);
    assert.equal(await t.delivery["u-alice"].accept(planted), false);
    // Naming himself as sender does not help: he is not a GM.
    await t.join("u-bob");
    const bob = t.browsers["u-bob"];
    await bob.game.user.setFlag(MODULE_ID, "keys-bobs", { ...publicKeys(bobSecrets), at: 1 });
    const planted2 = seal(aliceKeys, { token: "tok-of-bob" }, { ...claims, from: "u-bob" }, bobSecrets);
    assert.ok(verify(planted2, publicKeys(bobSecrets)));
    assert.equal(await t.delivery["u-alice"].accept(planted2), false);
    // Bob cannot replace the GM's published key: only that user or a GM may write its flag.
    await assert.rejects(bob.game.users.get("gm1").setFlag(MODULE_ID, "keys-bobs", { ...publicKeys(bobSecrets), at: 1 }), /lacks permission/);
    // Nor push it as a v13 query.
    await bob.game.users.get("u-alice").query(QUERY_DELIVER, { boxes: [planted] }, { timeout: 1000 });
    assert.deepEqual(storedEntry(alice.game), before);
  } finally { t.stop(); }
});

test("a replayed older box, or one for another server, is ignored", async () => {
  const t = await table(12);
  try {
    await (await t.join("u-alice")).start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    const first = t.world.socketLog.find((m) => m.data.kind === "token-delivery" && m.data.to === "u-alice").data.boxes;
    // Alice's character set grows: the GM re-mints, revokes the old, pushes.
    t.owners.actY.add("u-alice");
    t.conns.gm1.dispatchEvent(new Event("state"));
    await t.delivery.gm1.checkOwners();
    await until(() => tokenOf(t, "u-alice").endsWith("brannoc+ysolde"), "the re-minted token");
    const alive = t.conns.gm1.records.filter((r) => !r.revoked && r.label.endsWith("u-alice"));
    assert.equal(alive.length, 1, "the old token was revoked");
    // Someone replays the first box: ignored.
    assert.equal(await t.delivery["u-alice"].accept(first), false);
    assert.ok(tokenOf(t, "u-alice").endsWith("brannoc+ysolde"));
    // A token for another Vigil server is not taken either.
    const gm = t.browsers.gm1;
    const [aliceKeys] = deviceKeys(gm.game.users.get("u-alice"));
    const other = seal(aliceKeys, { token: "tok-elsewhere" }, { world: "test-world", to: "u-alice", from: "gm1", server: "wss://elsewhere/ws", iat: Date.now() + 1e6 }, await t.delivery.gm1.secrets());
    assert.equal(await t.delivery["u-alice"].accept(other), false);
  } finally { t.stop(); }
});

test("requests are rate-limited: repeats get the same box, nothing new is minted", async () => {
  const t = await table(13);
  try {
    await t.join("u-alice");
    await t.delivery["u-alice"].publishKeys();
    const boxes = await Promise.all([1, 2, 3, 4].map(() => t.delivery.gm1.answer("u-alice")));
    assert.equal(new Set(boxes.map(([b]) => b.sig)).size, 1);
    assert.equal(t.conns.gm1.sent.filter((b) => b.type === "token.mint").length, 1);
  } finally { t.stop(); }
});

test("tokens are kept per world, user and server URL in one browser origin", async () => {
  const t = await table(13);
  try {
    const origin = "http://192.168.1.20:30000";
    await (await t.join("u-alice", origin)).start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    // Bob logs in later on the same browser (same origin, same localStorage).
    await (await t.join("u-bob", origin)).start();
    await until(() => tokenOf(t, "u-bob"), "Bob's token");
    assert.notEqual(tokenOf(t, "u-bob"), tokenOf(t, "u-alice"));
    // The GM points the world at another Vigil: nobody sends the old token there.
    await t.browsers.gm1.game.settings.set(MODULE_ID, "serverUrl", "wss://another/ws");
    assert.equal(tokenOf(t, "u-alice"), "");
  } finally { t.stop(); }
});

test("a player with no linked character is told so, once", async () => {
  const t = await table(13);
  try {
    t.owners.actB.clear();
    const d = await t.join("u-alice");
    await d.start();
    await d.request();
    const told = t.browsers["u-alice"].ui.notifications.messages.filter(([, m]) => m === lang["VIGIL.Notify.NoCharacter"]);
    assert.equal(told.length, 1);
    assert.equal(t.conns.gm1.sent.filter((b) => b.type === "token.mint").length, 0);
  } finally { t.stop(); }
});

test("a socket request made in another user's name is ignored (the socket names its sender)", async () => {
  const t = await table(12);
  try {
    await (await t.join("u-alice")).start();
    await t.join("u-bob");
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    await new Promise((r) => setTimeout(r, 30));
    const minted = () => t.conns.gm1.sent.filter((b) => b.type === "token.mint" || b.type === "token.list").length;
    const deliveries = () => t.world.socketLog.filter((m) => m.data.kind === "token-delivery").length;
    const [m0, d0] = [minted(), deliveries()];
    t.delivery.gm1._answers.clear(); // no cached answer either: Bob's request would be worked out afresh
    t.browsers["u-bob"].game.socket.emit(SOCKET, { kind: "token-request", userId: "u-alice" });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(minted(), m0, "Bob's request in Alice's name sends nothing to Vigil");
    assert.equal(deliveries(), d0, "and gets no answer");
    t.browsers["u-alice"].game.socket.emit(SOCKET, { kind: "token-request", userId: "u-alice" });
    await until(() => deliveries() > d0, "Alice's own request answered");
  } finally { t.stop(); }
});

test("a request before the GM's first view revokes nothing, warns nobody, and is answered when the view comes", async () => {
  const t = await table(13);
  try {
    const gm = t.conns.gm1;
    const view = gm.state;
    gm.state = null;
    gm.status = "connecting";
    await (await t.join("u-alice")).start();
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(gm.sent, [], "nothing listed, minted or revoked before the view");
    assert.deepEqual(t.browsers.gm1.ui.notifications.messages, [], "no warning on the GM's screen");
    assert.ok(!t.browsers["u-alice"].ui.notifications.messages.some(([, m]) => m === lang["VIGIL.Notify.NoCharacter"]), "not told it has no character");
    gm.state = view;
    gm.status = "connected";
    gm.dispatchEvent(new Event("state"));
    await until(() => tokenOf(t, "u-alice"), "Alice's token once the view came");
  } finally { t.stop(); }
});

test("a player who loses a character while offline has its token revoked; an expired token is minted anew", async () => {
  const t = await table(13);
  try {
    const alice = await t.join("u-alice");
    await alice.start();
    await until(() => tokenOf(t, "u-alice"), "Alice's token");
    await t.delivery.gm1.checkOwners();
    const gm = t.conns.gm1;
    // Alice logs out; the GM gives Brannoc to Bob.
    t.world.leave(t.browsers["u-alice"]);
    t.owners.actB.delete("u-alice");
    await t.delivery.gm1.checkOwners();
    assert.equal(gm.records.filter((r) => r.label.endsWith("u-alice") && !r.revoked).length, 0, "her token dies now, not at her next login");

    // Bob's token expires (the server says so in token.list): a new one is minted.
    await (await t.join("u-bob")).start();
    await until(() => tokenOf(t, "u-bob"), "Bob's token");
    const bobs = gm.records.find((r) => r.label.endsWith("u-bob") && !r.revoked);
    bobs.expires = Date.now() / 1000 - 10;
    t.delivery.gm1._answers.clear();
    const mints = gm.sent.filter((b) => b.type === "token.mint").length;
    await t.delivery.gm1.answer("u-bob");
    assert.equal(gm.sent.filter((b) => b.type === "token.mint").length, mints + 1, "the expired token is not handed out again");
  } finally { t.stop(); }
});
