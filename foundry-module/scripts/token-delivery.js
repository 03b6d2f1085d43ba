/**
 * Players get their own Vigil token without copying strings (docs/design.md
 * "Security"). The browser that does the active GM's duties (sessions.js)
 * mints it (token.mint, role player, with the player's linked characters)
 * and hands it over sealed and signed (sealed.js):
 *
 * - A v13 query handler is not told who asked (handlers get
 *   `(queryData, {timeout})`: foundryvtt/foundryvtt#13418). The module
 *   socket's handler is told the sender's user id (socketlib's
 *   `_onSocketReceived(message, senderId)`), so a socket request made in
 *   another user's name is ignored. Either way the answer is sealed to the
 *   keys published in the named user's flags (writable only by that user or
 *   a GM): whoever asked, only that user's browsers can open it.
 * - One user may be logged in on two devices (foundryvtt/foundryvtt#9425):
 *   every browser publishes its own key pair under its own flag key
 *   (`keys-<device>`), so no browser overwrites another's, and the GM seals
 *   one box per published device (the newest MAX_DEVICES). A box is signed
 *   by the GM browser's key and its claims name world, recipient, server and
 *   time: a box a player made, or an old one replayed, is refused.
 * - Transport: on v13 the player asks the active GM with a query (the answer
 *   is the query's result; null when the session reached cannot answer, e.g.
 *   not the one doing the duties) and falls back to the module socket, as
 *   on v12 or without the QUERY_USER permission (foundryvtt/foundryvtt#11235).
 * - At most one live module-minted token per world and user: every token the
 *   module mints carries the label `foundry:<world>:<user>`, and minting a
 *   new one revokes the others with that label. A new one is minted only when
 *   the user's characters change or the old one is gone (revoked, expired);
 *   requests are rate-limited per user (repeats get the same boxes). A user
 *   who loses a character while offline has its token revoked at once.
 * - Nothing is minted or revoked before the GM's connection has its first
 *   view of the table: a request that comes earlier waits (no "no
 *   character" answer, no warning on the GM's screen) and is answered when
 *   the view arrives.
 *
 * Nothing here throws into Foundry: every async path ends in a catch.
 */

import { MODULE_ID, getSetting, setSetting, isActiveGM, t, storedEntry, storeToken } from "./settings.js";
import { newSecrets, publicKeys, isPublicKeys, seal, verify, open, canonical, b64, BOX_VERSION } from "./sealed.js";
import { notify } from "./notify.js";
import { SOCKET, hasGmDuties, currentElection } from "./sessions.js";

export { SOCKET };
export const QUERY_REQUEST = "vigil.requestToken";
export const QUERY_DELIVER = "vigil.deliverToken";
export const RETRY_MS = 30_000;
/** Below this, the GM answers a user's repeated requests with the same box. */
export const ANSWER_INTERVAL_MS = 5_000;
const QUERY_TIMEOUT_MS = 20_000;
/** Devices per user a token is sealed to (the most recently published). */
export const MAX_DEVICES = 4;
/** A token this close to its expiry is not handed out again: a new one is minted. */
const EXPIRY_MARGIN_S = 3600;
const DEVICE_PREFIX = "keys-";

/** Whether a token record (token.list) can still be used at Unix time `nowS`. Pure. */
export const isLive = (record, nowS) => !record.revoked && (record.expires === null || record.expires === undefined || record.expires > nowS + EXPIRY_MARGIN_S);

/** The key pairs a user's browsers published ([{device, box, sign, at}]),
 * newest first, at most MAX_DEVICES. Flags are anyone's guess: checked. */
export function deviceKeys(user) {
  const flags = user?.flags?.[MODULE_ID] ?? {};
  return Object.entries(flags)
    .filter(([k, v]) => k.startsWith(DEVICE_PREFIX) && isPublicKeys(v))
    .map(([k, v]) => ({ device: k.slice(DEVICE_PREFIX.length), box: v.box, sign: v.sign, at: Number(v.at) || 0 }))
    .sort((a, b) => b.at - a.at || (a.device < b.device ? -1 : 1))
    .slice(0, MAX_DEVICES);
}

const warn = (what) => (err) => console.warn(`vigil | ${what}`, err);

/** Foundry v13 has CONFIG.queries and User#query; v12 has neither. */
export function hasQueries(env = globalThis) {
  return typeof env.CONFIG?.queries === "object" && env.CONFIG.queries !== null
    && typeof env.game?.user?.query === "function";
}

/** The label of the token the module mints for a user of a world. */
export const tokenLabel = (game, userId) => `foundry:${game.world?.id ?? ""}:${userId}`.slice(0, 64);

