/**
 * Notifications on Foundry's screen. Foundry renders a notification's
 * message as HTML (v13 offers `NotificationOptions.clean` "to clean the
 * provided message string as untrusted user input",
 * https://foundryvtt.com/api/interfaces/foundry.NotificationOptions.html;
 * v12 has no such option), and Vigil's sentences carry character names that
 * players choose (an actor renamed before the GM creates its character). So
 * every message is escaped here, on v12 and v13 alike: Vigil's own sentences
 * hold no markup.
 */

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `s` as HTML text: markup in it is shown, never parsed. */
export const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ENTITIES[c]);

/**
 * Show `text` as a notification of `level` ("info", "warn", "error").
 * @param {object} [env] where `ui` lives (tests give each browser its own)
 */
export function notify(level, text, env = globalThis) {
  env.ui?.notifications?.[level]?.(escapeHtml(text));
}
