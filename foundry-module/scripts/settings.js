/**
 * Module settings. The server URL is a world setting (everyone connects to
 * the same server, and it is not a secret); the access token is a CLIENT
 * setting, because every player can read world settings and a token is a
 * credential (DESIGN "Security").
 */

export const MODULE_ID = "vigil";

export const SETTINGS = {
  serverUrl: { scope: "world", type: String, default: "", config: true, name: "VIGIL.Settings.ServerUrl.Name", hint: "VIGIL.Settings.ServerUrl.Hint", reconnect: true },
  accessToken: { scope: "client", type: String, default: "", config: true, name: "VIGIL.Settings.Token.Name", hint: "VIGIL.Settings.Token.Hint", reconnect: true },
  overlays: { scope: "client", type: Boolean, default: true, config: true, name: "VIGIL.Settings.Overlays.Name", hint: "VIGIL.Settings.Overlays.Hint" },
  chatCards: { scope: "world", type: Boolean, default: true, config: true, name: "VIGIL.Settings.ChatCards.Name", hint: "VIGIL.Settings.ChatCards.Hint" },
};

/** @param {(key: string) => void} onChange called with the setting's key */
export function registerSettings(onChange = () => {}) {
  for (const [key, { reconnect, ...spec }] of Object.entries(SETTINGS)) {
    globalThis.game.settings.register(MODULE_ID, key, { ...spec, onChange: () => onChange(key, reconnect) });
  }
}

export const getSetting = (key, game = globalThis.game) => game.settings.get(MODULE_ID, key);
export const setSetting = (key, value, game = globalThis.game) => game.settings.set(MODULE_ID, key, value);

/** game.i18n wrappers that fall back to the key (tests, early hooks). */
export function t(key, params, game = globalThis.game) {
  const i18n = game?.i18n;
  if (!i18n) return key;
  return params ? i18n.format(key, params) : i18n.localize(key);
}

/** A translation or null when the key is missing (for optional labels). */
export function tOrNull(key, params) {
  const i18n = globalThis.game?.i18n;
  if (!i18n?.has?.(key)) return null;
  return params ? i18n.format(key, params) : i18n.localize(key);
}

/** The active GM's client is the one that syncs clock/combat, mints players'
 * tokens and posts chat cards, so two GMs never double them. */
export function isActiveGM(game = globalThis.game) {
  return Boolean(game?.user?.isGM && game.users?.activeGM?.id === game.user.id);
}
