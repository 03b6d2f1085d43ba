/**
 * The pure half of the form builder (core/forms.js builds the DOM): what a
 * command's fields say and may take, with no document in sight — the words
 * of labels and choices, who may send a command and which of its fields a
 * viewer sees, the choices of a character, a thing on a sheet or a
 * correctable path, text parsed to a field's value, an id made from a
 * name, game times and spans in the table's units. The pages, the Foundry
 * window and core/offers.js use these directly; tests run them without a
 * DOM.
 */

import { format } from "./words.js";

/** A reader's "nothing to send" (distinct from null, which is sent). */
export const UNSET = Symbol("unset");

/** Preferred subject fields, in order: the character a form acts on. */
const SUBJECT_FIELDS = ["char", "patient", "who"];

// ---- words -----------------------------------------------------------------

/** "healer_level" → "Healer level"; the last dotted part of a name. */
export function humanize(name) {
  const s = String(name ?? "").split(".").pop().replace(/[_-]+/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/**
 * The text of `key` through `t`, formatted with `params`; `fallback` when
 * `t` has no such key. Foundry's localize answers a missing key with the key
 * itself, which counts as missing.
 */
export function textFor(t, key, fallback, params = {}) {
  let s;
  if (key && typeof t === "function") s = t(key, params);
  if (typeof s !== "string" || !s || s === key) s = fallback;
  return format(s, params);
}

export const word = (t, name, params) => textFor(t, `VIGIL.Form.${name}`, humanize(name), params);

/** A command's label, e.g. "Pain"; fallback from its tag ("Character create"). */
export function commandLabel(entry, t) {
  const tag = String(entry?.type ?? "");
  const fallback = tag.replace(/[._]+/g, " ").replace(/^./, (c) => c.toUpperCase());
  return textFor(t, entry?.label, fallback);
}

/** A field's label, e.g. "Cast Lot"; fallback from its name. */
export function fieldLabel(field, t) {
  return textFor(t, field.label ?? `VIGIL.Field.${field.name}`, humanize(field.name));
}

/** The label of enum value `v` of `field` (key "<choice_labels>.<v>"). */
export function choiceLabel(field, v, t) {
  const key = field.choice_labels ? `${field.choice_labels}.${v}` : null;
  return textFor(t, key, humanize(String(v)) || String(v));
}

/** The label of a nullable field's empty choice, i.e. what leaving it empty
 * means: VIGIL.Command.<tag>.empty.<field> (beside the command's label and
 * help), else VIGIL.Empty.<field>, else "Not set". */

// ---- pure helpers (no DOM) ---------------------------------------------------

/** JSON equality, for "is this still the default / the current value". */
export function sameJson(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** May this viewer send the command at all (senders of the catalogue)? */
export function maySend(entry, { role, own = [] } = {}) {
  const s = entry?.senders?.[role];
  if (role === "player") return Boolean(s) && (!s.any || own.length > 0);
  return s === true;
}

/** The player rules of a command: fields that must be own, fields left to the GM. */
function playerRules(entry, role) {
  const p = role === "player" ? entry.senders?.player : null;
  return { own: new Set(p?.own ?? []), gmOnly: new Set(Object.keys(p?.gm_only ?? {})) };
}

/**
 * The fields a viewer is shown: a player never sees the GM's inputs, and a
 * rolling command's manual-dice fields (the catalogue's `manual_dice`:
 * faces, lots) are shown only while the table has manual dice on
 * (`state.options.manual_dice`); the server would refuse them otherwise.
 */
export function visibleFields(entry, { role, state } = {}) {
  const { gmOnly } = playerRules(entry, role);
  const manual = new Set(state?.options?.manual_dice ? [] : entry.manual_dice ?? []);
  return (entry.fields ?? []).filter((f) => !gmOnly.has(f.name) && !manual.has(f.name));
}

/** The subject field of a command: the one `ctx.char` prefills, or null. */
export function subjectField(entry) {
  const chars = (entry.fields ?? []).filter((f) => f.type === "character");
  return SUBJECT_FIELDS.map((n) => chars.find((f) => f.name === n)).find(Boolean) ?? chars[0] ?? null;
}

const byName = (a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]);

/**
 * The characters a field may name, as [id, name] sorted by name: those of
 * the view (the viewer sees no others), or a player's own ones only when the
 * command requires them (senders.player.own).
 */
export function characterChoices(entry, field, { state, role, own = [] } = {}) {
  const chars = state?.characters ?? {};
  const name = (id) => chars[id]?.name || id;
  const { own: mustOwn } = playerRules(entry, role);
  const ids = mustOwn.has(field.name) ? own : Object.keys(chars);
  return ids.map((id) => [id, name(id)]).sort(byName);
}

/**
 * The existing things of `kind` in `sheet`, as [id, label]. `where` is the
 * catalogue's games.<game>.refs[kind]: {path} of a map keyed by their ids,
 * or {path, id} of a list of objects with that id field (the server
 * derives it from the sheet's types; a kind it does not list has none).
 */
export function refChoices(kind, sheet, where = null) {
  if (!where?.path) return [];
  const idField = where.id ?? "id";
  const coll = sheet?.[where.path];
  const named = (v, fallback) => (v && typeof v === "object" && (v.label || v.name)) || fallback;
  if (Array.isArray(coll)) {
    return coll.map((item, i) => {
      const id = String(item?.[idField] ?? i);
      return [id, named(item, `${humanize(kind)} ${id}`)];
    });
  }
  if (coll && typeof coll === "object") return Object.entries(coll).map(([k, v]) => [k, named(v, k)]);
  return [];
}

/**
 * The concrete paths a `correct` may set, for one character (its sheet in
 * the view) or, with `char` null, for the table (state.game): each of the
 * game's correctable paths with "*" resolved to the existing list indices
 * or map keys, labelled for a person ("Injuries › Broken arm › Penalty").
 * A "*" ending a path into a map also offers a new key (`newKey: true`).
 * Returns [{path, label, field, current, newKey}].
 */
export function correctablePaths(gameEntry, { state, t } = {}, char = null) {
  const data = char ? state?.characters?.[char]?.sheet : state?.game;
  const out = [];
  for (const c of gameEntry?.correctable ?? []) {
    if (Boolean(c.char) !== Boolean(char) || !askable(c.field)) continue;
    const parts = c.path.split(".");
    const walk = (i, node, path, labels) => {
      if (i === parts.length) {
        out.push({ path: path.join("."), label: labels.join(" › "), field: c.field, current: node, newKey: false });
        return;
      }
      const part = parts[i];
      if (part !== "*") {
        const next = node && typeof node === "object" ? node[part] : undefined;
        walk(i + 1, next, [...path, part], [...labels, textFor(t, `VIGIL.Field.${part}`, humanize(part))]);
        return;
      }
      if (Array.isArray(node)) {
        node.forEach((item, k) => {
          const name = (item && typeof item === "object" && (item.label || item.name)) || `#${k + 1}`;
          walk(i + 1, item, [...path, String(k)], [...labels, name]);
        });
      } else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          const name = (v && typeof v === "object" && (v.label || v.name)) || state?.characters?.[k]?.name || k;
          walk(i + 1, v, [...path, k], [...labels, name]);
        }
      }
      if (i === parts.length - 1 && !Array.isArray(node)) {
        out.push({ path: [...path, "*"].join("."), label: [...labels, word(t, "newKey")].join(" › "), field: c.field, current: undefined, newKey: true });
      }
    };
    walk(0, data, [], []);
  }
  return out;
}

