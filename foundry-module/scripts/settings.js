/**
 * Module settings. The server URL is a world setting (everyone connects to
 * the same server, and it is not a secret); access tokens are CLIENT
 * settings, because every player can read world settings and a token is a
 * credential (docs/design.md "Security").
 *
 * A client setting lives in the browser's localStorage, one per origin, for
 * every world and user of that Foundry. So tokens (and the key pairs of
 * token delivery) are kept in one map keyed by world, user and server URL:
 * a second user on the same browser, or another world pointing at another
 * Vigil, never sends a token that is not its own. The visible "access
 * token" field only takes a pasted token into that map.
 */

import { translator, wordsFor } from "./core/words.js";

export const MODULE_ID = "vigil";

export const SETTINGS = {
  serverUrl: { scope: "world", type: String, default: "", config: true, name: "VIGIL.Settings.ServerUrl.Name", hint: "VIGIL.Settings.ServerUrl.Hint", reconnect: true },
  accessToken: { scope: "client", type: String, default: "", config: true, name: "VIGIL.Settings.Token.Name", hint: "VIGIL.Settings.Token.Hint", reconnect: true },
  tokens: { scope: "client", type: Object, default: {}, config: false },
  keys: { scope: "client", type: Object, default: {}, config: false },
  overlays: { scope: "client", type: Boolean, default: true, config: true, name: "VIGIL.Settings.Overlays.Name", hint: "VIGIL.Settings.Overlays.Hint" },
  chatCards: { scope: "world", type: Boolean, default: true, config: true, name: "VIGIL.Settings.ChatCards.Name", hint: "VIGIL.Settings.ChatCards.Hint" },
};

/** @param {(key: string, reconnect: boolean, value: unknown) => void} onChange called with the setting's key */
export function registerSettings(onChange = () => {}, game = globalThis.game) {
  for (const [key, { reconnect, ...spec }] of Object.entries(SETTINGS)) {
    game.settings.register(MODULE_ID, key, { ...spec, onChange: (value) => onChange(key, Boolean(reconnect), value) });
  }
}

export const getSetting = (key, game = globalThis.game) => game.settings.get(MODULE_ID, key);
export const setSetting = (key, value, game = globalThis.game) => game.settings.set(MODULE_ID, key, value);

/**
 * The language this user reads Foundry in: `game.i18n.lang`, "the target
 * language for localization", which Foundry sets from its core "language"
 * setting (https://foundryvtt.com/api/classes/foundry.helpers.Localization.html).
 * Vigil says numbers, plurals and lists in it (Intl), as its words come
 * from the same language's file. English before Foundry has one.
 */
export function locale(game = globalThis.game) {
  return game?.i18n?.lang || "en";
}

/** A key's text in Foundry's translations, or undefined. Foundry itself
 * falls back to English for a key the language's file lacks: `has` counts
 * "fallback translations" by default and `localize` draws on them (the
 * Localization docs above; foundryvtt/foundryvtt#11003: a field "translated
 * in English but not in the currently chosen language" uses the fallback).
 * A game.i18n without `has` is asked directly. */
function lookupIn(i18n) {
  return (key) => {
    if (i18n.has && !i18n.has(key)) return undefined;
    const text = i18n.localize(key);
    return typeof text === "string" && text !== key ? text : undefined;
  };
}

/** The client library's words (core/words.js wordsFor) for this user's
 * language: what the pages have for theirs. */
export function words(game = globalThis.game) {
  return wordsFor(locale(game), game?.i18n ? lookupIn(game.i18n) : () => undefined);
}

/** game.i18n wrappers that fall back to the key (tests, early hooks): the
 * client library's translator (core/words.js), as the pages' `t`, reading
 * Foundry's translations in Foundry's language (plural forms included). */
export function t(key, params, game = globalThis.game) {
  const i18n = game?.i18n;
  if (!i18n) return key;
  return translator(lookupIn(i18n), { locale: locale(game) })(key, params);
}

/** A translation or null when the key is missing (for optional labels). */
export function tOrNull(key, params, game = globalThis.game) {
  const i18n = game?.i18n;
  if (!i18n) return null;
  return translator(lookupIn(i18n), { locale: locale(game), missing: () => null })(key, params ?? {});
}

/** The active GM's client is the one that syncs clock/combat, mints players'
 * tokens and posts chat cards, so two GMs never double them. */
export function isActiveGM(game = globalThis.game) {
  return Boolean(game?.user?.isGM && game.users?.activeGM?.id === game.user.id);
}

/** Where this browser keeps the token of this world, user and server. */
export function tokenSlot(game = globalThis.game) {
  return `${game.world?.id ?? ""}|${game.user?.id ?? ""}|${getSetting("serverUrl", game) ?? ""}`;
}

/** The stored token entry ({token, iat}) of this world, user and server, or null. */
export function storedEntry(game = globalThis.game) {
  const entry = getSetting("tokens", game)?.[tokenSlot(game)];
  return typeof entry?.token === "string" && entry.token ? entry : null;
}

export const storedToken = (game = globalThis.game) => storedEntry(game)?.token ?? "";

/** Keep `token` for this world, user and server (or forget it: null). */
export function storeToken(token, { iat = 0, game = globalThis.game } = {}) {
  const all = { ...(getSetting("tokens", game) ?? {}) };
  if (token) all[tokenSlot(game)] = { token, iat };
  else delete all[tokenSlot(game)];
  return setSetting("tokens", all, game);
}
