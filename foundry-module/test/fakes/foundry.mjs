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
 *
 * [i12440]  https://github.com/foundryvtt/foundryvtt/issues/12440 — the
 *           Token HUD opens only for a token's owners and GMs (the issue asks
 *           for a stripped-down HUD for non-owners because there is none).
 * [i11242]  https://github.com/foundryvtt/foundryvtt/issues/11242 and #11678
 *           — `Users#activeGM` returns a full Gamemaster when one is active,
 *           an Assistant only when none is; an Assistant may not modify
 *           world settings unless granted SETTINGS_MODIFY.
 * [appv2]   https://foundryvtt.com/api/interfaces/foundry.applications.types.ApplicationWindowRenderOptions.html
 *           — the frame's title is drawn when the frame is created; a later
 *           render changes it only when asked: `render({window: {title}})`.
 * [i18n]    https://foundryvtt.com/api/classes/foundry.helpers.Localization.html
 *           (v12/v13; v10: https://foundryvtt.com/api/v10/classes/client.Localization.html)
 *           — `lang` "the target language for localization" (set from the
 *           core "language" setting), `translations` "the translation
 *           dictionary for the target language", `_fallback` "fallback
 *           translations if the target keys are not found"; `has(stringId,
 *           fallback = true)` "allow fallback translations to count?";
 *           `localize` returns "the original string" when no translation is
 *           available. The fallback is English: foundryvtt/foundryvtt#11003
 *           (a field "translated in English but not in the currently chosen
 *           language" is to use "fallback translation keys"); and
 *           foundryvtt/dnd5e#5719: a plural form a language needs ("few")
 *           but English lacks is shown as its key — so the fake gives no
 *           kinder fallback than English's own keys.
 * [socketlib] farling42/foundryvtt-socketlib src/socketlib.js
 *           `_onSocketReceived(message, senderId)`: a module socket handler
 *           is called with the data and the sender's user id.
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
  /** A world setting may only be changed by a full Gamemaster by default, not
   * by an Assistant ([i11242]; world.mjs [api-settings]). */
  async set(module, key, value) {
    if (this.specs.get(`${module}.${key}`)?.scope === "world" && this.user && !(this.user.isGM && !this.user.assistant)) throw new Error("only a GM may modify world settings");
    this.values.set(`${module}.${key}`, value);
    this.specs.get(`${module}.${key}`)?.onChange?.(value);
    return value;
  }
}

export class FakeUser {
  /** `assistant`: the Assistant GM role, for which `isGM` is true too [i11242]. */
  constructor({ id, name, isGM = false, active = true, assistant = false }) {
    Object.assign(this, { id, name, isGM: isGM || assistant, assistant, active, flags: {} });
    this.queries = [];
  }
  getFlag(scope, key) { return this.flags[scope]?.[key]; }
  async setFlag(scope, key, value) { (this.flags[scope] ??= {})[key] = value; return this; }
}

/** A fake socket hub: emit reaches every OTHER client's handlers, as
 * Foundry's module socket does (the sender does not hear itself), with the
 * sender's user id as second argument [socketlib]. */
export class SocketHub {
  constructor() { this.clients = []; this.log = []; }
  socketFor(owner) {
    const sock = {
      handlers: new Map(),
      on: (event, fn) => { sock.handlers.set(event, [...(sock.handlers.get(event) ?? []), fn]); },
      emit: (event, data) => {
        this.log.push({ from: owner, event, data: structuredClone(data) });
        for (const other of this.clients) if (other !== sock) for (const fn of other.handlers.get(event) ?? []) fn(structuredClone(data), owner);
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

/**
 * game.i18n as Foundry's Localization [i18n]: the translations of `lang`
 * (its code), English as the fallback of a key they lack. `served` records
 * each key answered from the fallback, so a test can tell a language that
 * says everything itself from one that borrows English.
 * @param {Record<string, string>} translations the language's file (flat keys)
 * @param {{lang?: string, fallback?: Record<string, string>}} [options]
 *   `fallback`: English's file (none for English itself)
 */
export function fakeI18n(translations, { lang = "en", fallback = {} } = {}) {
  const fmt = (s, p) => s.replace(/\{(\w+)\}/g, (w, k) => (p?.[k] === undefined ? w : String(p[k])));
  const own = (k) => typeof translations[k] === "string";
  const spare = (k) => typeof fallback[k] === "string";
  const served = new Set();
  const text = (k) => {
    if (own(k)) return translations[k];
    if (spare(k)) {
      served.add(k);
      return fallback[k];
    }
    return undefined;
  };
  return {
    lang,
    translations,
    _fallback: fallback,
    served,
    has: (k, useFallback = true) => own(k) || (useFallback && spare(k)),
    localize: (k) => text(k) ?? k,
    format: (k, p) => {
      const s = text(k);
      return s === undefined ? k : fmt(s, p);
    },
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
 * (v12 and v13). It has a frame: its title is read from `this.title` when
 * the frame is first drawn, and changes afterwards only when a render asks
 * for it with `{window: {title}}` [appv2]. `FakeApplicationV2.shown` counts
 * windows in the page.
 */
export class FakeApplicationV2 {
  static shown = new Set();
  constructor(options = {}) {
    this.options = { ...this.constructor.DEFAULT_OPTIONS, ...options };
    this.rendered = false;
    this.content = null;
    this.frame = null;
    this.renders = 0;
  }
  get id() { return this.options.id; }
  get title() { return this.options.window?.title ?? ""; }
  async render(options = {}) {
    if (!this.rendered && !options.force) return this;
    const result = await this._renderHTML({}, options);
    if (!this.frame) this.frame = { title: this.title };
    else if (typeof options.window?.title === "string") this.frame.title = options.window.title;
    this.content ??= {
      children: [],
      listeners: {},
      replaceChildren: (...nodes) => { this.content.children = nodes; for (const n of nodes) n.parentNode = this.content; },
      addEventListener: (type, fn) => { (this.content.listeners[type] ??= []).push(fn); },
      dispatchEvent: (ev) => { for (const fn of this.content.listeners[ev.type] ?? []) fn(ev); return true; },
      querySelectorAll: () => [],
    };
    this._replaceHTML(result, this.content, options);
    this.rendered = true;
    this.renders += 1;
    FakeApplicationV2.shown.add(this);
    return this;
  }
  async close() { this.rendered = false; this.frame = null; FakeApplicationV2.shown.delete(this); return this; }
}

/**
 * Right-click on a token: Foundry opens the Token HUD, and so fires
 * `renderTokenHUD`, only for the token's owners and GMs [i12440]. Returns
 * whether the HUD opened.
 */
export function openTokenHUD(env, tokenDoc, html) {
  const user = env.game.user;
  if (!user.isGM && !tokenDoc.testUserPermission?.(user, "OWNER")) return false;
  env.Hooks.callAll("renderTokenHUD", { object: { document: tokenDoc } }, html, {});
  return true;
}

/**
 * The Token HUD's element as `renderTokenHUD` hands it to modules: a root
 * whose columns of control icons are `.col.left` and `.col.right` (other
 * modules' open code appends to them: Inchryptian's
 * easy-lightsource-handling `html.children('.left')`, Cyberpunk RED Core's
 * `html.find("div.left")`). Only the right column, where Vigil's button
 * goes; returned with it.
 */
export function tokenHudHtml(doc) {
  const html = doc.createElement("div");
  const right = doc.createElement("div");
  right.setAttribute("class", "col right");
  html.appendChild(right);
  return { html, right };
}

export function fakeCanvas(tokens = [], zoom = 1) {
  const tickerFns = new Set();
  return {
    stage: { scale: { x: zoom, y: zoom } },
    tokens: { placeables: tokens },
    app: { ticker: { add: (fn) => tickerFns.add(fn), remove: (fn) => tickerFns.delete(fn), fns: tickerFns } },
  };
}

/** Build a game for one user among `users`; `activeGM` is who Foundry
 * elects: by default an active full Gamemaster before an Assistant [i11242]. */
export function fakeGame({ user, users, activeGM, lang, i18n, socket, actors = [], worldTime = 0 }) {
  // Each browser has its own User objects (as in Foundry); flags are shared,
  // standing in for the server syncing documents between browsers.
  const own = new Map(users.map((u) => [u.id, Object.assign(Object.create(Object.getPrototypeOf(u)), u)]));
  users = [...own.values()];
  user = own.get(user.id);
  if (activeGM === undefined) activeGM = users.find((u) => u.isGM && !u.assistant && u.active) ?? users.find((u) => u.isGM && u.active) ?? null;
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
    // `i18n`: a Foundry set to another language (languages.mjs i18nFor); else `lang`, English.
    i18n: i18n ?? fakeI18n(lang),
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
