/**
 * Players get their own Vigil token without copying strings (docs/design.md
 * "Security"). The active GM's client mints it (token.mint, role player,
 * with the player's linked characters) and hands it over sealed and signed
 * (sealed.js), so it does not matter who else can read the channel:
 *
 * - Foundry tells a module neither who sent a socket message nor who sent a
 *   v13 query (handlers get `(queryData, {timeout})`: foundryvtt/foundryvtt
 *   #13418). So nobody is trusted for who they say they are: a request only
 *   names a user id, and the answer is sealed to the key published in THAT
 *   user's flag (writable only by that user or a GM). Whoever asked, only
 *   that user's browser can open it.
 * - The box is signed by the GM's key (published in the GM's own flag) and
 *   its claims name world, recipient, server and time: a box a player made,
 *   or an old one replayed, is refused.
 * - Transport: on v13 the player asks the active GM with a query (the answer
 *   is the query's result) and the GM pushes re-minted tokens with a query
 *   to that user; on v12, or when a query fails (e.g. no QUERY_USER
 *   permission: foundryvtt/foundryvtt#11235), the module socket, which
 *   reaches every other client.
 * - At most one live module-minted token per world and user: every token the
 *   module mints carries the label `foundry:<world>:<user>`, and minting a
 *   new one revokes the others with that label. A new one is minted only when
 *   the user's characters change or the old one is gone; requests are
 *   rate-limited per user (repeats get the same box).
 *
 * Nothing here throws into Foundry: every async path ends in a catch.
 */

import { MODULE_ID, getSetting, setSetting, isActiveGM, t, storedEntry, storeToken } from "./settings.js";
import { newSecrets, publicKeys, isPublicKeys, seal, verify, open, canonical, BOX_VERSION } from "./sealed.js";

