#!/usr/bin/env node
/**
 * The words check (issue 13, "Words for people"; issue 27, in every
 * language): every event and every error frame that the Python suites
 * produced, rendered by the JavaScript that shows them to people, with
 * lang/en.json:
 *
 * - the pages (GM, player and /watch): `eventSentence` and `errorSentence`
 *   of server/vigil/web/common.js, after its own `loadCatalogue()`, and each
 *   event's explanation (scripts/core/explain.js, as the pages, the stream
 *   and the chat card word a roll or a check);
 * - the Foundry module: `errorText` of scripts/connection.js (its
 *   notifications and form alerts) through `game.i18n.format` (the test
 *   fake's, test/fakes/foundry.mjs).
 *
 * and then in every other language of module.json (de, fr, ru): each event
 * through core/words.js `eventSentence` (what the pages' and the stream's
 * sentences are made of) with that language's file, English as its
 * fallback, and the reader's locale; each error through the module's
 * `errorText` with Foundry set to that language (the fake game.i18n);
 * each explanation through explain.js with that language's translator.
 *
 * The events and frames come from artifacts/words/capture.json, written at
 * the end of a pytest run by tests/support/word_capture.py (scripts/test.sh
 * runs this after pytest). A capture that lacks a test file of the
 * producing suites, or whose run failed, is refused rather than checked.
 *
 * A sentence fails on a leftover `{…}`, a character's id where its name
 * belongs, a poison's id, "1 successes", a raw identifier ("exhaustion_down"),
 * "undefined"/"NaN"/"[object Object]", or a code without words. Each
 * character id of a capture is replaced by a marker before rendering (the
 * page's names map knows the marker's name), so an id that reaches the
 * sentence is found even where ids are ordinary words ("a", "pat").
 *
 * In German, French and Russian a sentence also fails on English left in
 * it: a template identical to English's (beyond the names every language
 * shares, SHARED below), or an English word that a parameter brought in —
 * a word of en.json's that the language's file never uses and that no
 * name or free text of the record explains. The one value the server
 * still writes in English in part (a validation error's `{reason}`) is
 * counted and listed as known, not failed (lang/SOURCES.md, "What the
 * translations cannot fix").
 *
 * Codes of schemas/codes.json that no test produced are listed; each needs
 * a reason in NOT_PRODUCED below (and a produced code must not keep one).
 *
 *   node foundry-module/tools/check-words.mjs [--partial] [--lang=de,ru] [artifacts/words/capture.json]
 *
 * `--partial` checks the capture of a run of some test files only (a
 * passing one still): for a quick look while working; the codes no test
 * produced are then not judged.
 */
import { readFileSync, readdirSync } from "node:fs";
import { register } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, "..", "..");
const LANG_DIR = join(here, "..", "lang");
const MODULE = join(here, "..", "module.json");
const CODES = join(ROOT, "schemas", "codes.json");
/** The suites whose events and errors the check renders: every test file in them must be in the capture. */
const PRODUCERS = ["tests/rules", "tests/protocol", "tests/server", "tests/unit"];

/** Codes no test produces, and why each is left so. */
export const NOT_PRODUCED = {
  events: {},
  errors: {},
};

/** What may not be in a sentence shown to people, by name. */
export const FAULTS = {
  leftover: /\{[A-Za-z0-9_.]+\}/,
  "character id": /Id~\d+~/,
  "poison id": /\bp\d{4}\b/,
  // A count of 1 before a plural noun, with up to two words between ("1 Environmental pain dice").
  plural: /(?<![\d.])1 (\p{L}+ ){0,2}(successes|stuns|wounds|shocks|hours|doses|dice|points|minutes|seconds|days|spaces|uses)\b/u,
  // Two articles in a row ("has no a Flight check", "removes one 1 exhaustion"); "adds a 1" is a die's face.
  article: /\b(a|an|one|no) (a|an|the)\b|\bone 1\b/i,
  identifier: /\b[a-z]+(?:_[a-z0-9]+)+\b/,
  "raw value": /\bundefined\b|\bNaN\b|\[object Object\]/,
  // A count of nothing listed ("stuns 0, wounds 8"): a sentence names what happened.
  "zero count": /\b(stuns|wounds|shocks|doses|pain) 0\b|(?<![\d.])0 (stuns|wounds|shocks)\b/,
  // A field and its value where a person would say it ("lot fail, passed: no", "blind yes").
  "yes or no": /:\s(yes|no)(?=[.,;)]|$)|\b(blind|deaf|passed|sees) (yes|no)\b|\blot (crit|plain|fail)\b/i,
};

