/**
 * The shared client core against a REAL vigil server subprocess: hello,
 * snapshot, command → ack → patch, errors, history, refusal, and
 * reconnect/resume after the server restarts. Every message in both
 * directions is validated against schemas/protocol.schema.json.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { VigilClient, VigilError } from "../scripts/core/client.js";
import { VigilServer, haveVigil } from "./support/vigil-server.mjs";
import { assertValid } from "./support/schema.mjs";

const skip = haveVigil ? false : "no .venv/bin/vigil (install the server first)";
let server;
const clients = [];

before(async () => {
  if (skip) return;
  server = await new VigilServer().start();
});
after(async () => {
  for (const c of clients) c.close();
  await server?.dispose();
});

/** A client whose every message is schema-checked; collects violations. */
function client(token, opts = {}) {
  const c = new VigilClient({ url: server.wsUrl, token, clientName: "node-test", backoff: { min: 0.05, max: 0.5 }, ...opts });
  c.wire = [];
  c.violations = [];
  c.addEventListener("wire", (e) => {
    c.wire.push(e.detail);
    try { assertValid(e.detail.dir, e.detail.msg); } catch (err) { c.violations.push(err.message); }
  });
  clients.push(c);
  return c;
}

// How long a wait may take before it fails: generous, since a busy machine is
// slow, not wrong (a wait ends as soon as what it waits for happens).
const WAIT_MS = 30_000;

const next = (target, type, pred = () => true, ms = WAIT_MS) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => { target.removeEventListener(type, on); reject(new Error(`no ${type} event in ${ms} ms`)); }, ms);
  function on(e) {
    if (!pred(e.detail)) return;
    clearTimeout(timer);
    target.removeEventListener(type, on);
    resolve(e.detail);
  }
  target.addEventListener(type, on);
});

/** Poll until `cond()` holds (events may already have fired). */
async function until(cond, ms = WAIT_MS, what = "condition") {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A WebSocket the test drives: it opens at once and closes when told to. */
class ScriptedSocket {
  static last = null;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    ScriptedSocket.last = this;
  }
  open() { this.readyState = 1; this.onopen?.(); }
  send() {}
  close() { this.readyState = 3; }
  closedByServer(code, reason) { this.readyState = 3; this.onclose?.({ code, reason }); }
}

/** The statuses a client goes through when the server closes with `code`, and its refusal. */
function closedWith(code, reason) {
  const c = new VigilClient({ url: "ws://vigil.invalid/ws", token: "t", WebSocketImpl: ScriptedSocket });
  const statuses = [];
  let refusal = null;
  c.addEventListener("status", (e) => statuses.push(e.detail.status));
  c.addEventListener("refused", (e) => { refusal = e.detail; });
  c.connect();
  ScriptedSocket.last.open();
  ScriptedSocket.last.closedByServer(code, reason);
  c.close();
  return { statuses, refusal };
}

test("token expired (4002) and table archived (4005) are final: no reconnect", () => {
  for (const [code, name] of [[4002, "token_expired"], [4005, "table_archived"]]) {
    const { statuses, refusal } = closedWith(code, "bye");
    assert.ok(statuses.includes("refused") && !statuses.includes("reconnecting"), `${code}: ${statuses}`);
    assert.equal(refusal.code, name);
    assert.equal(refusal.message, "bye");
  }
});

test("a full table (1013) or a server restart (1001) is not final: the client reconnects", () => {
  for (const code of [1013, 1001]) {
    const { statuses, refusal } = closedWith(code, "");
    assert.ok(statuses.includes("reconnecting") && !statuses.includes("refused"), `${code}: ${statuses}`);
    assert.equal(refusal, null);
  }
});

test("connect: welcome then a snapshot of the demo table", { skip }, async () => {
  const c = client(server.gmToken);
  const statuses = [];
  c.addEventListener("status", (e) => statuses.push(e.detail.status));
  const welcome = next(c, "welcome");
  const state = next(c, "state");
  c.connect();
  assert.equal((await welcome).role, "gm");
  const s = await state;
  assert.equal(s.changes, null);
  assert.equal(c.tableId, "demo");
  assert.equal(c.role, "gm");
  assert.equal(c.status, "connected");
  assert.deepEqual(statuses, ["connecting", "connected"]);
  assert.equal(c.state.system, "mettle");
  assert.ok(c.state.characters.brannoc.sheet, "the GM sees numbers");
  assert.equal(typeof c.epoch, "number");
  assert.equal(c.rev, s.rev);
  assert.deepEqual(c.violations, []);
  c.close();
  assert.equal(c.status, "closed");
});

