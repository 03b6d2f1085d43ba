/**
 * VigilClient: one connection to a Vigil server, kept alive.
 *
 * Shared by the Foundry module and the dashboard pages, so it has no
 * dependencies and runs in browsers and in Node 20 (given a WebSocket
 * implementation). It holds the current view of one table (`state`), applies
 * patches in rev order, and reconnects with `resume` so the server replays
 * what was missed (or re-snapshots): a page never has to reload to catch up.
 *
 * A command is sent again, with the SAME id, when its answer is lost: after
 * a reconnect, and after an `outcome_unknown` error (its node went away
 * mid-command). That is safe because the server deduplicates commands by
 * token, session (named in every hello: one random name per client, kept
 * over its reconnects) and message id (a repeated id gets the first ack,
 * never a second application), and it saves people from guessing whether
 * to click again.
 *
 * Events (all `CustomEvent`s):
 *  - "status"  {status}                       every status change
 *  - "welcome" the welcome message            after each successful hello
 *  - "state"   {state, changes|null, rev}     after a snapshot (changes null) or a patch
 *  - "refused" a VigilError                   the server refused us for good
 *  - "wire"    {dir: "in"|"out", msg}         every message (debugging, schema tests)
 *
 * `state` is mutated in place by patches (see patch.js); treat it as
 * read-only and re-read it on each "state" event.
 */

import { applyChanges } from "./patch.js";
import { gameTimeAt } from "./clock.js";
import { CATALOGUE } from "./catalogue.js";

/** The protocol this client speaks: the server's, from the catalogue generated from it. */
export const PROTOCOL_VERSION = CATALOGUE.protocol;

/**
 * Close codes after which reconnecting cannot help (docs/design.md "Security"),
 * each with its name (the refusal's code when the server sent no error):
 * the server's own list (its CloseCode enum, exported in the catalogue).
 */
const TERMINAL_CLOSE = Object.freeze(Object.fromEntries(
  Object.entries(CATALOGUE.close_codes).filter(([, c]) => c.final).map(([code, c]) => [code, c.name]),
));

/** A refusal or a failure, as a value with a code and params (renderable by words.js). */
export class VigilError extends Error {
  constructor(code, params = {}, message = code) {
    super(message || code);
    this.name = "VigilError";
    this.code = code;
    this.params = params ?? {};
  }
}

const PING_EVERY_MS = 20_000;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long after it was first sent a command may still be sent again (over
 * reconnects and `outcome_unknown` retries); past it the command is
 * rejected, so that a click is not applied long after the person gave up.
 */
const RESEND_WITHIN_MS = 30_000;
/**
 * The answers after which a command is sent again with its id: nobody knows
 * whether it was applied (`outcome_unknown`: the server applies an id
 * once), or it certainly was not and may be later (the table moving, the
 * servers' bus or database out for a moment).
 */
const AGAIN = new Set(["outcome_unknown", "table_unavailable", "bus_unavailable", "store_unavailable"]);
/** The pause before the first resend after such an answer, doubling each time, and how many resends. */
const UNKNOWN_FIRST_MS = 250;
const UNKNOWN_TRIES = 5;

const disconnected = () => new VigilError("disconnected", {}, "the connection to the Vigil server was lost");

let idCounter = 0;
const idPrefix = Math.random().toString(36).slice(2, 8);
/**
 * This client's entropy for a rolling command's dice (docs/dice.md): 16
 * random bytes as 32 hex digits. `crypto.getRandomValues` exists over
 * plain HTTP too (WebCrypto's `subtle` does not).
 */
export function newNonce() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `body` with a nonce of this client when its command rolls dice (the
 * catalogue names the field) and it carries none: the server committed to
 * its seed before it sees the nonce, so neither side can aim a face.
 */
export function withNonce(body) {
  const field = CATALOGUE.commands[body?.type]?.nonce;
  return field && body[field] === undefined ? { ...body, [field]: newNonce() } : body;
}

/** How long the table must be quiet before the client asks for its legal
 * moves (ms): a burst of changes asks once, after its last. */
export const LEGAL_DELAY_MS = 60;