/** Vigil characters whose Foundry actor `user` owns, sorted. */
export function charactersOf(state, user, game = globalThis.game) {
  const out = [];
  for (const [id, ch] of Object.entries(state?.characters ?? {})) {
    const actor = ch.actor_id ? game.actors?.get(ch.actor_id) : null;
    if (actor?.testUserPermission?.(user, "OWNER")) out.push(id);
  }
  return out.sort();
}

export class TokenDelivery {
  /**
   * @param {import("./connection.js").VigilConnection} connection
   * @param {object} [env] where Foundry's globals live (tests give each
   *   simulated browser its own)
   * @param {{now?: () => number, onToken?: () => void, election?: import("./sessions.js").SessionElection}} [opts]
   *   `election`: this page's (sessions.js) when not given
   */
  constructor(connection, env = globalThis, { now = () => Date.now(), onToken = () => connection.start?.(), election } = {}) {
    this.connection = connection;
    this.env = env;
    this.now = now;
    this.onToken = onToken;
    this.election = election;
    this._waiting = new Set(); // users who asked before the GM's first view
    this._timer = null;
    this._answers = new Map(); // user id → {at, box: the boxes} (GM's duties)
    this._minted = new Map(); // user id → {token, token_id, chars} (GM's duties)
    this._owners = ""; // who owns what, when last checked (GM's duties)
    this._toldNone = false;
  }

  get game() { return this.env.game; }

  /** Whether this browser does the active GM's duties (sessions.js). */
  duties() { return hasGmDuties(this.game, this.election); }

  /** Whether the GM's connection has its view of the table: before that,
   * nobody's characters are known and nothing may be minted or revoked. */
  ready() { return this.connection.status === "connected" && Boolean(this.connection.state); }

  /** Call in the "init" hook: v13 query handlers must exist before anyone asks. */
  registerQueries() {
    const queries = this.env.CONFIG?.queries;
    if (!queries) return;
    // The handlers learn nothing about who asked: the boxes say who they are for.
    queries[QUERY_DELIVER] = (data) => this.accept(data?.boxes ?? []).catch((err) => { warn("delivery refused")(err); return false; });
    queries[QUERY_REQUEST] = (data) => this.answer(data?.userId).catch((err) => { warn("request failed")(err); return null; });
  }

  /** Call in "ready". Never rejects. */
  async start() {
    try {
      const game = this.game;
      game.socket?.on?.(SOCKET, (msg, senderId) => { this._onSocket(msg, senderId).catch(warn("socket message")); });
      this.env.Hooks?.on?.("updateUser", (user, changed) => { this._onUserUpdate(user, changed).catch(warn("user update")); });
      this.env.Hooks?.on?.("updateActor", () => { this.checkOwners().catch(warn("ownership check")); });
      this.election ??= currentElection() ?? undefined;
      this.election?.addEventListener?.("lead", () => {
        this._owners = "";
        this.checkOwners().catch(warn("ownership check"));
        this._answerWaiting().catch(warn("waiting requests"));
      });
      this.connection.addEventListener?.("state", () => {
        this.checkOwners().catch(warn("ownership check"));
        this._answerWaiting().catch(warn("waiting requests"));
      });
      await this.publishKeys();
      if (!game.user.isGM && !storedEntry(game)) await this.request();
    } catch (err) {
      warn("token delivery could not start")(err);
    }
  }

  stop() { clearTimeout(this._timer); this._timer = null; }