test("a command is acked, then its patch updates the state in rev order", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  const rev0 = c.rev;
  const order = [];
  c.addEventListener("wire", (e) => { if (e.detail.dir === "in") order.push(e.detail.msg.type); });
  const patched = next(c, "state", (d) => d.changes !== null);
  const ack = await c.send({ type: "mettle.pain", char: "ysolde", amount: 2 });
  assert.equal(ack.rev, rev0 + 1);
  const d = await patched;
  assert.equal(d.rev, rev0 + 1);
  // The character, and for the GM what its undo would now take back.
  assert.deepEqual(Object.keys(d.changes).sort(), ["characters", "undo"]);
  assert.equal(c.state.characters.ysolde.sheet.pain, 2);
  assert.ok(order.indexOf("ack") < order.indexOf("patch"), "ack comes before the patch it caused");
  assert.deepEqual(c.violations, []);
  c.close();
});

test("an error reply rejects with a VigilError carrying code and params", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  await assert.rejects(c.send({ type: "mettle.pain", char: "nobody", amount: 1 }), (err) => {
    assert.ok(err instanceof VigilError);
    assert.equal(err.code, "unknown_character");
    assert.deepEqual(err.params, { char: "nobody" });
    return true;
  });
  assert.deepEqual(c.violations, []);
  c.close();
});

test("history pages come back newest first", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  const page = await c.history({ limit: 2 });
  assert.equal(page.type, "history_page");
  assert.ok(page.entries.length >= 1 && page.entries.length <= 2);
  assert.ok(page.entries[0].rev >= (page.entries[1]?.rev ?? 0));
  assert.deepEqual(c.violations, []);
  c.close();
});

test("followLegal: the client asks for the moves legal now once the table is quiet, and keeps state.legal for the rev shown", { skip }, async () => {
  const c = client(server.gmToken, { followLegal: true });
  c.connect();
  await next(c, "state");
  await until(() => c.legalRev === c.rev, WAIT_MS, "the legal moves of the first state");
  assert.ok(c.state.legal.chars.ysolde["mettle.pain"] !== undefined, "the GM may hurt Ysolde now");
  const asked = () => c.wire.filter((w) => w.dir === "out" && w.msg.type === "legal").length;
  const before = asked();
  // A burst of changes asks once, after its last (LEGAL_DELAY_MS of quiet).
  await Promise.all([1, 1, 1].map((amount) => c.send({ type: "mettle.rattle", char: "brannoc", amount })));
  await until(() => c.legalRev === c.rev, WAIT_MS, "the legal moves after the burst");
  assert.ok(asked() - before <= 2, `asked ${asked() - before} times for one burst`);
  assert.ok(!c.wire.some((w) => w.dir === "in" && w.msg.type === "patch" && "legal" in w.msg.changes), "never in a patch");
  assert.deepEqual(c.violations, []);
  c.close();
});

test("a rolling command carries a fresh nonce of this client; every view carries the dice commitment", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  assert.match(c.state.dice.commitment, /^[0-9a-f]{64}$/);
  assert.equal(c.state.dice.fingerprint, c.state.dice.commitment.slice(0, 8));
  const sent = [];
  c.addEventListener("wire", (e) => { if (e.detail.dir === "out" && e.detail.msg.type === "cmd") sent.push(e.detail.msg.body); });
  await c.send({ type: "mettle.pain", char: "ysolde", amount: 1 });
  await c.send({ type: "mettle.pain", char: "ysolde", amount: 1 });
  await c.send({ type: "mettle.heal", char: "ysolde", amount: 2 });
  const [first, second, heal] = sent;
  assert.match(first.nonce, /^[0-9a-f]{32}$/);
  assert.notEqual(first.nonce, second.nonce);
  assert.equal(heal.nonce, undefined, "a command that rolls nothing carries no nonce");
  const page = await c.history({ limit: 3 });
  assert.equal(page.entries[2].command.nonce, first.nonce);
  assert.deepEqual(c.violations, []);
  c.close();
});