function nextId() {
  idCounter += 1;
  return `${idPrefix}-${idCounter}`;
}

export class VigilClient extends EventTarget {
  /**
   * @param {object} options
   * @param {string} options.url ws:// or wss:// URL of the /ws endpoint
   * @param {string} options.token access token (sent in hello, never in the URL)
   * @param {typeof WebSocket} [options.WebSocketImpl]
   * @param {string} [options.clientName] sent in hello, e.g. "foundry/0.1"
   * @param {{min: number, max: number}} [options.backoff] reconnect delays in seconds
   * @param {boolean} [options.followLegal] keep `state.legal` (the moves this
   *   viewer is offered now) current by asking the server after each change;
   *   a "legal" event says when it changed
   */
  constructor({ url, token, WebSocketImpl = globalThis.WebSocket, clientName = "vigil-web", backoff = { min: 0.5, max: 15 }, followLegal = false } = {}) {
    super();
    this.followLegal = followLegal;
    // The last legal moves the server gave ({epoch, rev, legal}), and the
    // asking under way: one request at a time, asked again if the table
    // moved on meanwhile (see _followLegal).
    this._legal = null;
    this._legalTimer = null;
    this._legalAsking = false;
    this.url = url;
    this.token = token;
    this.WebSocketImpl = WebSocketImpl;
    this.clientName = clientName;
    // This client's session: the same in every hello it sends, so that the
    // server knows a command sent again (same id) after a reconnect.
    this.session = `${idPrefix}-${Math.random().toString(36).slice(2, 10)}`;
    this.backoff = { min: 0.5, max: 15, ...backoff };
    this.state = null;
    this.status = "idle";
    this.role = null;
    this.tableId = null;
    this.ownCharacters = [];
    this.epoch = null;
    this.rev = null;
    this.welcome = null;
    this.lastError = null;
    this._ws = null;
    this._pending = new Map();
    this._attempt = 0;
    this._retryTimer = null;
    this._pingTimer = null;
    this._pingOutstanding = null;
    this._wanted = false;
  }

  /** Start (or restart) connecting; reconnects until close() or a refusal. */
  connect() {
    this._wanted = true;
    clearTimeout(this._retryTimer);
    this._retryTimer = null;
    if (this._ws) return;
    if (typeof this.WebSocketImpl !== "function") throw new VigilError("no_websocket", {}, "no WebSocket implementation");
    this._setStatus(this.state ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new this.WebSocketImpl(this.url);
    } catch (err) {
      this._scheduleReconnect(err);
      return;
    }
    this._ws = ws;
    ws.onopen = () => this._onOpen(ws);
    ws.onmessage = (ev) => this._onMessage(ws, ev);
    ws.onclose = (ev) => this._onClose(ws, ev);
    // Browsers follow an error with a close event; Node 20's WebSocket does
    // not when the connection was never established, so an error on a socket
    // that is not open counts as its close (a second close is ignored).
    ws.onerror = () => {
      if (ws.readyState !== 1) this._onClose(ws, { code: 1006, reason: "" });
    };
    // Neither event may come for a connect that hangs (a black-holed host).
    const connectTimer = setTimeout(() => {
      if (ws === this._ws && ws.readyState === 0) {
        this._drop(4000, "connect timeout");
        this._scheduleReconnect();
      }
    }, CONNECT_TIMEOUT_MS);
    connectTimer.unref?.();
  }

  /** Disconnect for good; pending requests (commands too) are rejected. */
  close() {
    this._wanted = false;
    clearTimeout(this._retryTimer);
    this._retryTimer = null;
    this._drop(1000, "client closed");
    this._setStatus("closed");
  }

