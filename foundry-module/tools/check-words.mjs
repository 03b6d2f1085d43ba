#!/usr/bin/env node
/**
 * The words check (issue 13, "Words for people"): every event and every
 * error frame that the Python suites produced, rendered by the JavaScript
 * that shows them to people, with lang/en.json:
 *
 * - the pages (GM, player and /watch): `eventSentence` and `errorSentence`
 *   of server/vigil/web/common.js, after its own `loadCatalogue()`, and each
 *   event's explanation (scripts/core/explain.js, as the pages, the stream
 *   and the chat card word a roll or a check);
 * - the Foundry module: `errorText` of scripts/connection.js (its
 *   notifications and form alerts) through `game.i18n.format` (the test
 *   fake's, test/fakes/foundry.mjs).
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
 * Codes of schemas/codes.json that no test produced are listed; each needs
 * a reason in NOT_PRODUCED below (and a produced code must not keep one).
 *
 *   node foundry-module/tools/check-words.mjs [artifacts/words/capture.json]
 */
import { readFileSync, readdirSync } from "node:fs";
import { register } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, "..", "..");
const LANG = join(here, "..", "lang", "en.json");
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

/** The faults of one sentence (names of FAULTS). */
export function faultsOf(text) {
  return Object.entries(FAULTS).filter(([, re]) => re.test(text)).map(([name]) => name);
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

async function renderers(lang) {
  register("./client-paths.mjs", import.meta.url);
  const realFetch = globalThis.fetch;
  // common.js loads the words with fetch("/foundry/lang/en.json"), as `vigil serve` answers it.
  globalThis.fetch = async (url) => (url === "/foundry/lang/en.json" ? new Response(JSON.stringify(lang)) : realFetch(url));
  const common = await import(pathToFileURL(join(ROOT, "server", "vigil", "web", "common.js")).href);
  await common.loadCatalogue();
  globalThis.fetch = realFetch;
  const { fakeI18n } = await import("../test/fakes/foundry.mjs");
  globalThis.game = { i18n: fakeI18n(lang) };
  const { errorText } = await import("../scripts/connection.js");
  const { explain } = await import("../scripts/core/explain.js");
  return {
    page: {
      event: common.eventSentence,
      error: common.errorSentence,
      explain: (ev) => explain(ev, { t: common.t }).map((l) => l.text).join(" "),
    },
    module: { error: (err, names) => errorText(err, names) },
  };
}

function main() {
  const path = process.argv[2] ?? join(ROOT, "artifacts", "words", "capture.json");
  let capture;
  try {
    capture = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    console.error(`no capture at ${relative(process.cwd(), path)} (${err.code ?? err.message}): run pytest over ${PRODUCERS.join(" ")} first (./scripts/test.sh does)`);
    return 1;
  }
  const missing = producingFiles().filter((f) => !capture.files.includes(f));
  if (missing.length || capture.exitstatus !== 0) {
    console.error(`the capture of ${capture.written} is not of a whole passing run of ${PRODUCERS.join(" ")}`);
    if (capture.exitstatus !== 0) console.error(`  its pytest run exited with ${capture.exitstatus}`);
    if (missing.length) console.error(`  it lacks ${missing.join(", ")}`);
    return 1;
  }
  return check(capture);
}

async function check(capture) {
  const lang = JSON.parse(readFileSync(LANG, "utf8"));
  const codes = JSON.parse(readFileSync(CODES, "utf8"));
  const render = await renderers(lang);
  const problems = new Map(); // one line per renderer, kind, code and fault
  const seen = { events: new Set(), errors: new Set() };
  let sentences = 0;
  const judge = (who, kind, code, text) => {
    sentences += 1;
    const template = lang[`VIGIL.${kind === "events" ? "Event" : "Error"}.${code}`];
    const faults = typeof template === "string" ? faultsOf(text) : ["no words"];
    for (const fault of faults) {
      const key = `${who} ${kind.slice(0, -1)} ${code} (${fault})`;
      if (!problems.has(key)) problems.set(key, text);
    }
  };
  for (const record of capture.events) {
    const { value: ev, names } = marked(record.event, record.names);
    seen.events.add(ev.code);
    judge(`page[${ev.viewer}]`, "events", ev.code, render.page.event(ev, names));
    const why = render.page.explain(ev);
    if (why) judge(`explain[${ev.viewer}]`, "events", ev.code, why);
  }
  for (const record of capture.errors) {
    const { value: err, names } = marked(record.error, record.names);
    seen.errors.add(err.code);
    judge("page", "errors", err.code, render.page.error(err, names));
    judge("module", "errors", err.code, render.module.error(err, names));
  }

  console.log(`capture of ${capture.written}: ${capture.events.length} distinct events and ${capture.errors.length} distinct error frames from ${capture.files.length} test files; ${sentences} sentences rendered`);
  let failed = false;
  for (const kind of ["events", "errors"]) {
    const unproduced = Object.keys(codes[kind]).filter((c) => !seen[kind].has(c)).sort();
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