/**
 * A pattern usable as HTML's pattern attribute, or null. HTML anchors it
 * and compiles it with the "v" flag: only an anchored pattern means there
 * what msgspec's search means, and "v" refuses a bare "-" at either end of a
 * character class (escaped here, which means the same in both).
 */
export function htmlPattern(pattern) {
  if (typeof pattern !== "string" || !pattern.startsWith("^") || !pattern.endsWith("$")) return null;
  const escaped = pattern.replace(/(?<!\\)\[-/g, "[\\-").replace(/(?<!\\)-\]/g, "\\-]");
  for (const candidate of [pattern, escaped]) {
    try {
      new RegExp(`^(?:${candidate})$`, "v");
      new RegExp(candidate, "u");
      return candidate;
    } catch {
      /* try the next */
    }
  }
  return null;
}

/**
 * Parse the text of an integer/number/string input against its Field:
 * {value} or {error, params}. Empty text is the caller's business (see
 * emptyValue). Strings are trimmed.
 */
export function parseText(field, text) {
  const s = String(text ?? "").trim();
  if (field.type === "integer" || field.type === "number") {
    const n = Number(s);
    if (s === "" || !Number.isFinite(n)) return { error: "not_a_number" };
    if (field.type === "integer" && !Number.isInteger(n)) return { error: "not_an_integer" };
    if (field.min !== undefined && (n < field.min || (field.min_exclusive && n === field.min))) {
      return { error: field.min_exclusive ? "not_above" : "too_small", params: { min: field.min } };
    }
    if (field.max !== undefined && (n > field.max || (field.max_exclusive && n === field.max))) {
      return { error: field.max_exclusive ? "not_below" : "too_large", params: { max: field.max } };
    }
    return { value: n };
  }
  if (field.min_length !== undefined && s.length < field.min_length) return { error: "too_short", params: { min: field.min_length } };
  if (field.max_length !== undefined && s.length > field.max_length) return { error: "too_long", params: { max: field.max_length } };
  if (field.pattern && !new RegExp(field.pattern, "u").test(s)) return { error: "bad_pattern" };
  return { value: s };
}

