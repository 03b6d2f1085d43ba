/**
 * Render an event or error code as a sentence. Codes and `{name}`
 * placeholders come from schemas/codes.json (the server's English catalogue)
 * and Foundry's lang files use the same syntax as game.i18n.format, so one
 * function serves the dashboard and the module; `readable` makes the
 * parameters words for both (the pages' common.js and the module's
 * connection.js), so a sentence reads the same in either.
 *
 * Every function that words something takes the reader's locale ("de",
 * "ru"; English when none is given): numbers, plurals and lists are said
 * through Intl (Intl.NumberFormat, Intl.PluralRules, Intl.ListFormat), never
 * by joining English pieces, so a language file only holds words.
 */

import { formatDuration, formatGameTime } from "./clock.js";
import { BASE_LOCALE, formatList, formatNumber, pluralTemplate } from "./intl.js";

export { BASE_LOCALE, PLURAL_FORMS, formatList, formatNumber, pluralCategory, pluralTemplate } from "./intl.js";

/** Replace each `{name}` with params[name]; unknown placeholders stay visible
 * so a missing parameter is noticed rather than silently dropped. Numbers
 * are written as the locale writes them; lists joined with commas. */
export function format(template, params = {}, locale = BASE_LOCALE) {
  return String(template).replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, key) => {
    const v = params?.[key];
    if (v === undefined || v === null) return whole;
    if (typeof v === "number" && Number.isFinite(v)) return formatNumber(v, locale);
    return Array.isArray(v) ? v.join(", ") : String(v);
  });
}

/**
 * @param {string} code e.g. "mettle.pain_taken" or "forbidden"
 * @param {object} params
 * @param {object|((code:string)=>string|undefined)} catalogue a code→template map
 *   (codes.json's shape, nested or flat) or a lookup function
 * @param {string} [locale] the reader's language, for numbers
 * @returns {string} the sentence, or the code itself with its params when unknown
 */
export function render(code, params = {}, catalogue = {}, locale = BASE_LOCALE) {
  let template;
  if (typeof catalogue === "function") template = catalogue(code);
  else if (catalogue) template = lookup(catalogue, code);
  if (typeof template !== "string") {
    const p = params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : "";
    return `${code}${p}`;
  }
  return format(template, params, locale);
}

