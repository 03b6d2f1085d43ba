/**
 * Small fakes of Foundry's globals (Hooks, game, canvas, Token, ui, CONFIG,
 * ChatMessage) for ONE browser — only what the module touches, with the
 * signatures of Foundry's public documentation. What crosses between
 * browsers (flags, world settings, socket, v13 queries) is in world.mjs,
 * which cites its sources. `install()` puts them on globalThis, as Foundry
 * does; `uninstall()` removes them.
 *
 * Sources: hooks and their arguments, https://foundryvtt.com/api/modules/hookEvents.html
 * (drawToken, refreshToken, destroyToken, canvasPan, renderTokenHUD,
 * updateCombat, updateWorldTime); settings.register's options,
 * https://foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html;
 * Token#isPreview ("a preview clone during drag", used as a guard by
 * other modules' open code, e.g. League of Foundry Developers' libWrapper
 * users and the Token Auras module's drawToken hook).
 */

import { Container } from "./pixi.mjs";

export class FakeHooks {
  constructor() { this.handlers = new Map(); }
  on(name, fn) {
    if (!this.handlers.has(name)) this.handlers.set(name, []);
    this.handlers.get(name).push(fn);
    return this.handlers.get(name).length;
  }
  once(name, fn) { return this.on(name, fn); }
  callAll(name, ...args) {
    for (const fn of this.handlers.get(name) ?? []) fn(...args);
    return true;
  }
  count(name) { return (this.handlers.get(name) ?? []).length; }
}

export class FakeSettings {
  constructor() { this.specs = new Map(); this.values = new Map(); }
  register(module, key, spec) { this.specs.set(`${module}.${key}`, spec); this.values.set(`${module}.${key}`, spec.default); }
  get(module, key) {
    if (!this.specs.has(`${module}.${key}`)) throw new Error(`setting ${module}.${key} is not registered`);
    return this.values.get(`${module}.${key}`);
  }
  /** A world setting may only be changed by a GM (world.mjs [api-settings]). */
  async set(module, key, value) {
    if (this.specs.get(`${module}.${key}`)?.scope === "world" && this.user && !this.user.isGM) throw new Error("only a GM may modify world settings");
    this.values.set(`${module}.${key}`, value);
    this.specs.get(`${module}.${key}`)?.onChange?.(value);
    return value;
  }
}

export class FakeUser {
  constructor({ id, name, isGM = false, active = true }) {
    Object.assign(this, { id, name, isGM, active, flags: {} });
    this.queries = [];
  }
  getFlag(scope, key) { return this.flags[scope]?.[key]; }
  async setFlag(scope, key, value) { (this.flags[scope] ??= {})[key] = value; return this; }
}

/** A fake socket hub: emit reaches every OTHER client's handlers, as
 * Foundry's module socket does (the sender does not hear itself). */
export class SocketHub {
  constructor() { this.clients = []; this.log = []; }
  socketFor(owner) {
    const sock = {
      handlers: new Map(),
      on: (event, fn) => { sock.handlers.set(event, [...(sock.handlers.get(event) ?? []), fn]); },
      emit: (event, data) => {
        this.log.push({ from: owner, event, data: structuredClone(data) });
        for (const other of this.clients) if (other !== sock) for (const fn of other.handlers.get(event) ?? []) fn(structuredClone(data));
      },
    };
    this.clients.push(sock);
    return sock;
  }
}

export class FakeNotifications {
  constructor() { this.messages = []; }
  info(m) { this.messages.push(["info", m]); }
  warn(m) { this.messages.push(["warn", m]); }
  error(m) { this.messages.push(["error", m]); }
}

/** i18n reading the module's real en.json. */
export function fakeI18n(lang) {
  const fmt = (s, p) => s.replace(/\{(\w+)\}/g, (w, k) => (p?.[k] === undefined ? w : String(p[k])));
  return {
    has: (k) => typeof lang[k] === "string",
    localize: (k) => lang[k] ?? k,
    format: (k, p) => (typeof lang[k] === "string" ? fmt(lang[k], p) : k),
  };
}