/** Faults that only English words can have (its plurals, articles and yes/no). */
const ENGLISH_ONLY = new Set(["plural", "article", "zero count", "yes or no"]);

/** The faults of one sentence (names of FAULTS) in a language. */
export function faultsOf(text, language = "en") {
  return Object.entries(FAULTS).filter(([name, re]) => (language === "en" || !ENGLISH_ONLY.has(name)) && re.test(text)).map(([name]) => name);
}

/**
 * Words that are the same in every language Vigil speaks: proper names of
 * the games and tools, and the terms the translations keep (lang/SOURCES.md:
 * "Proper names are not translated"; dx, the Hursagmu margin, in every
 * file). Lower case.
 */
export const SHARED = new Set(["vigil", "foundry", "obs", "don't", "rest", "your", "head", "pain", "mettle", "hursagmu", "mad", "city", "dx", "tym", "rattle"]);

const wordsIn = (text) => String(text).toLowerCase().match(/\p{L}[\p{L}'’]*\p{L}/gu) ?? [];

/**
 * The English words a sentence of `language` may not hold: en.json's words
 * (without its placeholders) that the language's own file never uses.
 * "table" is French too, "Discipline" French and German: those are the
 * language's own words and never count.
 */
export function foreignWords(english, lang) {
  const own = new Set(Object.values(lang).flatMap((v) => wordsIn(v.replace(/\{[^}]*\}/g, " "))));
  const all = new Set(Object.values(english).flatMap((v) => wordsIn(v.replace(/\{[^}]*\}/g, " "))));
  return new Set([...all].filter((w) => w.length > 2 && !own.has(w) && !SHARED.has(w)));
}

/**
 * The English a sentence of another language holds, as words, leaving out
 * what the record itself brought in as names or free text (a character's
 * name, an injury's label, a kit's name: people's words, in whatever
 * language they wrote them).
 */
export function englishIn(text, foreign, own = new Set()) {
  return [...new Set(wordsIn(text))].filter((w) => foreign.has(w) && !own.has(w));
}

/** A, B, … Z, AA, AB…: made-up names carry no digit (a digit would read as a count). */
const letters = (n) => (n >= 26 ? letters(Math.floor(n / 26) - 1) : "") + String.fromCharCode(65 + (n % 26));

/**
 * A capture record with each character id it mentions replaced by a marker
 * (`Id~n~`), and the names map the page would hold for it: the character's
 * name, or a made-up one where the test gave none.
 */
export function marked(value, ids) {
  const names = {};
  const marker = new Map();
  Object.keys(ids).forEach((id, n) => {
    marker.set(id, `Id~${n + 1}~`);
    names[`Id~${n + 1}~`] = ids[id] || `Person ${letters(n)}`;
  });
  // A param named `id` is the id itself by design ("A character with id a already exists"),
  // one named `name` the name (a test may name a character by its id: "tallman").
  const walk = (v, key = null) => {
    if (typeof v === "string") return key === "id" || key === "name" ? v : marker.get(v) ?? v;
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [marker.get(k) ?? k, walk(x, k)]));
    return v;
  };
  return { value: walk(value), names };
}

/** The test files of the producing suites, as pytest names them. */
function producingFiles() {
  return PRODUCERS.flatMap((dir) =>
    readdirSync(join(ROOT, dir)).filter((f) => /^test_.*\.py$/.test(f)).map((f) => `${dir}/${f}`),
  );
}