function lookup(catalogue, code) {
  if (typeof catalogue[code] === "string") return catalogue[code];
  for (const section of ["events", "errors", "codes"]) {
    const s = catalogue[section];
    if (s && typeof s[code] === "string") return s[code];
    if (s && typeof s[code]?.en === "string") return s[code].en;
  }
  if (typeof catalogue[code]?.en === "string") return catalogue[code].en;
  // dotted path into a nested catalogue
  let node = catalogue;
  for (const part of code.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}

/**
 * `t` for a face, defined once: `t(key, params)` is the text `lookup(key)`
 * gives (the pages' lang/<code>.json, the module's game.i18n) with its
 * `{name}`s filled; a key without text reads as `missing(key)` (the key
 * itself by default; the pages prefer its last part in words). A counted
 * key has no text of its own but plural forms (`VIGIL.Kit.uses.one`,
 * `.few`, `.other`…): `t("VIGIL.Kit.uses", {n: 3, kit})` picks the form
 * for `n` in the locale (pluralTemplate).
 * @param {(key: string) => string|undefined} lookup
 * @param {{missing?: (key: string) => string, locale?: string}} [how]
 */
export function translator(lookup, { missing = (key) => key, locale = BASE_LOCALE } = {}) {
  return (key, params = {}) => {
    let template = lookup(key);
    if (typeof template !== "string" && typeof params?.n === "number") template = pluralTemplate(lookup, key, params.n, locale);
    return typeof template === "string" ? format(template, params ?? {}, locale) : missing(key);
  };
}

/**
 * Everything a face needs to word things for one reader, in one object:
 * `words.t(key, params)` (translator), `words.number(n)`, `words.list(items)`,
 * `words.time(seconds)` and `words.duration(seconds)` (clock readings and
 * spans of game time), `words.readable(params, names)`,
 * `words.error(err, names)` and `words.event(ev, names)`. The pages and the
 * module each make one from their language file and the reader's locale;
 * `lookup` should already fall back to English for a key the language lacks
 * (Foundry's game.i18n does).
 * @param {string} locale a BCP 47 tag: "en", "de", "fr", "ru"
 * @param {(key: string) => string|undefined} lookup
 * @param {{missing?: (key: string) => string}} [how]
 */
export function wordsFor(locale, lookup, { missing } = {}) {
  const how = { lookup, locale };
  return {
    locale,
    lookup,
    t: translator(lookup, { missing, locale }),
    number: (n) => formatNumber(n, locale),
    list: (items) => formatList(items, locale),
    time: (seconds) => formatGameTime(seconds, how),
    duration: (seconds) => formatDuration(seconds, how),
    readable: (params, names = {}) => readable(params, { names, ...how }),
    error: (err, names = {}) => errorSentence(err, { names, ...how }),
    event: (ev, names = {}) => eventSentence(ev, { names, ...how }),
  };
}

/**
 * A table event as a sentence for one reader: `VIGIL.Event.<code>` with the
 * event's char and its params in words (`readable`). An event the viewer
 * may read only the bare fact of (history_view.py: no params, so no
 * numbers, kits or hidden names) says just that (`VIGIL.History.withheld`)
 * rather than a sentence with its blanks showing; a code without words is
 * the event's own text, else the code. The pages' history, the stream and
 * the words check say events through it.
 * @param {{code: string, char?: string|null, params?: object|null, text?: string}} ev
 * @param {{names?: Record<string, string>, lookup?: (key: string) => string|undefined, locale?: string}} how
 */
export function eventSentence(ev, { names = {}, lookup = () => undefined, locale = BASE_LOCALE } = {}) {
  const params = { ...(ev.params ?? {}) };
  if (ev.char && params.char === undefined) params.char = ev.char;
  if (params.target === undefined && ev.char) params.target = ev.char;
  const sentence = render(ev.code, readable(params, { names, lookup, locale }), (code) => lookup(`VIGIL.Event.${code}`), locale);
  if (sentence.startsWith(ev.code) && ev.text) return ev.text;
  if (!ev.params && /\{[A-Za-z0-9_.]+\}/.test(sentence)) {
    const withheld = lookup("VIGIL.History.withheld");
    if (typeof withheld === "string") return format(withheld, { char: names[ev.char] ?? ev.char }, locale);
  }
  return sentence;
}

/** A key's last part in words ("VIGIL.Badge.seriously_injured" → "Seriously injured"). */
export function keyWords(key) {
  const last = String(key).split(".").pop().replace(/_/g, " ");
  return last.charAt(0).toUpperCase() + last.slice(1);
}

/** Character id → name in a table's state (what this viewer's view shows). */
export function namesOf(state) {
  return Object.fromEntries(Object.entries(state?.characters ?? {}).map(([id, ch]) => [id, ch?.name ?? id]));
}

/**
 * A server or client error (VigilError {code, params, message}) as a
 * sentence, for every face (the pages' refusals and the module's
 * notifications): `VIGIL.Error.<code>` with its params in words
 * (`readable`: names, not ids; clock readings, not seconds). A code without
 * words falls back to the error's own message, then the code.
 */
export function errorSentence(err, { names = {}, lookup = () => undefined, locale = BASE_LOCALE } = {}) {
  const code = err?.code ?? "internal";
  const template = lookup(`VIGIL.Error.${code}`);
  if (typeof template !== "string") return err?.message ?? code;
  return format(template, readable(err?.params ?? {}, { names, lookup, locale }), locale);
}

/** Params that name a character (by id): they read as its name. */
const CHAR_PARAMS = ["char", "owner", "helper", "who", "target", "patient", "healer", "by"];
/** Params that are game times (clock readings) and spans of game time. */
const TIME_PARAMS = new Set(["departs_at", "busy_until", "until", "game", "now", "to", "at", "applied_at", "next_at"]);
const DURATION_PARAMS = new Set(["interval", "duration", "seconds"]);
/** Params that are enum values with words in lang/en.json (VIGIL.Choice.<param>.<value>). */
/** Choice params whose words are another's ("expected": the phases a roll should be in). */
const CHOICE_ALIAS = { expected: "phase" };
const CHOICE_PARAMS = ["choice", "kind", "talent", "status", "response", "pool", "dominant", "what", "reason", "discipline", "condition", "track", "penalty_track", "cause", "phase", "expected", "outcome", "sight", "senses", "exhaustion_choice", "lot", "op", "mode", "sense", "trait", "by"];

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const spaced = (s) => String(s).replace(/_/g, " ");

/**
 * Counts of things ({wounds: 8, shocks: 1}) in words: "8 wounds and 1
 * shock", a count of 0 left out, "no harm" when none is left. Each count
 * reads through the language file's plural forms (VIGIL.Count.<thing>.one,
 * .few, .many, .other; .none for a thing said even at 0) and the list
 * through Intl.ListFormat; the server's words.py `counted` says it the same
 * way in English for its logs.
 * @param {Record<string, number>} counts
 * @param {(key: string) => string|undefined} lookup
 * @param {string} [locale]
 */
export function counted(counts, lookup = () => undefined, locale = BASE_LOCALE) {
  const said = [];
  for (const [thing, n] of Object.entries(counts)) {
    const template = pluralTemplate(lookup, `VIGIL.Count.${thing}`, n, locale);
    // A count of 0 is left out, unless the thing has words for none ("no madness dice").
    if (!n && typeof lookup(`VIGIL.Count.${thing}.none`) !== "string") continue;
    said.push(typeof template === "string" ? format(template, { n }, locale) : `${formatNumber(n, locale)} ${spaced(thing)}`);
  }
  if (!said.length) return lookup("VIGIL.Count.none") ?? "no harm";
  return formatList(said, locale);
}

/**
 * An unnamed poison or drug in the reader's words ("the drug"), as the
 * server sends it: by its kind (`VIGIL.Param.unnamed.<kind>`).
 * @param {string} kind
 * @param {(key: string) => string|undefined} lookup
 */
export function unnamed(kind, lookup = () => undefined) {
  const text = lookup(`VIGIL.Param.unnamed.${kind}`);
  return typeof text === "string" ? text : `the ${spaced(kind)}`;
}

/**
 * Event or error params as words, for a sentence:
 * character ids become names (when the viewer knows the name), game times
 * clock readings and durations words, enum values and field names their
 * words from the lang file, a `code` (the error a clock halt carries) that
 * error's sentence, lists and objects short lists of words.
 *
 * A value's words inside a sentence are `VIGIL.Param.<param>.<value>`
 * ("add" in "to add a 6"; "the GM" as who stabilized), else the option
 * words of a form (`VIGIL.Choice.<param>.<value>`), else a badge's; a yes/no
 * is `VIGIL.Param.<param>.true|false`, else `VIGIL.Param.true|false`.
 * @param {object} params
 * @param {{names?: Record<string, string>, lookup?: (key: string) => string|undefined, locale?: string}} how
 *   `names`: id → name as the viewer knows them; `lookup`: a lang key's text (undefined when missing);
 *   `locale`: the reader's language, for numbers, plurals and lists
 */
export function readable(params, { names = {}, lookup = () => undefined, locale = BASE_LOCALE } = {}) {
  const out = { ...params };
  const how = { lookup, locale };
  const word = (key, fallback) => {
    const text = lookup(key);
    return typeof text === "string" ? text : fallback;
  };
  // A field's label; a Hursagmu trait (a key of the sheet's traits) by its trait words.
  const field = (name) => {
    const last = String(name).split(".").filter((p) => !/^\d+$/.test(p)).pop() ?? String(name);
    return word(`VIGIL.Field.${last}`, word(`VIGIL.Param.trait.${last}`, spaced(last)));
  };
  const yesNo = (key, v) => word(`VIGIL.Param.${key}.${v}`, word(`VIGIL.Param.${v}`, v ? "yes" : "no"));
  const value = (v, key = "") => {
    if (typeof v === "string") return names[v] ?? v;
    if (typeof v === "boolean") return yesNo(key, v);
    if (typeof v === "number") return formatNumber(Math.round(v * 100) / 100, locale);
    if (Array.isArray(v)) return v.map((x) => value(x)).join(", ");
    if (v && typeof v === "object") {
      if (typeof v.label === "string" || typeof v.name === "string") return v.label ?? v.name;
      return Object.entries(v).map(([k, x]) => `${names[k] ?? field(k)} ${value(x, k)}`).join(", ");
    }
    return v;
  };
  for (const key of CHAR_PARAMS) {
    if (typeof out[key] === "string" && names[out[key]]) out[key] = names[out[key]];
  }
  // What has no name of its own travels as what it is (the server's words.py
  // says the same in English): a correction of the table itself has no target
  // character; an unnamed poison or drug is called by its kind.
  if ("target" in params && params.target === null) out.target = word("VIGIL.Param.target.table", "the table");
  if (params.called === "" && typeof params.kind === "string") out.called = unnamed(params.kind, lookup);
  const choice = (key, v) => {
    const param = v === null ? undefined : lookup(`VIGIL.Param.${key}.${v}`);
    const words = param ?? lookup(`VIGIL.Choice.${CHOICE_ALIAS[key] ?? key}.${v ?? "none"}`) ?? (v === null ? undefined : lookup(`VIGIL.Badge.${v}`));
    if (typeof words === "string") return words;
    return typeof v === "string" && /^[a-z]+(_[a-z0-9]+)+$/.test(v) ? spaced(v) : v;
  };
  for (const key of CHOICE_PARAMS) {
    // A character's name (CHAR_PARAMS, done above) is never looked up as a word.
    if (typeof params[key] === "string" && names[params[key]]) continue;
    if (typeof out[key] === "string" || out[key] === null) out[key] = choice(key, out[key]);
    else if (Array.isArray(out[key])) out[key] = out[key].map((v) => choice(key, v)).join(", ");
  }
  // A validation reason the server sends as a code too (plain_errors.py `why`, with its
  // `limit` or `given`): the reader's words for it; the server's English where the file has none.
  const reason = typeof params.why === "string" ? lookup(`VIGIL.Reason.${params.why}`) : undefined;
  if (typeof reason === "string") out.reason = format(reason, { limit: params.limit, given: params.given }, locale);
  // Counts of harm ({wounds: 8, shocks: 1}) as people say them: "8 wounds and 1 shock", never a 0.
  if (out.counts && typeof out.counts === "object" && !Array.isArray(out.counts)) out.counts = counted(out.counts, lookup, locale);
  // A day of game time counted from 1, as the clock readings count it ("day 2, 07:15:03").
  if (Number.isInteger(out.day)) out.day += 1;
  // A corrected field's new value: the words of that field's choices (a status "dying").
  if (typeof out.field === "string" && typeof out.value === "string") {
    const last = out.field.split(".").pop();
    out.value = word(`VIGIL.Param.${last}.${out.value}`, word(`VIGIL.Choice.${last}.${out.value}`, word(`VIGIL.Badge.${out.value}`, out.value)));
  }
  if (typeof out.field === "string") out.field = capital(field(out.field));
  if (typeof out.code === "string" && typeof lookup(`VIGIL.Error.${out.code}`) === "string") {
    const { code, ...rest } = params;
    out.code = format(lookup(`VIGIL.Error.${code}`), readable(rest, { names, lookup, locale }), locale).replace(/\.$/, "");
  }
  for (const [key, v] of Object.entries(out)) {
    if (typeof v === "number" && TIME_PARAMS.has(key)) out[key] = formatGameTime(v, how);
    else if (typeof v === "number" && DURATION_PARAMS.has(key)) out[key] = formatDuration(v, how);
    else if (typeof v === "number" && Number.isInteger(v)) continue; // `format` writes it in the locale's digits
    else if (typeof v !== "string") out[key] = value(v, key);
  }
  return out;
}