  /** This browser's secrets for this world and user (made once, kept in a client setting). */
  async secrets() {
    const game = this.game;
    const slot = `${game.world?.id ?? ""}|${game.user.id}`;
    const all = getSetting("keys", game) ?? {};
    if (all[slot]?.box && all[slot]?.sign && all[slot]?.device) return all[slot];
    // The device id names this browser's flag key (no dots: a flag key path).
    const fresh = { ...newSecrets(), ...(all[slot]?.box ? all[slot] : {}), device: b64(globalThis.crypto.getRandomValues(new Uint8Array(9))).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]) };
    await setSetting("keys", { ...all, [slot]: fresh }, game);
    return fresh;
  }

  /** Publish this browser's public keys under its own flag key of the
   * user (if not already): two devices of one user never overwrite each other. */
  async publishKeys() {
    const game = this.game;
    const secrets = await this.secrets();
    const pub = publicKeys(secrets);
    const key = `${DEVICE_PREFIX}${secrets.device}`;
    const current = game.user.getFlag?.(MODULE_ID, key);
    if (!isPublicKeys(current) || current.box !== pub.box || current.sign !== pub.sign) await game.user.setFlag(MODULE_ID, key, { ...pub, at: this.now() });
    return pub;
  }

  /** A player asks the active GM for a token, and again every 30 s until one
   * arrives. Resolves to whether a token was stored; never rejects. */
  async request() {
    const game = this.game;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => { if (!storedEntry(game)) this.request(); }, RETRY_MS);
    this._timer?.unref?.();
    try {
      const gm = game.users.activeGM;
      if (!gm || !getSetting("serverUrl", game)) return false;
      const ask = { userId: game.user.id };
      if (hasQueries(this.env)) {
        try {
          // null: the session the query reached cannot answer (not the one
          // doing the GM's duties, or not connected yet): ask on the socket.
          const boxes = await gm.query(QUERY_REQUEST, ask, { timeout: QUERY_TIMEOUT_MS });
          if (boxes) return await this.accept(boxes);
        } catch (err) {
          warn("token query failed; asking on the module socket")(err);
        }
      }
      game.socket?.emit?.(SOCKET, { kind: "token-request", ...ask });
      return false;
    } catch (err) {
      warn("token request failed")(err);
      return false;
    }
  }

  /**
   * The GM's duties: the signed boxes for `userId` (a token sealed to each
   * device key in that user's flags), or null. Whoever asked gets boxes
   * only that user's browsers can open. Repeats within ANSWER_INTERVAL_MS
   * get the same boxes. Before the GM's first view of the table: null, and
   * the user is answered (pushed to) when the view arrives.
   */
  async answer(userId) {
    const game = this.game;
    if (!isActiveGM(game) || typeof userId !== "string") return null;
    const user = game.users.get(userId);
    if (!user || user.isGM || !deviceKeys(user).length) return null;
    // Another session of this user leads, or none does yet (sessions.js),
    // or the view has not come: answered when this session can.
    if (!this.duties() || !this.ready()) {
      this._waiting.add(userId);
      return null;
    }
    const last = this._answers.get(userId);
    if (last && this.now() - last.at < ANSWER_INTERVAL_MS) return last.box;
    const entry = { at: this.now(), box: null };
    this._answers.set(userId, entry); // set first: concurrent asks wait for the same work
    entry.box = this._boxFor(user);
    try {
      entry.box = await entry.box;
    } catch (err) {
      this._answers.delete(userId);
      throw err;
    }
    return entry.box;
  }

  async _boxFor(user) {
    const game = this.game;
    const chars = charactersOf(this.connection.state, user, game);
    const token = chars.length ? await this._tokenFor(user, chars) : await this._revokeAll(user);
    const claims = {
      world: game.world?.id ?? "",
      to: user.id,
      from: game.user.id,
      server: getSetting("serverUrl", game),
      iat: this.now(),
    };
    const secrets = await this.secrets();
    return deviceKeys(user).map((keys) => seal(keys, { token }, claims, secrets));
  }

  /** The live module-minted token for `user` with exactly `chars`: the one
   * minted before if it still lives, else a new one (the others revoked). */
  async _tokenFor(user, chars) {
    const game = this.game;
    const label = tokenLabel(game, user.id);
    const { result: records } = await this.connection.send({ type: "token.list" });
    const live = (records ?? []).filter((r) => r.label === label && isLive(r, this.now() / 1000) && r.role === "player");
    const mine = this._minted.get(user.id);
    if (mine && canonical(mine.chars) === canonical(chars) && live.some((r) => r.token_id === mine.token_id)) {
      for (const r of live) if (r.token_id !== mine.token_id) await this._revoke(r.token_id);
      return mine.token;
    }
    const { result } = await this.connection.send({ type: "token.mint", role: "player", chars, label });
    this._minted.set(user.id, { token: result.token, token_id: result.token_id, chars });
    for (const r of (records ?? []).filter((r) => r.label === label && !r.revoked)) await this._revoke(r.token_id);
    return result.token;
  }

  /** No character left: no live token either. Resolves to null (no token). */
  async _revokeAll(user) {
    const label = tokenLabel(this.game, user.id);
    const { result: records } = await this.connection.send({ type: "token.list" });
    for (const r of records ?? []) if (r.label === label && !r.revoked) await this._revoke(r.token_id);
    this._minted.delete(user.id);
    return null;
  }

  _revoke(tokenId) {
    return this.connection.send({ type: "token.revoke", token_id: tokenId }).catch(warn("revoke failed"));
  }

  /** GM's duties: when who owns which character changed, re-mint and push
   * to the active players concerned, and revoke at once the token of an
   * offline player who lost a character (it would stay valid until its next
   * login otherwise). What a player holds is what this browser minted for
   * it, or else (after a reload) the live token with its label. */
  async checkOwners() {
    const game = this.game;
    if (!this.duties() || !this.ready()) return;
    const players = (game.users.contents ?? []).filter((u) => !u.isGM);
    const now = players.map((u) => [u, charactersOf(this.connection.state, u, game)]);
    const owners = canonical(now.map(([u, chars]) => [u.id, u.active, chars]));
    if (owners === this._owners) return;
    this._owners = owners;
    let records = null;
    for (const [user, chars] of now) {
      let held = this._minted.get(user.id)?.chars;
      if (!held) {
        records ??= (await this.connection.send({ type: "token.list" })).result ?? [];
        held = records.find((r) => r.label === tokenLabel(game, user.id) && isLive(r, this.now() / 1000))?.chars;
      }
      if (!held || canonical([...held].sort()) === canonical(chars)) continue;
      this._answers.delete(user.id);
      if (user.active) await this.push(user.id);
      else if (held.some((c) => !chars.includes(c))) await this._revokeAll(user);
    }
  }

  /** Answer, once the GM's view has come, those who asked before it. */
  async _answerWaiting() {
    if (!this._waiting.size || !this.duties() || !this.ready()) return;
    const waiting = [...this._waiting];
    this._waiting.clear();
    for (const userId of waiting) if (this.game.users.get(userId)?.active) await this.push(userId);
  }

  /** GM's duties: send `userId` its boxes without being asked. A user on
   * several devices gets them on the module socket too: a v13 query
   * reaches only one of its sessions. */
  async push(userId) {
    const boxes = await this.answer(userId);
    if (!boxes) return false;
    const user = this.game.users.get(userId);
    if (hasQueries(this.env) && user?.query && boxes.length === 1) {
      try {
        return Boolean(await user.query(QUERY_DELIVER, { boxes }, { timeout: QUERY_TIMEOUT_MS }));
      } catch (err) {
        warn("token push by query failed; using the module socket")(err);
      }
    }
    this.game.socket?.emit?.(SOCKET, { kind: "token-delivery", to: userId, boxes });
    return true;
  }

  /**
   * Player: take a token from `boxes` (the boxes of a delivery, one per
   * device of this user) if, and only if, a GM of this world signed it for
   * this user and this server, it was sealed to this browser, and it is
   * newer than the token kept. Resolves to whether a token was stored.
   */
  async accept(boxes) {
    const game = this.game;
    const kept = storedEntry(game);
    const secrets = await this.secrets();
    for (const box of Array.isArray(boxes) ? boxes : [boxes]) {
      const c = box?.claims;
      if (box?.v !== BOX_VERSION || !c || c.to !== game.user.id || c.world !== (game.world?.id ?? "")) continue;
      if (c.server !== getSetting("serverUrl", game)) continue; // for another Vigil: ignored
      const sender = game.users.get(c.from);
      if (!sender?.isGM || !deviceKeys(sender).some((keys) => verify(box, keys))) {
        console.warn("vigil | a token box not signed by a GM was ignored");
        continue;
      }
      if (kept && !(c.iat > kept.iat)) continue; // a replayed or older box
      let token;
      try {
        ({ token } = open(box, secrets));
      } catch {
        continue; // sealed to another device of this user
      }
      return this._take(token, c.iat);
    }
    return false;
  }

  async _take(token, iat) {
    const game = this.game;
    const kept = storedEntry(game);
    if (!token) {
      if (!this._toldNone) notify("info", t("VIGIL.Notify.NoCharacter", undefined, game), this.env);
      this._toldNone = true;
      return false;
    }
    this._toldNone = false;
    clearTimeout(this._timer);
    if (kept?.token === token) return true;
    await storeToken(token, { iat, game });
    notify("info", t("VIGIL.Notify.TokenReceived", undefined, game), this.env);
    this.onToken();
    return true;
  }

  /** The server refused the kept token (revoked, expired): forget it, ask again. */
  async refused() {
    try {
      if (this.game.user.isGM) return; // the GM's pasted token: the GM decides
      await storeToken(null, { game: this.game });
      await this.request();
    } catch (err) {
      warn("could not ask for a new token")(err);
    }
  }

  /** Module socket messages; `senderId` is the sender's user id as
   * Foundry's server tells it: a request in another user's name is ignored. */
  async _onSocket(msg, senderId) {
    const game = this.game;
    if (msg?.kind === "token-request") {
      if (msg.userId !== senderId) return;
      const boxes = await this.answer(msg.userId);
      if (boxes) game.socket.emit(SOCKET, { kind: "token-delivery", to: msg.userId, boxes });
    } else if (msg?.kind === "token-delivery" && msg.to === game.user.id) {
      await this.accept(msg.boxes ?? []);
    }
  }

  /** GM's duties: a player who just published a device's keys gets its
   * boxes at once (its request may have arrived before the flag did). */
  async _onUserUpdate(user, changed) {
    const published = Object.keys(changed?.flags?.[MODULE_ID] ?? {}).some((k) => k.startsWith(DEVICE_PREFIX));
    if (!this.duties() || user?.isGM || !published || !user.active) return;
    this._answers.delete(user.id);
    await this.push(user.id);
  }
}
