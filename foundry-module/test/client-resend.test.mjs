/**
 * The client sends a command again with the SAME id when its answer is
 * lost (a reconnect, an `outcome_unknown` reply), and gives up after its
 * bounds (5 resends after `outcome_unknown`, 30 s from the first send).
 * The server is a scripted fake socket and time is node:test's mock
 * clock, so every step is one the test takes, never a race.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { VigilClient } from "../scripts/core/client.js";

/** A WebSocket whose server side the test plays. */
class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.all.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.onopen?.(); }
  receive(msg) { this.onmessage?.({ data: JSON.stringify(msg) }); }
  drop() { this.readyState = 3; this.onclose?.({ code: 1006, reason: "" }); }
  commands() { return this.sent.filter((m) => m.type === "cmd"); }
  static get last() { return FakeSocket.all.at(-1); }
}

/** The server's answer to a hello: welcome, snapshot. */
function welcome(socket, rev = 3) {
  socket.receive({ type: "welcome", protocol: 1, server: "test", role: "gm", table: "demo", characters: [] });
  socket.receive({ type: "snapshot", table: "demo", epoch: 1, rev, state: { system: "mettle", characters: {} } });
}

function accept(socket, rev = 3) {
  socket.open();
  welcome(socket, rev);
}

const unknown = (id) => ({ type: "error", id, code: "outcome_unknown", message: "the outcome is unknown", params: {} });

/** A connected client on the mock clock (reconnects after at most 50 ms). */
function connected(t) {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const c = new VigilClient({ url: "ws://vigil.invalid/ws", token: "t", WebSocketImpl: FakeSocket, backoff: { min: 0.05, max: 0.05 } });
  c.connect();
  accept(FakeSocket.last);
  assert.equal(c.status, "connected");
  t.after(() => c.close());
  return c;
}

/** How a promise ended, readable at once after the mock clock moved. */
function outcome(promise) {
  const seen = { state: "pending", value: undefined };
  promise.then(
    (value) => Object.assign(seen, { state: "resolved", value }),
    (value) => Object.assign(seen, { state: "rejected", value }),
  );
  return seen;
}
const settled = () => new Promise((resolve) => setImmediate(resolve));

test("a command pending when the connection drops is sent again with the same id after the next welcome", async (t) => {
  const c = connected(t);
  const first = FakeSocket.last;
  const done = outcome(c.send({ type: "clock.pause" }));
  const history = outcome(c.history({ limit: 5 }));
  const [cmd] = first.commands();
  first.drop();
  await settled();
  assert.equal(done.state, "pending", "the command is kept");
  assert.equal(history.state, "rejected", "a history request is not");
  assert.equal(history.value.code, "disconnected");

  t.mock.timers.tick(50);
  const second = FakeSocket.last;
  assert.notEqual(second, first, "reconnected");
  second.open();
  assert.deepEqual(second.commands(), [], "not before the welcome");
  welcome(second, 4);
  assert.deepEqual(second.commands(), [cmd]);
  assert.deepEqual(second.sent.map((m) => m.type), ["hello", "cmd"]);

  // The server found the id in its log: the first ack again.
  second.receive({ type: "ack", id: cmd.id, result: null, rev: 4 });
  await settled();
  assert.deepEqual(done, { state: "resolved", value: { result: null, rev: 4 } });
});

test("outcome_unknown: the command is sent again with the same id after 250 ms, then 500 ms, until answered", async (t) => {
  const c = connected(t);
  const socket = FakeSocket.last;
  const done = outcome(c.send({ type: "mettle.pain", char: "brannoc", amount: 1 }));
  const [cmd] = socket.commands();
  for (const pause of [250, 500]) {
    const before = socket.commands().length;
    socket.receive(unknown(cmd.id));
    t.mock.timers.tick(pause - 1);
    assert.equal(socket.commands().length, before, `not before ${pause} ms`);
    t.mock.timers.tick(1);
    assert.deepEqual(socket.commands().at(-1), cmd);
  }
  await settled();
  assert.equal(done.state, "pending");
  socket.receive({ type: "ack", id: cmd.id, result: { roll: [6] }, rev: 4 });
  await settled();
  assert.deepEqual(done, { state: "resolved", value: { result: { roll: [6] }, rev: 4 } });
});

