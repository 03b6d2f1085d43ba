/**
 * A fake Foundry world with several browsers, for what crosses between them:
 * User flags, settings, the module socket and v13 queries. Each behaviour
 * names the public source it follows; nothing here does what Foundry does
 * not (no sender on a query, no synchronous world settings, no flag
 * written by someone who may not, no world setting written by an Assistant).
 *
 * Sources (public; never Foundry's own code or packages derived from it):
 * [wiki-sockets]  https://foundryvtt.wiki/en/development/api/sockets
 * [i13418]        https://github.com/foundryvtt/foundryvtt/issues/13418
 * [i11235]        https://github.com/foundryvtt/foundryvtt/issues/11235
 * [api-settings]  https://foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html
 *                 and TyphonJS's CoreSetting docs ("client uses local storage,
 *                 world is saved in Foundry DB for the World / only accessible
 *                 by GM for modification"):
 *                 https://typhonjs-fvtt-lib.github.io/api-docs/interfaces/_runtime_svelte_store_fvtt_settings.TJSGameSettings.Options.CoreSetting.html
 * [api-user]      https://foundryvtt.com/api/classes/foundry.documents.User.html
 * [kb-users]      https://foundryvtt.com/article/users/ (roles; GM administers users)
 * [api-hooks]     https://foundryvtt.com/api/functions/hookEvents.updateDocument.html
 * [mdn-secure]    https://developer.mozilla.org/en-US/docs/Web/API/Web_Crypto_API
 *                 (SubtleCrypto: secure contexts only; getRandomValues everywhere)
 * [mdn-storage]   https://developer.mozilla.org/en-US/docs/Web/API/Window/localStorage
 *                 (per origin)
 * [socketlib]     farling42/foundryvtt-socketlib src/socketlib.js: the module
 *                 socket handler is `_onSocketReceived(message, senderId)`,
 *                 the sender's user id set by Foundry's server; socketlib
 *                 drops a response whose senderId is not the recipient.
 * [i11242]        https://github.com/foundryvtt/foundryvtt/issues/11242,
 *                 #11678: activeGM is a full Gamemaster when one is active,
 *                 an Assistant only when none is; an Assistant may not modify
 *                 world settings unless given SETTINGS_MODIFY.
 * [i9425]         https://github.com/foundryvtt/foundryvtt/issues/9425, #14728
 *                 (and socketlib#3): one user may be logged in from two
 *                 browsers or tabs at once; each is a client of its own.
 */

import { FakeHooks, FakeNotifications, fakeI18n } from "./foundry.mjs";

/** One server round trip: a document or setting change reaches clients
 * only after the server broadcast it [api-hooks]. */
const roundTrip = () => new Promise((r) => setTimeout(r, 1));

/** A User document as one browser sees it [api-user]. Writes go through the
 * world (the server), which checks who may write them. */
class WorldUser {
  constructor(world, browser, source) {
    this._world = world;
    this._browser = browser;
    this.id = source.id;
    this.name = source.name;
    this.isGM = source.isGM; // true for Assistant and Game Master roles [kb-users]
    this.assistant = source.assistant; // the Assistant GM role [i11242]
    this.flags = structuredClone(source.flags);
  }

  get active() { return this._world.isActive(this.id); }

  getFlag(scope, key) { return this.flags[scope]?.[key]; }

  /** Only the user itself or a GM may update a User document [kb-users]
   * ("GM administers users"; a player edits its own configuration); every
   * client sees the change after the round trip, with an updateUser hook
   * [api-hooks]. */
  async setFlag(scope, key, value) {
    return this._world.updateUser(this._browser, this.id, { flags: { [scope]: { [key]: value } } });
  }

