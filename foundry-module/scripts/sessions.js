/**
 * Which browser of the active GM does the GM's duties (roll cards, clock and
 * combat commands, minting players' tokens).
 *
 * Foundry elects a USER (`game.users.activeGM`), not a browser, and one user
 * may be logged in from two browsers or tabs at once
 * (foundryvtt/foundryvtt#9425, #14728; socketlib#3 met the same): then both
 * sessions believe they are the active GM. So the sessions of one user elect
 * one among themselves over the module socket, whose handler is told the
 * sender's user id (a session only counts announcements of its own user):
 *
 * - each session announces itself (`{kind: "session", session, since}`) when
 *   it starts and every HEARTBEAT_MS, and answers a newcomer's announcement
 *   at once with its own;
 * - the leader is the session that started first (smallest `since`, then
 *   smallest id): every session computes the same one, and a newcomer never
 *   displaces a live leader, so duties never flip-flop between them;
 * - a session that closes says "bye" (pagehide); one that falls silent for
 *   STALE_MS is forgotten; the next oldest then leads. STALE_MS is long
 *   because browsers throttle the timers of a background tab to about once
 *   a minute (Chrome's "intensive throttling" of hidden pages): a GM's tab
 *   left behind another must not lose its lead on every throttled beat;
 * - a newcomer leads nothing until it has heard the others (SETTLE_MS).
 *
 * `leader` is the pure decision; `SessionElection` only moves messages.
 */

import { MODULE_ID, isActiveGM } from "./settings.js";

export const SOCKET = `module.${MODULE_ID}`;
export const HEARTBEAT_MS = 10_000;
export const STALE_MS = 150_000;
export const SETTLE_MS = 1_500;

/** The leading session among `sessions` ([{session, since}]), or null. Pure. */
export function leader(sessions) {
  let best = null;
  for (const s of sessions) {
    if (!best || s.since < best.since || (s.since === best.since && s.session < best.session)) best = s;
  }
  return best?.session ?? null;
}

const randomId = () => Array.from(globalThis.crypto.getRandomValues(new Uint8Array(9)), (b) => b.toString(16).padStart(2, "0")).join("");

export class SessionElection extends EventTarget {
  /**
   * @param {object} env where Foundry's globals live (game, and addEventListener for pagehide)
   * @param {{now?: () => number, since?: number, session?: string, settleMs?: number, heartbeatMs?: number, staleMs?: number}} [opts]
   */
  constructor(env = globalThis, { now = () => Date.now(), since = now(), session = randomId(), settleMs = SETTLE_MS, heartbeatMs = HEARTBEAT_MS, staleMs = STALE_MS } = {}) {
    super();
    this.env = env;
    this.now = now;
    this.session = session;
    this.since = since;
    this.settleMs = settleMs;
    this.heartbeatMs = heartbeatMs;
    this.staleMs = staleMs;
    this.peers = new Map(); // session id → {since, heard} (same user, other sessions)
    this.settled = false;
    this._led = false;
    this._timers = [];
  }

  get game() { return this.env.game; }

  start() {
    const game = this.game;
    game.socket?.on?.(SOCKET, (msg, senderId) => this.onMessage(msg, senderId));
    this._announce(true);
    const settle = setTimeout(() => { this.settled = true; this._check(); }, this.settleMs);
    const beat = setInterval(() => { this._announce(false); this._check(); }, this.heartbeatMs);
    for (const t of [settle, beat]) t?.unref?.();
    this._timers.push(settle, beat);
    this.env.addEventListener?.("pagehide", () => this.stop());
    return this;
  }

  /** Whether this session leads its user's sessions (settled, and oldest). */
  leads() {
    if (!this.settled) return false;
    const cut = this.now() - this.staleMs;
    for (const [id, p] of this.peers) if (p.heard < cut) this.peers.delete(id);
    const all = [{ session: this.session, since: this.since }, ...[...this.peers].map(([session, p]) => ({ session, since: p.since }))];
    return leader(all) === this.session;
  }

  /** A module socket message (others are ignored). Announcements count only
   * from this session's own user, as Foundry names the sender. */
  onMessage(msg, senderId) {
    if (msg?.kind !== "session" || senderId !== this.game.user?.id || typeof msg.session !== "string" || msg.session === this.session) return;
    if (msg.bye) { this.peers.delete(msg.session); this._check(); return; }
    if (typeof msg.since !== "number") return;
    const known = this.peers.has(msg.session);
    this.peers.set(msg.session, { since: msg.since, heard: this.now() });
    if (msg.hello && !known) this._announce(false); // a newcomer learns of us at once
  }

  stop() {
    for (const t of this._timers) { clearTimeout(t); clearInterval(t); }
    this._timers = [];
    this.game.socket?.emit?.(SOCKET, { kind: "session", session: this.session, bye: true });
  }

  /** Tell listeners ("lead") when this session has just come to lead: what
   * waited for the leader (a player's request) is done then. */
  _check() {
    const leads = this.leads();
    if (leads && !this._led) this.dispatchEvent(new Event("lead"));
    this._led = leads;
  }

  _announce(hello) {
    this.game.socket?.emit?.(SOCKET, { kind: "session", session: this.session, since: this.since, hello });
  }
}

/** The election of this page's session (main.js sets it; none: alone). */
let current = null;
export const setElection = (election) => { current = election; };
export const currentElection = () => current;

/** Whether this browser does the GM's duties: its user is Foundry's active
 * GM and, of that user's sessions, this one leads. */
export function hasGmDuties(game = globalThis.game, election = current) {
  return isActiveGM(game) && (election ? election.leads() : true);
}