  /**
   * Send a command. Resolves with {result, rev} from the ack; rejects with a
   * VigilError on an error reply.
   *
   * If the connection drops before the answer, the command is kept and sent
   * again with the same id as soon as a new connection is welcomed (the
   * server handles frames in order, so after the snapshot or replay); on an
   * `outcome_unknown` reply (or one saying nothing was done for now:
   * `table_unavailable`, `bus_unavailable`, `store_unavailable`) it is sent
   * again after 250 ms, 500 ms, … (5
   * times at most). The server applies an id once (it deduplicates by token,
   * session and message id and answers a repeat with the first ack), so a resend
   * never applies the command twice. A command not answered within 30 s of
   * its first send is rejected with `disconnected` (or the last
   * `outcome_unknown`): it may or may not have been applied, the state tells.
   * A rolling command gets a random nonce of this client (see `withNonce`),
   * kept over resends (they send the same body).
   * @param {object} body e.g. {type: "mettle.pain", char: "brannoc", amount: 7}
   * @param {{table?: string|null}} [opts] table id; defaults to this connection's table
   */
  send(body, { table } = {}) {
    const msg = { type: "cmd", id: nextId(), body: withNonce(body) };
    const t = table === undefined ? this.tableId : table;
    if (t) msg.table = t;
    return this._request(msg, true);
  }

  /** A page of history, newest first. Resolves with the history_page message;
   * rejects with `disconnected` if the connection drops first (not resent:
   * asking again is the caller's choice). */
  history({ before = null, limit = 50 } = {}) {
    return this._request({ type: "history", id: nextId(), table: this.tableId, before, limit });
  }

  /** The rev of the state the last legal moves are for (null before any). */
  get legalRev() {
    return this._legal && this._legal.epoch === this.epoch ? this._legal.rev : null;
  }

  /** The moves this viewer is offered now. Resolves with the legal_moves
   * message ({epoch, rev, legal}); the server finds them once per state. */
  legal() {
    return this._request({ type: "legal", id: nextId(), table: this.tableId });
  }

  /** Game seconds now, extrapolated from the clock anchor. */
  gameNow() {
    return gameTimeAt(this.state?.clock, Date.now() / 1000);
  }

  // ---- internals ----------------------------------------------------------

  /** Send `msg` and wait for the reply with its id; a `command` is resent as `send` says. */
  _request(msg, command = false) {
    if (this.status !== "connected" || !this._ws) {
      return Promise.reject(new VigilError("not_connected", {}, "not connected to the Vigil server"));
    }
    return new Promise((resolve, reject) => {
      this._pending.set(msg.id, { resolve, reject, msg, command, since: Date.now(), tries: 0, timer: null });
      this._write(msg);
    });
  }