async function renderers(files) {
  register("./client-paths.mjs", import.meta.url);
  const realFetch = globalThis.fetch;
  // common.js loads the words with fetch("/foundry/lang/en.json"), as `vigil serve` answers it.
  globalThis.fetch = async (url) => (url === "/foundry/lang/en.json" ? new Response(JSON.stringify(files.en)) : realFetch(url));
  // common.js runs in a browser page: here an English one (no `lang=` in
  // its link, no language kept, an English browser) with no static words.
  const page = {
    location: { hash: "", search: "" },
    localStorage: { getItem: () => null },
    navigator: { languages: ["en"], language: "en" },
    document: { documentElement: {}, querySelectorAll: () => [] },
  };
  const lent = Object.keys(page).filter((name) => !(name in globalThis));
  for (const name of lent) globalThis[name] = page[name];
  const common = await import(pathToFileURL(join(ROOT, "server", "vigil", "web", "common.js")).href);
  await common.loadCatalogue();
  globalThis.fetch = realFetch;
  for (const name of lent) delete globalThis[name];
  const { i18nFor } = await import("../test/fakes/languages.mjs");
  const { errorText } = await import("../scripts/connection.js");
  const { explain } = await import("../scripts/core/explain.js");
  const { wordsFor } = await import("../scripts/core/words.js");
  const out = {
    en: {
      page: {
        event: common.eventSentence,
        error: common.errorSentence,
        explain: (ev) => explain(ev, { t: common.t }).map((l) => l.text).join(" "),
      },
    },
  };
  for (const code of Object.keys(files)) {
    // The reader's words: the language's file, English for a key it lacks (as Foundry and the pages fall back).
    const words = wordsFor(code, (key) => files[code][key] ?? files.en[key]);
    const i18n = i18nFor(code);
    out[code] ??= {};
    if (code !== "en") {
      out[code].page = {
        event: (ev, names) => words.event(ev, names),
        error: (err, names) => words.error(err, names),
        explain: (ev) => explain(ev, { t: words.t }).map((l) => l.text).join(" "),
      };
    }
    out[code].module = {
      error: (err, names) => {
        globalThis.game = { i18n };
        return errorText(err, names);
      },
    };
  }
  return out;
}

/** Every language of module.json, or those `--lang=` names. */
function languages(args) {
  const all = JSON.parse(readFileSync(MODULE, "utf8")).languages.map((l) => l.lang);
  const asked = args.find((a) => a.startsWith("--lang="))?.slice("--lang=".length).split(",");
  return asked ? all.filter((l) => l === "en" || asked.includes(l)) : all;
}

function main() {
  const args = process.argv.slice(2);
  const partial = args.includes("--partial");
  const path = args.find((a) => !a.startsWith("--")) ?? join(ROOT, "artifacts", "words", "capture.json");
  let capture;
  try {
    capture = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    console.error(`no capture at ${relative(process.cwd(), path)} (${err.code ?? err.message}): run pytest over ${PRODUCERS.join(" ")} first (./scripts/test.sh does)`);
    return 1;
  }
  const missing = partial ? [] : producingFiles().filter((f) => !capture.files.includes(f));
  if (missing.length || capture.exitstatus !== 0) {
    console.error(`the capture of ${capture.written} is not of a whole passing run of ${PRODUCERS.join(" ")}`);
    if (capture.exitstatus !== 0) console.error(`  its pytest run exited with ${capture.exitstatus}`);
    if (missing.length) console.error(`  it lacks ${missing.join(", ")}`);
    return 1;
  }
  return check(capture, { partial, languages: languages(args) });
}