test("a spectator is refused commands; a bad token is refused for good", { skip }, async () => {
  const spectator = client(server.spectatorToken);
  spectator.connect();
  await next(spectator, "state");
  await assert.rejects(spectator.send({ type: "clock.pause" }), (e) => e.code === "forbidden");
  spectator.close();

  const bad = client("v1.demo..not-a-token");
  const refused = next(bad, "refused");
  bad.connect();
  const err = await refused;
  assert.ok(err instanceof VigilError);
  assert.equal(bad.status, "refused");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(bad.status, "refused", "no reconnect loop after a refusal");
  assert.deepEqual(bad.violations, []);
});

test("a rev gap makes the client reconnect with resume and catch up", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  const hellos = () => c.wire.filter((w) => w.dir === "out" && w.msg.type === "hello");
  // Pretend we missed a patch: our rev is behind what the server will send.
  c.rev -= 1;
  const { rev: stale } = c;
  const other = client(server.gmToken);
  other.connect();
  await next(other, "state");
  await other.send({ type: "mettle.rattle", char: "ysolde", amount: 1 });
  await until(() => c.status === "connected" && c.rev === other.rev, WAIT_MS, "catch-up");
  assert.ok(hellos().length >= 2, "reconnected");
  const resumed = hellos().at(-1).msg.resume;
  assert.deepEqual(resumed, { table: "demo", epoch: c.epoch, rev: stale });
  assert.deepEqual(c.state, other.state);
  assert.deepEqual(c.violations, []);
  c.close();
  other.close();
});

test("after a server restart the client reconnects by itself and resumes", { skip, timeout: 60_000 }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  const before = c.rev;
  const statuses = [];
  c.addEventListener("status", (e) => statuses.push(e.detail.status));
  // Refused by the server: before the restart, or after it when the client
  // sends it again (same id) on the new connection.
  const pending = c.send({ type: "ping-me-not" }).catch((e) => e);
  await server.restart();
  await until(() => c.status === "connected", WAIT_MS, "reconnect");
  assert.ok(statuses.includes("reconnecting"), statuses.join(","));
  const hello = c.wire.filter((w) => w.dir === "out" && w.msg.type === "hello").at(-1).msg;
  assert.deepEqual(hello.resume, { table: "demo", epoch: c.epoch, rev: before });
  assert.ok((await pending) instanceof VigilError);
  // A command after the restart patches the same state object forward.
  const patched = next(c, "state", (d) => d.changes !== null);
  const { rev } = await c.send({ type: "mettle.pain", char: "raider", amount: 1 });
  await patched;
  assert.equal(c.rev, rev);
  assert.equal(c.state.characters.raider.sheet.pain, 1);
  // Validation: the unknown command was sent (client does not filter),
  // once or twice, and is the only schema violation.
  assert.ok(c.violations.length >= 1 && c.violations.length <= 2, c.violations.join("\n"));
  for (const violation of c.violations) assert.match(violation, /^out message .*ping-me-not/);
  c.close();
});

test("gameNow follows the clock anchor", { skip }, async () => {
  const c = client(server.gmToken);
  c.connect();
  await next(c, "state");
  await c.send({ type: "clock.run" });
  await next(c, "state", () => c.state.clock.mode === "running");
  // gameNow is the anchor extrapolated to the wall clock: it lies between
  // the anchor's game time just before and just after the call, however
  // long the call or the pause between two calls takes.
  const { clock } = c.state;
  const at = (wallSeconds) => clock.game + (wallSeconds - clock.wall) * clock.rate;
  const read = () => {
    const before = Date.now() / 1000;
    const game = c.gameNow();
    const after = Date.now() / 1000;
    assert.ok(at(before) <= game && game <= at(after), `${at(before)} ≤ ${game} ≤ ${at(after)}`);
    return game;
  };
  const a = read();
  await new Promise((r) => setTimeout(r, 300));
  const b = read();
  assert.ok(b > a, `the clock runs: ${a} → ${b}`);
  await c.send({ type: "clock.pause" });
  c.close();
});