  _write(msg) {
    this._emit("wire", { dir: "out", msg });
    this._ws.send(JSON.stringify(msg));
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this._emit("status", { status });
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  _onOpen(ws) {
    if (ws !== this._ws) return;
    const resume = this.tableId && this.epoch !== null && this.rev !== null && this.state
      ? { table: this.tableId, epoch: this.epoch, rev: this.rev }
      : null;
    this._write({ type: "hello", protocol: PROTOCOL_VERSION, token: this.token, resume, client: this.clientName, session: this.session });
  }

  _onMessage(ws, ev) {
    if (ws !== this._ws) return;
    let msg;
    try {
      msg = JSON.parse(typeof ev.data === "string" ? ev.data : new TextDecoder().decode(ev.data));
    } catch {
      return; // the server only sends JSON; ignore anything else
    }
    this._emit("wire", { dir: "in", msg });
    switch (msg.type) {
      case "welcome": return this._onWelcome(msg);
      case "snapshot": return this._onSnapshot(msg);
      case "patch": return this._onPatch(msg);
      case "ack": return this._settle(msg.id, (p) => p.resolve({ result: msg.result ?? null, rev: msg.rev ?? null }));
      case "history_page":
      case "legal_moves": return this._settle(msg.id, (p) => p.resolve(msg));
      case "pong": this._pingOutstanding = null; return undefined;
      case "error": return this._onError(msg);
      default: return undefined;
    }
  }

  _onWelcome(msg) {
    this.welcome = msg;
    this.role = msg.role;
    if (msg.table && msg.table !== this.tableId) {
      // A different table than the view we hold: forget it.
      this.state = null;
      this.epoch = null;
      this.rev = null;
    }
    this.tableId = msg.table ?? null;
    this.ownCharacters = msg.characters ?? [];
    // The backoff resets only once the connection proved useful (a snapshot,
    // or the welcome for the table-less operator): a server that accepts the
    // hello and then fails must not be hammered in a tight loop.
    if (!msg.table) this._attempt = 0;
    this._startPings();
    // Before "connected" is announced: a command sent by a listener of that
    // event is on this connection already and must not be sent twice.
    this._resendKept();
    this._setStatus("connected");
    this._emit("welcome", msg);
  }

  _onSnapshot(msg) {
    this.tableId = msg.table;
    this.epoch = msg.epoch;
    this.rev = msg.rev;
    this.state = msg.state;
    this._attempt = 0;
    this._followLegal();
    this._emit("state", { state: this.state, changes: null, rev: this.rev });
  }

  _onPatch(msg) {
    if (this.state === null) return this._resync(false);
    // A patch is of the table and epoch of the last snapshot: a new epoch
    // always comes as a snapshot first (vigil.protocol.Patch).
    if (msg.rev <= this.rev) return undefined; // already applied (replay overlap)
    if (msg.rev !== this.rev + 1) return this._resync(true);
    try {
      this.state = applyChanges(this.state, msg.changes);
    } catch {
      // Our view no longer matches the server's: ask for a fresh snapshot.
      return this._resync(false);
    }
    this.rev = msg.rev;
    this._followLegal();
    this._emit("state", { state: this.state, changes: msg.changes, rev: this.rev });
    return undefined;
  }

  /**
   * Keep `state.legal` for the state shown. The server does not send the
   * legal moves with every patch (finding them costs far more than a
   * change), so the client asks once the table has been quiet for
   * LEGAL_DELAY_MS; until the answer for this rev comes, the last one stays
   * (a move it offers that is no longer legal is refused, and says why).
   * The answer may be for a rev not yet shown (the server answers from its
   * newest state): it is kept until the patch that brings that rev.
   */
  _followLegal() {
    if (!this.followLegal || this.state === null || !this.tableId) return;
    const known = this._legal;
    if (known) this.state.legal = known.legal ?? undefined;
    if (known && known.epoch === this.epoch && known.rev === this.rev) return;
    if (known && known.epoch === this.epoch && known.rev > this.rev) return; // its patch is on the way
    clearTimeout(this._legalTimer);
    this._legalTimer = setTimeout(() => this._askLegal(), LEGAL_DELAY_MS);
  }

  async _askLegal() {
    if (this._legalAsking) return;
    this._legalAsking = true;
    let answer = null;
    try {
      answer = await this.legal();
    } catch {
      // Disconnected or refused: the next state asks again.
    } finally {
      this._legalAsking = false;
    }
    if (!answer || this.state === null) return;
    this._legal = { epoch: answer.epoch, rev: answer.rev, legal: answer.legal };
    if (answer.epoch === this.epoch && answer.rev === this.rev) {
      this.state.legal = answer.legal ?? undefined;
      // Its own event, not "state": nothing of the table changed (overlays,
      // history and chat cards have nothing to redraw), only what is offered.
      this._emit("legal", { state: this.state, rev: this.rev });
    } else if (answer.epoch !== this.epoch || answer.rev < this.rev) {
      this._followLegal(); // the table moved on while we asked
    }
  }

  _onError(msg) {
    const err = new VigilError(msg.code, msg.params, msg.message);
    const pending = msg.id ? this._pending.get(msg.id) : undefined;
    if (pending) {
      if (AGAIN.has(err.code) && this._retryUnknown(pending)) return undefined;
      return this._settle(msg.id, (p) => p.reject(err));
    }
    this.lastError = err;
    if (this.status !== "connected") this._refusal = err; // a refused hello; the close follows
    return undefined;
  }

  _settle(id, fn) {
    const p = this._pending.get(id);
    if (!p) return;
    this._pending.delete(id);
    clearTimeout(p.timer);
    fn(p);
  }

  /**
   * After `outcome_unknown` (or another answer of AGAIN): send the command again after a pause that
   * doubles each time, while tries and its 30 s remain. False when they do
   * not (the caller rejects it). A resend due while disconnected is left to
   * the next welcome.
   */
  _retryUnknown(p) {
    const delay = UNKNOWN_FIRST_MS * 2 ** p.tries;
    if (!p.command || p.tries >= UNKNOWN_TRIES || Date.now() + delay - p.since > RESEND_WITHIN_MS) return false;
    p.tries += 1;
    clearTimeout(p.timer);
    p.timer = setTimeout(() => {
      p.timer = null;
      if (this._pending.get(p.msg.id) === p && this.status === "connected" && this._ws) this._write(p.msg);
    }, delay);
    return true;
  }

  /**
   * The connection is lost but the client reconnects: commands younger than
   * 30 s are kept for the next welcome (each rejected when its 30 s run
   * out meanwhile); history requests and older commands are rejected.
   */
  _keepCommands() {
    const now = Date.now();
    for (const [id, p] of this._pending) {
      clearTimeout(p.timer);
      p.timer = null;
      const left = p.command ? RESEND_WITHIN_MS - (now - p.since) : 0;
      if (left > 0) {
        p.timer = setTimeout(() => this._settle(id, (q) => q.reject(disconnected())), left);
      } else {
        this._pending.delete(id);
        p.reject(disconnected());
      }
    }
  }

  /** Welcomed again: every pending request is a command kept from the lost connection. */
  _resendKept() {
    for (const p of this._pending.values()) {
      clearTimeout(p.timer);
      p.timer = null;
      this._write(p.msg);
    }
  }

  /** Reconnecting: keep the commands; not (closed, refused): reject everything. */
  _losePending() {
    if (this._wanted) this._keepCommands();
    else this._rejectPending(disconnected());
  }

  /** Reconnect to get a replay (keepResume) or a fresh snapshot. */
  _resync(keepResume) {
    if (!keepResume) {
      this.state = null;
      this.epoch = null;
      this.rev = null;
    }
    this._drop(4000, "resync");
    if (this._wanted) this._scheduleReconnect();
  }

  _drop(code, reason) {
    const ws = this._ws;
    this._ws = null;
    this._stopPings();
    this._losePending();
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try { ws.close(code, reason); } catch { /* already closing */ }
    }
  }