/** Strings of a record that people wrote or the server words in English: names, labels, free text. */
function freeText(record, names, english) {
  const own = new Set(Object.values(names).flatMap(wordsIn));
  const walk = (v, key) => {
    if (typeof v === "string") {
      if (serverEnglish({ [key]: v }).length) return; // the server's English is not people's text: it is counted apart
      // A value with words of its own in en.json (VIGIL.Param/Choice.<key>.<value>, a badge) is the file's to say.
      const worded = [`VIGIL.Param.${key}.${v}`, `VIGIL.Choice.${key}.${v}`, `VIGIL.Badge.${v}`].some((k) => typeof english[k] === "string");
      if (!worded) for (const w of wordsIn(v)) own.add(w);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(record.params ?? {}, "");
  return own;
}

/** English the server still writes into a parameter (lang/SOURCES.md): known, listed, not failed. */
const SERVER_ENGLISH = { reason: /\s/ };

function serverEnglish(params = {}) {
  return Object.entries(SERVER_ENGLISH).filter(([key, known]) => {
    const v = params?.[key];
    return typeof v === "string" && (known instanceof RegExp ? known.test(v) : known.includes(v));
  }).map(([key]) => key);
}

async function check(capture, { partial = false, languages: codes = ["en"] } = {}) {
  const files = Object.fromEntries(codes.map((c) => [c, JSON.parse(readFileSync(join(LANG_DIR, `${c}.json`), "utf8"))]));
  const english = files.en;
  const catalogue = JSON.parse(readFileSync(CODES, "utf8"));
  const render = await renderers(files);
  const foreign = Object.fromEntries(codes.filter((c) => c !== "en").map((c) => [c, foreignWords(english, files[c])]));
  const problems = new Map(); // one line per renderer, kind, code and fault
  const known = new Map(); // server English, by language and param
  const seen = { events: new Set(), errors: new Set() };
  let sentences = 0;
  const judge = (language, who, kind, code, text, own, params) => {
    sentences += 1;
    const key = `VIGIL.${kind === "events" ? "Event" : "Error"}.${code}`;
    const template = files[language][key];
    const faults = typeof template === "string" ? faultsOf(text, language) : ["no words"];
    if (language !== "en" && typeof template === "string") {
      const leftover = englishIn(template.replace(/\{[^}]*\}/g, " "), foreign[language]);
      if (template === english[key] && wordsIn(template.replace(/\{[^}]*\}/g, " ")).some((w) => !SHARED.has(w))) faults.push("same as English");
      const serverSaid = serverEnglish(params);
      const knownWords = new Set(serverSaid.flatMap((p) => wordsIn(params[p])));
      const words = englishIn(text, foreign[language], own).filter((w) => !leftover.includes(w));
      for (const p of serverSaid) if (words.some((w) => wordsIn(params[p]).includes(w))) known.set(`${language} {${p}}`, (known.get(`${language} {${p}}`) ?? 0) + 1);
      const unknown = words.filter((w) => !knownWords.has(w));
      if (unknown.length) faults.push(`English (${unknown.join(", ")})`);
    }
    for (const fault of faults) {
      const line = `${language} ${who} ${kind.slice(0, -1)} ${code} (${fault})`;
      if (!problems.has(line)) problems.set(line, text);
    }
  };
  for (const record of capture.events) {
    const { value: ev, names } = marked(record.event, record.names);
    seen.events.add(ev.code);
    for (const language of codes) {
      const own = freeText(ev, names, english);
      judge(language, `page[${ev.viewer}]`, "events", ev.code, render[language].page.event(ev, names), own, ev.params);
      const why = render[language].page.explain(ev);
      if (why) judge(language, `explain[${ev.viewer}]`, "events", ev.code, why, own, ev.params);
    }
  }
  for (const record of capture.errors) {
    const { value: err, names } = marked(record.error, record.names);
    seen.errors.add(err.code);
    for (const language of codes) {
      const own = freeText(err, names, english);
      judge(language, "page", "errors", err.code, render[language].page.error(err, names), own, err.params);
      judge(language, "module", "errors", err.code, render[language].module.error(err, names), own, err.params);
    }
  }

  console.log(`capture of ${capture.written}: ${capture.events.length} distinct events and ${capture.errors.length} distinct error frames from ${capture.files.length} test files; ${sentences} sentences rendered in ${codes.join(", ")}`);
  let failed = false;
  for (const kind of partial ? [] : ["events", "errors"]) {
    const unproduced = Object.keys(catalogue[kind]).filter((c) => !seen[kind].has(c)).sort();
    console.log(`${kind.slice(0, -1)} codes no test produced (${unproduced.length}):`);
    for (const code of unproduced) {
      const why = NOT_PRODUCED[kind][code];
      console.log(`  ${code}: ${why ?? "NO REASON GIVEN"}`);
      if (!why) failed = true;
    }
    for (const code of Object.keys(NOT_PRODUCED[kind])) {
      if (seen[kind].has(code)) {
        console.log(`  ${code} is produced now: drop its reason from NOT_PRODUCED`);
        failed = true;
      }
    }
  }
  if (partial) console.log("a partial capture: codes no test produced are not judged");
  if (known.size) {
    console.log("\nEnglish the server still writes into a parameter (known, lang/SOURCES.md):");
    for (const [what, n] of known) console.log(`  ${what}: ${n} sentences`);
  }
  if (problems.size) {
    console.log(`\n${problems.size} faults (one example each):`);
    for (const [key, text] of problems) console.log(`  ${key}: ${JSON.stringify(text)}`);
    failed = true;
  }
  console.log(failed ? "\nwords check FAILED" : "\nwords check passed");
  return failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
