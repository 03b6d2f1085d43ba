/**
 * Players get their own Vigil token without copying strings (DESIGN
 * "Security"). The active GM's client mints it (token.mint, role player,
 * with the player's linked characters) and delivers it to that user only:
 *
 * - Foundry v13: a query addressed to that user (`user.query`, handled by
 *   `CONFIG.queries["vigil.deliverToken"]` in the player's browser). The
 *   player asks with a query to the active GM.
 * - Foundry v12 (no queries; the module socket reaches every client): the
 *   player's browser generates an ECDH key pair and publishes the public key
 *   in its own User flags — which only that user (or a GM) can write, so a
 *   player cannot substitute its key for another's — and the GM seals the
 *   token to that key (sealed.js). Other players see only ciphertext.
 */

import { MODULE_ID, getSetting, setSetting, isActiveGM, t } from "./settings.js";
import { generateKeyPair, seal, open } from "./sealed.js";

export const SOCKET = `module.${MODULE_ID}`;
export const QUERY_REQUEST = "vigil.requestToken";
export const QUERY_DELIVER = "vigil.deliverToken";
const RETRY_MS = 30_000;

/** Foundry v13 has CONFIG.queries and User#query; v12 has neither. */
export function hasQueries(env = globalThis) {
  return typeof env.CONFIG?.queries === "object" && env.CONFIG.queries !== null
    && typeof env.game?.user?.query === "function";
}

/** The context a sealed token is bound to (world and recipient). */
export const sealContext = (game, userId) => `vigil-token-v1|${game.world?.id ?? ""}|${userId}`;

/** Vigil characters whose Foundry actor `user` owns. */
export function charactersOf(state, user, game = globalThis.game) {
  const out = [];
  for (const [id, ch] of Object.entries(state?.characters ?? {})) {
    const actor = ch.actor_id ? game.actors?.get(ch.actor_id) : null;
    if (actor?.testUserPermission?.(user, "OWNER")) out.push(id);
  }
  return out;
}

export class TokenDelivery {
  /**
   * @param {import("./connection.js").VigilConnection} connection
   * @param {object} [env] where Foundry's globals live (tests give each
   *   simulated browser its own)
   */
  constructor(connection, env = globalThis) {
    this.connection = connection;
    this.env = env;
    this.keys = null;
    this._timer = null;
  }

  /** Call in the "init" hook: v13 query handlers must exist before anyone asks. */
  registerQueries() {
    const queries = this.env.CONFIG?.queries;
    if (!queries) return;
    queries[QUERY_DELIVER] = async (data, { user } = {}) => {
      // Only a GM may hand this browser a token.
      if (!user?.isGM || typeof data?.token !== "string") return false;
      await this._store(data.token);
      return true;
    };
    queries[QUERY_REQUEST] = async (_data, { user } = {}) => {
      if (!isActiveGM(this.env.game) || !user) return false;
      return this.deliverTo(user);
    };
  }

  /** Call in "ready". */
  async start() {
    const game = this.env.game;
    game.socket?.on?.(SOCKET, (msg) => this._onSocket(msg).catch((err) => console.warn("vigil |", err)));
    if (!game.user.isGM && !getSetting("accessToken", game)) await this.request();
  }

  /** A player asks the active GM for a token, and again every 30 s until one arrives. */
  async request() {
    const game = this.env.game;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => { if (!getSetting("accessToken", game)) this.request(); }, RETRY_MS);
    this._timer?.unref?.();
    const gm = game.users.activeGM;
    if (!gm) return false;
    if (hasQueries(this.env)) {
      try {
        return await gm.query(QUERY_REQUEST, {}, { timeout: 20_000 });
      } catch (err) {
        console.warn("vigil | token request failed", err);
        return false;
      }
    }
    if (!this.keys) this.keys = await generateKeyPair();
    await game.user.setFlag(MODULE_ID, "pubkey", this.keys.publicJwk);
    game.socket.emit(SOCKET, { kind: "token-request", userId: game.user.id });
    return true;
  }

  /** Active GM: mint a player token for `user` and deliver it to them only. */
  async deliverTo(asker) {
    const game = this.env.game;
    const user = game.users.get(asker.id) ?? asker;
    if (!isActiveGM(game) || user.isGM) return false;
    const chars = charactersOf(this.connection.state, user, game);
    if (!chars.length) return false;
    const { result } = await this.connection.send({ type: "token.mint", role: "player", chars, label: `foundry:${user.name}`.slice(0, 64) });
    if (hasQueries(this.env)) {
      return Boolean(await user.query(QUERY_DELIVER, { token: result.token }, { timeout: 20_000 }));
    }
    const jwk = user.getFlag(MODULE_ID, "pubkey");
    if (!jwk) return false;
    const box = await seal(jwk, { token: result.token }, sealContext(game, user.id));
    game.socket.emit(SOCKET, { kind: "token-delivery", to: user.id, box });
    return true;
  }

  async _onSocket(msg) {
    const game = this.env.game;
    if (msg?.kind === "token-request" && isActiveGM(game)) {
      const user = game.users.get(msg.userId);
      if (user) await this.deliverTo(user);
    } else if (msg?.kind === "token-delivery" && msg.to === game.user.id && this.keys) {
      const { token } = await open(this.keys.privateKey, msg.box, sealContext(game, game.user.id));
      await this._store(token);
    }
  }

  async _store(token) {
    clearTimeout(this._timer);
    await setSetting("accessToken", token, this.env.game);
    this.env.ui?.notifications?.info(t("VIGIL.Notify.TokenReceived", undefined, this.env.game));
  }

  stop() { clearTimeout(this._timer); }
}