export const SOCKET = `module.${MODULE_ID}`;
export const QUERY_REQUEST = "vigil.requestToken";
export const QUERY_DELIVER = "vigil.deliverToken";
export const RETRY_MS = 30_000;
/** Below this, the GM answers a user's repeated requests with the same box. */
export const ANSWER_INTERVAL_MS = 5_000;
const QUERY_TIMEOUT_MS = 20_000;

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
   * @param {{now?: () => number, onToken?: () => void}} [opts]
   */
  constructor(connection, env = globalThis, { now = () => Date.now(), onToken = () => connection.start?.() } = {}) {
    this.connection = connection;
    this.env = env;
    this.now = now;
    this.onToken = onToken;
    this._timer = null;
    this._answers = new Map(); // user id → {at, box} (active GM)
    this._minted = new Map(); // user id → {token, token_id, chars} (active GM)
    this._owners = ""; // who owns what, when last checked (active GM)
    this._toldNone = false;
  }

  get game() { return this.env.game; }

  /** Call in the "init" hook: v13 query handlers must exist before anyone asks. */
  registerQueries() {
    const queries = this.env.CONFIG?.queries;
    if (!queries) return;
    // The handlers learn nothing about who asked: the box says who it is for.
    queries[QUERY_DELIVER] = (data) => this.accept(data?.box).catch((err) => { warn("delivery refused")(err); return false; });
    queries[QUERY_REQUEST] = (data) => this.answer(data?.userId).catch((err) => { warn("request failed")(err); return null; });
  }

  /** Call in "ready". Never rejects. */
  async start() {
    try {
      const game = this.game;
      game.socket?.on?.(SOCKET, (msg) => { this._onSocket(msg).catch(warn("socket message")); });
      this.env.Hooks?.on?.("updateUser", (user, changed) => { this._onUserUpdate(user, changed).catch(warn("user update")); });
      this.env.Hooks?.on?.("updateActor", () => { this.checkOwners().catch(warn("ownership check")); });
      this.connection.addEventListener?.("state", () => { this.checkOwners().catch(warn("ownership check")); });
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
    if (all[slot]?.box && all[slot]?.sign) return all[slot];
    const fresh = newSecrets();
    await setSetting("keys", { ...all, [slot]: fresh }, game);
    return fresh;
  }

  /** Publish this browser's public keys in the user's own flag (if not already). */
  async publishKeys() {
    const game = this.game;
    const pub = publicKeys(await this.secrets());
    const current = game.user.getFlag?.(MODULE_ID, "keys");
    if (canonical(current ?? null) !== canonical(pub)) await game.user.setFlag(MODULE_ID, "keys", pub);
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
          const box = await gm.query(QUERY_REQUEST, ask, { timeout: QUERY_TIMEOUT_MS });
          if (box) return await this.accept(box);
          return false;
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
   * Active GM: the signed box for `userId` (a token sealed to the keys in
   * that user's flag), or null. Whoever asked gets a box only that user can
   * open. Repeats within ANSWER_INTERVAL_MS get the same box.
   */
  async answer(userId) {
    const game = this.game;
    if (!isActiveGM(game) || typeof userId !== "string") return null;
    const user = game.users.get(userId);
    if (!user || user.isGM || !isPublicKeys(user.getFlag?.(MODULE_ID, "keys"))) return null;
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
    return seal(user.getFlag(MODULE_ID, "keys"), { token }, claims, await this.secrets());
  }

  /** The live module-minted token for `user` with exactly `chars`: the one
   * minted before if it still lives, else a new one (the others revoked). */
  async _tokenFor(user, chars) {
    const game = this.game;
    const label = tokenLabel(game, user.id);
    const { result: records } = await this.connection.send({ type: "token.list" });
    const live = (records ?? []).filter((r) => r.label === label && !r.revoked && r.role === "player");
    const mine = this._minted.get(user.id);
    if (mine && canonical(mine.chars) === canonical(chars) && live.some((r) => r.token_id === mine.token_id)) {
      for (const r of live) if (r.token_id !== mine.token_id) await this._revoke(r.token_id);
      return mine.token;
    }
    const { result } = await this.connection.send({ type: "token.mint", role: "player", chars, label });
    this._minted.set(user.id, { token: result.token, token_id: result.token_id, chars });
    for (const r of live) await this._revoke(r.token_id);
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

  /** Active GM: when who owns which character changed, re-mint and push to
   * the active players concerned. What a player holds is what this client
   * minted for it, or else (after a reload) the live token with its label. */
  async checkOwners() {
    const game = this.game;
    if (!isActiveGM(game) || this.connection.status !== "connected" || !this.connection.state) return;
    const players = (game.users.contents ?? []).filter((u) => !u.isGM && u.active);
    const now = players.map((u) => [u, charactersOf(this.connection.state, u, game)]);
    const owners = canonical(now.map(([u, chars]) => [u.id, chars]));
    if (owners === this._owners) return;
    this._owners = owners;
    let records = null;
    for (const [user, chars] of now) {
      let held = this._minted.get(user.id)?.chars;
      if (!held) {
        records ??= (await this.connection.send({ type: "token.list" })).result ?? [];
        held = records.find((r) => r.label === tokenLabel(game, user.id) && !r.revoked)?.chars;
      }
      if (!held || canonical([...held].sort()) === canonical(chars)) continue;
      this._answers.delete(user.id);
      await this.push(user.id);
    }
  }

  /** Active GM: send `userId` its box without being asked. */
  async push(userId) {
    const box = await this.answer(userId);
    if (!box) return false;
    const user = this.game.users.get(userId);
    if (hasQueries(this.env) && user?.query) {
      try {
        return Boolean(await user.query(QUERY_DELIVER, { box }, { timeout: QUERY_TIMEOUT_MS }));
      } catch (err) {
        warn("token push by query failed; using the module socket")(err);
      }
    }
    this.game.socket?.emit?.(SOCKET, { kind: "token-delivery", box });
    return true;
  }

  /**
   * Player: take a box if, and only if, a GM of this world signed it for
   * this user and this server, and it is newer than the token kept.
   * Resolves to whether a token was stored.
   */
  async accept(box) {
    const game = this.game;
    const c = box?.claims;
    if (box?.v !== BOX_VERSION || !c || c.to !== game.user.id || c.world !== (game.world?.id ?? "")) return false;
    if (c.server !== getSetting("serverUrl", game)) return false; // for another Vigil: ignored
    const sender = game.users.get(c.from);
    if (!sender?.isGM || !verify(box, sender.getFlag?.(MODULE_ID, "keys"))) {
      console.warn("vigil | a token box not signed by a GM was ignored");
      return false;
    }
    const kept = storedEntry(game);
    if (kept && !(c.iat > kept.iat)) return false; // a replayed or older box
    const { token } = open(box, await this.secrets());
    if (!token) {
      if (!this._toldNone) this.env.ui?.notifications?.info(t("VIGIL.Notify.NoCharacter", undefined, game));
      this._toldNone = true;
      return false;
    }
    this._toldNone = false;
    clearTimeout(this._timer);
    if (kept?.token === token) return true;
    await storeToken(token, { iat: c.iat, game });
    this.env.ui?.notifications?.info(t("VIGIL.Notify.TokenReceived", undefined, game));
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

  async _onSocket(msg) {
    const game = this.game;
    if (msg?.kind === "token-request" && isActiveGM(game)) {
      const box = await this.answer(msg.userId);
      if (box) game.socket.emit(SOCKET, { kind: "token-delivery", box });
    } else if (msg?.kind === "token-delivery" && msg.box?.claims?.to === game.user.id) {
      await this.accept(msg.box);
    }
  }

  /** Active GM: a player who just published its keys gets its box at once
   * (its request may have arrived before the flag did). */
  async _onUserUpdate(user, changed) {
    if (!isActiveGM(this.game) || user?.isGM || !changed?.flags?.[MODULE_ID]?.keys || !user.active) return;
    this._answers.delete(user.id);
    await this.push(user.id);
  }
}