test("outcome_unknown after 5 resends rejects with outcome_unknown", async (t) => {
  const c = connected(t);
  const socket = FakeSocket.last;
  const done = outcome(c.send({ type: "clock.pause" }));
  const [cmd] = socket.commands();
  for (let resend = 0; resend < 5; resend += 1) {
    socket.receive(unknown(cmd.id));
    t.mock.timers.tick(250 * 2 ** resend);
  }
  assert.equal(socket.commands().length, 6, "sent once and again 5 times");
  assert.ok(socket.commands().every((m) => m.id === cmd.id));
  await settled();
  assert.equal(done.state, "pending");
  socket.receive(unknown(cmd.id));
  await settled();
  assert.equal(done.state, "rejected");
  assert.equal(done.value.code, "outcome_unknown");
  t.mock.timers.tick(60_000);
  assert.equal(socket.commands().length, 6, "never sent again");
});

test("a command kept over a reconnect is rejected with disconnected 30 s after its first send, and not sent again", async (t) => {
  const c = connected(t);
  const done = outcome(c.send({ type: "clock.pause" }));
  t.mock.timers.tick(10_000);
  FakeSocket.last.drop();
  // The server stays away: every new socket hangs until the connect timeout.
  t.mock.timers.tick(19_999);
  await settled();
  assert.equal(done.state, "pending", "kept until 30 s from its first send");
  t.mock.timers.tick(1);
  await settled();
  assert.equal(done.state, "rejected");
  assert.equal(done.value.code, "disconnected");
  t.mock.timers.tick(50);
  accept(FakeSocket.last);
  assert.equal(c.status, "connected");
  assert.deepEqual(FakeSocket.last.commands(), []);
});

test("a command already 30 s old when the connection drops is rejected at once; close() rejects a kept one", async (t) => {
  const c = connected(t);
  const old = outcome(c.send({ type: "clock.pause" }));
  t.mock.timers.tick(30_000);
  const young = outcome(c.send({ type: "clock.run" }));
  FakeSocket.last.drop();
  await settled();
  assert.equal(old.state, "rejected");
  assert.equal(old.value.code, "disconnected");
  assert.equal(young.state, "pending");
  c.close();
  await settled();
  assert.equal(young.state, "rejected");
  assert.equal(young.value.code, "disconnected");
});

for (const code of ["bus_unavailable", "store_unavailable", "table_unavailable"]) {
  test(`${code} (nothing done for now): sent again with the same id, then answered`, async (t) => {
    const c = connected(t);
    const socket = FakeSocket.last;
    const done = outcome(c.send({ type: "mettle.pain", char: "brannoc", amount: 1 }));
    const [cmd] = socket.commands();
    socket.receive({ type: "error", id: cmd.id, code, message: "nothing was done", params: {} });
    await settled();
    assert.equal(done.state, "pending", code);
    t.mock.timers.tick(250);
    assert.deepEqual(socket.commands().at(-1), cmd, `${code}: the same command, the same id`);
    socket.receive({ type: "ack", id: cmd.id, result: null, rev: 4 });
    await settled();
    assert.equal(done.state, "resolved", code);
  });
}

test("a refusal that is final (forbidden) is not sent again", async (t) => {
  const c = connected(t);
  const socket = FakeSocket.last;
  const done = outcome(c.send({ type: "mettle.pain", char: "brannoc", amount: 1 }));
  const [cmd] = socket.commands();
  socket.receive({ type: "error", id: cmd.id, code: "forbidden", message: "no", params: {} });
  await settled();
  t.mock.timers.tick(1000);
  assert.equal(socket.commands().length, 1);
  assert.equal(done.state, "rejected");
  assert.equal(done.value.code, "forbidden");
});