  _rejectPending(err) {
    const pending = [...this._pending.values()];
    this._pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }

  _onClose(ws, ev) {
    if (ws !== this._ws) return;
    this._ws = null;
    this._stopPings();
    const terminal = TERMINAL_CLOSE[ev?.code];
    if (terminal) this._wanted = false;
    this._losePending();
    if (terminal) {
      const err = this._refusal ?? new VigilError(terminal, {}, ev.reason || terminal);
      this._refusal = null;
      this.lastError = err;
      this._setStatus("refused");
      this._emit("refused", err);
      return;
    }
    this._refusal = null;
    if (this._wanted) this._scheduleReconnect();
    else this._setStatus("closed");
  }

  _scheduleReconnect() {
    this._ws = null;
    this._setStatus("reconnecting");
    // Exponential backoff with jitter, so that many clients dropped by one
    // server restart do not all come back in the same millisecond.
    const base = Math.min(this.backoff.max, this.backoff.min * 2 ** this._attempt);
    const delay = base * (0.5 + Math.random() * 0.5);
    this._attempt += 1;
    clearTimeout(this._retryTimer);
    this._retryTimer = setTimeout(() => {
      this._retryTimer = null;
      if (this._wanted) this.connect();
    }, delay * 1000);
  }

  _startPings() {
    this._stopPings();
    this._pingTimer = setInterval(() => {
      if (!this._ws) return;
      if (this._pingOutstanding) {
        // No pong for a whole interval: the connection is half-open. Drop it
        // and reconnect rather than wait for TCP to notice (minutes).
        this._drop(4000, "ping timeout");
        this._scheduleReconnect();
        return;
      }
      this._pingOutstanding = nextId();
      try { this._write({ type: "ping", id: this._pingOutstanding }); } catch { /* closing */ }
    }, PING_EVERY_MS);
    // Do not keep a Node process alive just for pings.
    this._pingTimer?.unref?.();
  }

  _stopPings() {
    clearInterval(this._pingTimer);
    this._pingTimer = null;
    this._pingOutstanding = null;
  }
}