/** Whether a person enters `field` (the catalogue's `entry`): bookkeeping
 * the rules keep for themselves is never asked nor offered for correction. */
export const askable = (field) => field?.entry !== "rules";

/**
 * An id made from a name ("Juk the Tall" → "juk-the-tall"): what the
 * server's Ident pattern takes, unique among `taken` (a suffix -2, -3…).
 */
export function idFrom(name, taken = [], max = 64) {
  const base = String(name ?? "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, max) || "";
  if (!base) return "";
  const used = new Set(taken);
  let id = base;
  for (let n = 2; used.has(id); n += 1) id = `${base.slice(0, max - String(n).length - 1)}-${n}`;
  return id;
}

const DAY = 86400;
/** The units a span of game time is read in, largest first: [seconds, key]. */
export const SPAN_UNITS = Object.freeze([[DAY, "days"], [3600, "hours"], [60, "minutes"]]);

/**
 * A game time (seconds; 0 is midnight of day 1) as a form shows it: the day
 * (1-based) and "HH:MM". Seconds within the minute are dropped: the table
 * thinks in minutes.
 */
export function clockParts(seconds) {
  const s = Math.max(0, Math.floor(Number(seconds) || 0));
  const day = Math.floor(s / DAY) + 1;
  const m = Math.floor((s % DAY) / 60);
  return { day, time: `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}` };
}

/** The game time of a day (1-based) and an "HH:MM" time, or null. */
export function clockSeconds(day, time) {
  const d = Number(day);
  const hit = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(String(time ?? "").trim());
  if (!Number.isInteger(d) || d < 1 || !hit || Number(hit[1]) > 23 || Number(hit[2]) > 59) return null;
  return (d - 1) * DAY + Number(hit[1]) * 3600 + Number(hit[2]) * 60;
}

/** A span of seconds in the largest unit that reads it with at most two
 * decimals (90 s: 1.5 minutes; 7200 s: 2 hours): {amount, unit}. */
export function spanParts(seconds) {
  const s = Math.max(0, Number(seconds) || 0);
  for (const [size, unit] of SPAN_UNITS) {
    const amount = s / size;
    if (amount >= 1 && Math.abs(Math.round(amount * 100) - amount * 100) < 1e-6) return { amount: Math.round(amount * 100) / 100, unit };
  }
  return { amount: Math.round((s / 60) * 100) / 100, unit: "minutes" };
}

/** What an empty input sends: an error if required, null if nullable, else nothing. */
export function emptyValue(field) {
  if (field.nullable) return { value: null };
  if (field.required) return { error: "required" };
  return { value: UNSET };
}