/** A Token placeable: a PIXI container with a document, w/h, isVisible. */
export class FakeToken extends Container {
  constructor({ id, actorId, actorLink = true, w = 100, h = 100, isVisible = true, name = "Token", isPreview = false }) {
    super();
    this.isPreview = isPreview;
    this.document = { id, actorId, actorLink, name, actor: { name, hasPlayerOwner: true } };
    this.id = id;
    this.w = w;
    this.h = h;
    this.isVisible = isVisible;
  }
}

/** The clone Foundry draws while a token is dragged: same document and id,
 * `isPreview` true; it fires drawToken, refreshToken and destroyToken like
 * any token (Token#isPreview, https://foundryvtt.com/api/classes/foundry.canvas.placeables.Token.html;
 * guarded in other modules' open code, e.g. drawToken handlers that return
 * early on token.isPreview). */
export function dragPreview(token) {
  const clone = new FakeToken({ id: token.id, actorId: token.document.actorId, w: token.w, h: token.h, isPreview: true });
  clone.document = token.document;
  return clone;
}

/**
 * ApplicationV2 as the module uses it: render({force}) builds with
 * _renderHTML and inserts with _replaceHTML, `rendered` is true once shown,
 * close() hides it. Documented at
 * https://foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html
 * (v12 and v13). `FakeApplicationV2.shown` counts windows in the page.
 */
export class FakeApplicationV2 {
  static shown = new Set();
  constructor(options = {}) {
    this.options = { ...this.constructor.DEFAULT_OPTIONS, ...options };
    this.rendered = false;
    this.content = null;
    this.renders = 0;
  }
  get id() { return this.options.id; }
  async render(options = {}) {
    if (!this.rendered && !options.force) return this;
    const result = await this._renderHTML({}, options);
    this.content ??= { replaceChildren: (...nodes) => { this.content.children = nodes; }, children: [], querySelectorAll: () => [] };
    this._replaceHTML(result, this.content, options);
    this.rendered = true;
    this.renders += 1;
    FakeApplicationV2.shown.add(this);
    return this;
  }
  async close() { this.rendered = false; FakeApplicationV2.shown.delete(this); return this; }
}

export function fakeCanvas(tokens = [], zoom = 1) {
  const tickerFns = new Set();
  return {
    stage: { scale: { x: zoom, y: zoom } },
    tokens: { placeables: tokens },
    app: { ticker: { add: (fn) => tickerFns.add(fn), remove: (fn) => tickerFns.delete(fn), fns: tickerFns } },
  };
}

/** Build a game for one user among `users`; `activeGM` is who Foundry elects. */
export function fakeGame({ user, users, activeGM, lang, socket, actors = [], worldTime = 0 }) {
  // Each browser has its own User objects (as in Foundry); flags are shared,
  // standing in for the server syncing documents between browsers.
  const own = new Map(users.map((u) => [u.id, Object.assign(Object.create(Object.getPrototypeOf(u)), u)]));
  users = [...own.values()];
  user = own.get(user.id);
  activeGM = activeGM ? own.get(activeGM.id) : null;
  const usersColl = {
    contents: users,
    get: (id) => users.find((u) => u.id === id),
    activeGM,
  };
  const game = {
    user,
    users: usersColl,
    settings: new FakeSettings(),
    i18n: fakeI18n(lang),
    socket,
    world: { id: "test-world" },
    time: { worldTime },
    actors: { get: (id) => actors.find((a) => a.id === id) },
    combats: { contents: [] },
    modules: new Map([["vigil", {}]]),
  };
  game.settings.user = user;
  return game;
}

const GLOBALS = ["Hooks", "game", "canvas", "ui", "CONFIG", "ChatMessage", "foundry"];

/** Put a browser's Foundry globals in place (tests run one "browser" at a time). */
export function install(env) {
  for (const k of GLOBALS) if (k in env) globalThis[k] = env[k];
}

export function uninstall() {
  for (const k of GLOBALS) delete globalThis[k];
}
