/**
 * What the dashboard and the spectator page share besides the client core:
 * reading the token from the URL fragment, loading the words catalogue,
 * building DOM safely, and re-rendering without losing the keyboard focus.
 *
 * Names and labels come from GMs and players, so every text goes in through
 * textContent (the `h` builder), never through innerHTML.
 */

import { format, render } from "/client/core/words.js";
import { formatDuration, formatGameTime } from "/client/core/clock.js";

export { formatGameTime };

/**
 * The page's access token and layout parameters. A token in the fragment
 * (`#token=…`) is moved to sessionStorage and removed from the address bar,
 * so that it does not show on a shared screen or in a bookmark; other
 * fragment parameters (`layout=overlay`) stay.
 * @param {string} storageKey sessionStorage key (one per page kind)
 */
export function takeToken(storageKey) {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const query = new URLSearchParams(location.search);
  let token = params.get("token");
  if (token) {
    sessionStorage.setItem(storageKey, token);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  } else {
    token = sessionStorage.getItem(storageKey);
  }
  return { token, params, query };
}

export function wsUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

let lang = {};
/**
 * Load the words: the Foundry module's lang/en.json, which holds every label
 * and, synced from the server's catalogue, every event and error template.
 * The pages and the module thus read one English text. Without it, labels
 * fall back to words made from their keys and sentences to their codes.
 */
export async function loadCatalogue() {
  try {
    const reply = await fetch("/foundry/lang/en.json");
    if (reply.ok) lang = await reply.json();
  } catch {
    /* offline: keys and codes are shown as readable words */
  }
  return lang;
}

/** A label by its lang key ("VIGIL.Badge.dying"), `{name}`s filled; a key
 * missing from the file reads as its last part in words ("Seriously injured"). */
export function t(key, params = {}) {
  const template = lang[key];
  if (typeof template === "string") return format(template, params);
  const last = String(key).split(".").pop().replace(/_/g, " ");
  return last.charAt(0).toUpperCase() + last.slice(1);
}

const eventTemplate = (code) => lang[`VIGIL.Event.${code}`];
const errorTemplate = (code) => lang[`VIGIL.Error.${code}`];

const CLIENT_ERRORS = {
  not_connected: "Not connected to the Vigil server; try again when it is back.",
  disconnected: "The connection was lost before the server answered; check the state before repeating.",
  token_revoked: "This access token was revoked or its table's key rotated.",
  table_deleted: "This table was deleted.",
  refused: "The server refused this access token.",
};

/** A readable sentence for a server error (VigilError {code, params}). */
export function errorSentence(err, names = {}) {
  const code = err?.code ?? "internal";
  if (CLIENT_ERRORS[code] && !errorTemplate(code)) return CLIENT_ERRORS[code];
  return render(code, withNames(err?.params ?? {}, names), errorTemplate);
}

const CHAR_PARAMS = ["char", "owner", "helper", "who", "target", "patient", "healer", "by"];
/** Params that are game times (clock readings) and spans of game time. */
const TIME_PARAMS = new Set(["departs_at", "busy_until", "until", "game", "now", "to", "at", "applied_at", "next_at"]);
const DURATION_PARAMS = new Set(["interval", "duration", "seconds"]);
/** Params that are enum values with words in lang/en.json (VIGIL.Choice.<param>.<value>). */
const CHOICE_PARAMS = ["choice", "kind", "talent", "status", "response", "pool", "dominant", "what", "reason", "discipline", "condition", "track", "cause"];

/** Character ids in params become names (when the viewer knows the name),
 * times become clock readings and durations, enum values and field paths
 * their words from lang/en.json. */
function withNames(params, names) {
  const out = { ...params };
  for (const key of CHAR_PARAMS) {
    if (typeof out[key] === "string" && names[out[key]]) out[key] = names[out[key]];
  }
  for (const key of CHOICE_PARAMS) {
    const words = typeof out[key] === "string" ? lang[`VIGIL.Choice.${key}.${out[key]}`] ?? lang[`VIGIL.Badge.${out[key]}`] : undefined;
    if (typeof words === "string") out[key] = words;
    else if (typeof out[key] === "string" && /^[a-z]+(_[a-z]+)+$/.test(out[key])) out[key] = out[key].replace(/_/g, " ");
  }
  if (typeof out.field === "string") {
    const last = out.field.split(".").filter((p) => !/^\d+$/.test(p)).pop() ?? out.field;
    out.field = lang[`VIGIL.Field.${last}`] ?? last.replace(/_/g, " ");
    out.field = out.field.charAt(0).toUpperCase() + out.field.slice(1);
  }
  for (const [key, value] of Object.entries(out)) {
    if (typeof value === "number" && TIME_PARAMS.has(key)) out[key] = formatGameTime(value);
    else if (typeof value === "number" && DURATION_PARAMS.has(key)) out[key] = formatDuration(value);
    else if (typeof value === "number" && !Number.isInteger(value)) out[key] = Math.round(value * 100) / 100;
    if (typeof value === "boolean") out[key] = value ? "yes" : "no";
    if (value && typeof value === "object" && !Array.isArray(value)) out[key] = summarize(value);
    if (Array.isArray(value)) out[key] = value.join(", ");
  }
  return out;
}

function summarize(value) {
  return Object.entries(value)
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
}

/** A history event as a sentence: codes.json template with the event's char. */
export function eventSentence(ev, names = {}) {
  const params = { ...(ev.params ?? {}) };
  if (ev.char && params.char === undefined) params.char = ev.char;
  if (params.target === undefined && ev.char) params.target = ev.char;
  const sentence = render(ev.code, withNames(params, names), eventTemplate);
  return sentence.startsWith(ev.code) && ev.text ? ev.text : sentence;
}

/**
 * Element builder: h("button", {type: "button", onclick}, "Text").
 * Attributes starting with "on" are listeners; `dataset` and `style` objects
 * are merged; `null`/`false` children are skipped; strings become text nodes.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "class") el.className = value;
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replace a container's children with freshly built ones, keeping what the
 * user was doing: the focused control (matched by `data-key`) gets the focus
 * back, and edited form fields (marked `data-key`, changed by the user since
 * the last render) keep their values. A patch then never steals the caret
 * or a half-typed number from the GM.
 */
export function swap(container, children) {
  const active = document.activeElement;
  const focusKey = active && container.contains(active) ? active.dataset.key : null;
  const kept = new Map();
  for (const el of container.querySelectorAll("[data-key][data-edited]")) {
    kept.set(el.dataset.key, el.type === "checkbox" ? el.checked : el.value);
  }
  container.replaceChildren();
  append(container, [children]);
  for (const el of container.querySelectorAll("[data-key]")) {
    if (kept.has(el.dataset.key)) {
      if (el.type === "checkbox") el.checked = kept.get(el.dataset.key);
      else el.value = kept.get(el.dataset.key);
      el.dataset.edited = "";
    }
  }
  if (focusKey) container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
}

/** Mark form fields as edited by the user (so `swap` keeps their values). */
export function trackEdits(root) {
  const mark = (ev) => {
    if (ev.target?.dataset && "key" in ev.target.dataset) ev.target.dataset.edited = "";
  };
  root.addEventListener("input", mark);
  root.addEventListener("change", mark);
}

export const STATUS_WORDS = {
  idle: "Not connected",
  connecting: "Connecting…",
  connected: "Live",
  reconnecting: "Reconnecting…",
  refused: "Refused",
  closed: "Disconnected",
};