  /** v13: run a handler of CONFIG.queries in this user's browser and resolve
   * to its result [wiki-sockets]. The handler is called with the data and
   * `{timeout}` only: it is not told who asked [i13418]. Querying another
   * user needs the QUERY_USER permission [i11235]. */
  async query(name, data, { timeout } = {}) {
    if (this._browser.version < 13) throw new Error("User#query is new in v13");
    const asker = this._browser;
    if (!asker.game.user.isGM && !this._world.playersMayQuery) throw new Error("You do not have permission QUERY_USER");
    await roundTrip();
    // A user logged in twice [i9425]: which session Foundry's server picks
    // is not documented; here the first (the module must not depend on it).
    const target = this._world.browsers.find((b) => b.game.user.id === this.id);
    const handler = target?.CONFIG.queries[name];
    if (!handler) throw new Error(`no query handler ${name} for user ${this.id}`);
    const result = await handler(structuredClone(data), { timeout });
    await roundTrip();
    return structuredClone(result ?? null);
  }
}

/** game.settings for one browser [api-settings]. */
class WorldSettings {
  constructor(world, browser) {
    this._world = world;
    this._browser = browser;
    this.specs = new Map();
  }

  register(module, key, spec) { this.specs.set(`${module}.${key}`, spec); }

  _spec(module, key) {
    const spec = this.specs.get(`${module}.${key}`);
    if (!spec) throw new Error(`setting ${module}.${key} is not registered`);
    return spec;
  }

  /** client: from this origin's localStorage [mdn-storage]; world: the
   * world's database, as last broadcast [api-settings]. */
  get(module, key) {
    const spec = this._spec(module, key);
    const id = `${module}.${key}`;
    const store = spec.scope === "client" ? this._world.storage(this._browser.origin) : this._browser.worldSettings;
    return store.has(id) ? structuredClone(store.get(id)) : structuredClone(spec.default);
  }

  async set(module, key, value) {
    const spec = this._spec(module, key);
    const id = `${module}.${key}`;
    if (spec.scope === "client") {
      // localStorage, this browser only; onChange here only [api-settings].
      this._world.storage(this._browser.origin).set(id, structuredClone(value));
      spec.onChange?.(structuredClone(value));
      return value;
    }
    // World settings: only a full GM may change them (an Assistant only when
    // granted SETTINGS_MODIFY [i11242]); the value changes on every client
    // (onChange on every client) once the server broadcast it.
    const user = this._browser.game.user;
    if (!user.isGM || (user.assistant && !this._world.assistantsMayModifySettings)) throw new Error("only a GM may modify world settings");
    await roundTrip();
    this._world.worldDB.set(id, structuredClone(value));
    for (const b of this._world.browsers) {
      b.worldSettings.set(id, structuredClone(value));
      b.game.settings.specs.get(id)?.onChange?.(structuredClone(value));
    }
    return value;
  }
}

export class FakeWorld {
  /**
   * @param {{id?: string, users: {id: string, name: string, isGM?: boolean}[], lang: object, actors?: object[], playersMayQuery?: boolean}} opts
   */
  constructor({ id = "test-world", users, lang, actors = [], playersMayQuery = true, assistantsMayModifySettings = false }) {
    this.id = id;
    this.lang = lang;
    this.actors = actors;
    this.playersMayQuery = playersMayQuery; // QUERY_USER given to players [i11235]
    this.assistantsMayModifySettings = assistantsMayModifySettings; // SETTINGS_MODIFY [i11242]
    this.sources = new Map(users.map((u) => [u.id, { id: u.id, name: u.name, isGM: Boolean(u.isGM || u.assistant), assistant: Boolean(u.assistant), flags: {} }]));
    this.browsers = [];
    this.origins = new Map();
    this.socketLog = [];
    this.worldDB = new Map(); // world settings as stored by the server
  }

  storage(origin) {
    if (!this.origins.has(origin)) this.origins.set(origin, new Map());
    return this.origins.get(origin);
  }

  isActive(userId) { return this.browsers.some((b) => b.game.user.id === userId); }

  /** game.users.activeGM: an active GM, the same one on every client
   * [api-user "activeGM"], a full Gamemaster before an Assistant [i11242];
   * among equals here the first logged in (not documented; the module does
   * not depend on it). Foundry elects a USER: with that user logged in
   * twice [i9425], both sessions see themselves as the active GM. */
  activeGM(browser) {
    const gms = this.browsers.map((b) => b.game.user).filter((u) => u.isGM);
    const first = gms.find((u) => !u.assistant) ?? gms[0];
    return first ? browser.game.users.get(first.id) : null;
  }

  /** A browser closes (the tab, or the user logs out). */
  leave(browser) {
    this.browsers = this.browsers.filter((b) => b !== browser);
  }

  async updateUser(fromBrowser, userId, changed) {
    const actor = fromBrowser.game.user;
    if (actor.id !== userId && !actor.isGM) throw new Error(`User ${actor.name} lacks permission to update User ${userId}`);
    await roundTrip();
    const src = this.sources.get(userId);
    for (const [scope, vals] of Object.entries(changed.flags ?? {})) Object.assign((src.flags[scope] ??= {}), structuredClone(vals));
    for (const b of this.browsers) {
      const copy = b.game.users.get(userId);
      copy.flags = structuredClone(src.flags);
      b.Hooks.callAll("updateUser", copy, structuredClone(changed), {}, actor.id);
    }
    return fromBrowser.game.users.get(userId);
  }

  /**
   * A browser logged in as `userId`.
   * @param {{origin?: string, version?: 12|13, secure?: boolean}} opts
   *   `secure: false` stands for a page served over plain HTTP on a LAN name
   *   or address: no crypto.subtle there [mdn-secure].
   */
  browser(userId, { origin = "http://foundry.test:30000", version = 13, secure = true } = {}) {
    const b = { origin, version, secure, worldSettings: new Map(structuredClone([...this.worldDB])), Hooks: new FakeHooks(), ui: { notifications: new FakeNotifications() } };
    b.CONFIG = version >= 13 ? { queries: {} } : {};
    const users = [...this.sources.values()].map((s) => new WorldUser(this, b, s));
    const socketHandlers = new Map();
    b.game = {
      world: { id: this.id },
      user: users.find((u) => u.id === userId),
      users: {
        contents: users,
        get: (id) => users.find((u) => u.id === id),
        get activeGM() { return world.activeGM(b); },
      },
      i18n: fakeI18n(this.lang),
      actors: { get: (id) => this.actors.find((a) => a.id === id) },
      combats: { contents: [] },
      modules: new Map([["vigil", {}]]),
      time: { worldTime: 0 },
      // Module socket: reaches every OTHER connected client, not the
      // sender [wiki-sockets]; the handler gets the sender's user id
      // [socketlib] (another session of the same user hears it too [i9425]).
      socket: {
        on: (event, fn) => socketHandlers.set(event, [...(socketHandlers.get(event) ?? []), fn]),
        emit: (event, data) => {
          this.socketLog.push({ from: userId, event, data: structuredClone(data) });
          setTimeout(() => {
            for (const other of this.browsers) if (other !== b) for (const fn of other.socketHandlers.get(event) ?? []) fn(structuredClone(data), userId);
          }, 1);
        },
      },
    };
    b.socketHandlers = socketHandlers;
    b.game.settings = new WorldSettings(this, b);
    const world = this;
    // v12 has no CONFIG.queries nor User#query [wiki-sockets: "the v13 feature"].
    if (version < 13) for (const u of users) u.query = undefined;
    // The real crypto, taken now: the page's own globalThis.crypto may be this one.
    const real = globalThis.crypto;
    b.crypto = secure ? real : { getRandomValues: (a) => real.getRandomValues(a) };
    this.browsers.push(b);
    return b;
  }
}

const GLOBALS = ["Hooks", "game", "ui", "CONFIG"];

/** Make `browser` the current one (its globals on globalThis, and its
 * crypto: without `subtle` on an insecure origin), run `fn`, restore. */
export async function as(browser, fn) {
  const saved = GLOBALS.map((k) => [k, globalThis[k]]);
  const savedCrypto = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  for (const k of GLOBALS) globalThis[k] = browser[k];
  Object.defineProperty(globalThis, "crypto", { value: browser.crypto, configurable: true, writable: true });
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) globalThis[k] = v;
    Object.defineProperty(globalThis, "crypto", savedCrypto);
  }
}
