/**
 * Params in words (core/words.js `readable`), the module's errorText that
 * uses them, and the words check's own judges (tools/check-words.mjs): that
 * they flag what they must, so a passing check means something.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { counted, readable, render, wordsFor } from "../scripts/core/words.js";
import { errorText, namesOf } from "../scripts/connection.js";
import { fakeI18n } from "./fakes/foundry.mjs";
import { FAULTS, englishIn, faultsOf, foreignWords, marked } from "../tools/check-words.mjs";
import { LANG_PATH } from "../tools/sync-lang.mjs";

const lang = JSON.parse(readFileSync(LANG_PATH, "utf8"));
const lookup = (key) => lang[key];

test("readable: names, clock readings, durations, choices and fields in words", () => {
  const out = readable(
    {
      char: "c1", helper: "c2", busy_until: 3600 * 7 + 5, interval: 120, talent: "exhaustion_minor",
      dominant: null, expected: ["rolled", "adjusted"], field: "sheet.pain", day: 0, flag: true,
      weights: { crit: 1 }, injuries: [{ id: "i1", label: "Broken arm", penalty: 2 }], total: 2.345,
    },
    { names: { c1: "Mara", c2: "Jonah" }, lookup },
  );
  assert.equal(out.char, "Mara");
  assert.equal(out.helper, "Jonah");
  assert.equal(out.busy_until, "07:00:05");
  assert.equal(out.interval, "2 min");
  assert.equal(out.talent, lang["VIGIL.Choice.talent.exhaustion_minor"]);
  assert.equal(out.dominant, "No pool");
  assert.equal(out.expected, "Rolled, Adjusted");
  assert.equal(out.field, lang["VIGIL.Field.pain"]);
  assert.equal(out.day, 1, "days count from 1, as clock readings do");
  assert.equal(out.flag, "yes");
  assert.equal(out.weights, `${lang["VIGIL.Field.crit"]} 1`);
  assert.equal(out.injuries, "Broken arm");
  assert.equal(out.total, "2.35", "a fraction as the locale writes it");
});

test("readable: a halt's error code reads as that error's sentence", () => {
  const out = readable({ code: "advance_too_large", limit: 5 }, { lookup });
  assert.equal(out.code, "Advancing the clock that far would apply more than 5 effects");
  assert.equal(render("clock_halted", out, (c) => lang[`VIGIL.Event.${c}`]).includes("{"), false);
});

test("the module's errorText names characters and uses the pages' words", () => {
  const saved = globalThis.game;
  globalThis.game = { i18n: fakeI18n(lang) };
  try {
    const state = { characters: { c1: { name: "Mara" } } };
    assert.deepEqual(namesOf(state), { c1: "Mara" });
    assert.equal(errorText({ code: "not_dying", params: { char: "c1" } }, namesOf(state)), "Mara is not dying.");
    assert.equal(errorText({ code: "helper_busy", params: { char: "c1", until: 400 } }, namesOf(state)), "Mara is still busy stabilizing until 00:06:40.");
    assert.equal(errorText({ code: "no_such_code", message: "as the server put it" }), "as the server put it");
  } finally {
    globalThis.game = saved;
  }
});

test("the words check flags each fault it names, and a clean sentence has none", () => {
  const bad = {
    leftover: "Mara takes {amount} pain.",
    "character id": "Id~3~ is not dying.",
    "poison id": "A dose of p0001 hits Mara.",
    plural: "The GM opens a challenge: 1 environmental pain dice.",
    identifier: "Mara chooses exhaustion_down.",
    "raw value": "Mara is undefined.",
    article: "Mara has no a Flight check to remove.",
    "zero count": "Juk takes harm: stuns 0, wounds 8, shocks 0.",
    "yes or no": "Mara checks 6 against TN 7 — lot fail, passed: no.",
  };
  assert.deepEqual(Object.keys(bad).sort(), Object.keys(FAULTS).sort(), "one example per fault");
  for (const [fault, text] of Object.entries(bad)) assert.ok(faultsOf(text).includes(fault), `${fault}: ${text}`);
  assert.deepEqual(faultsOf("Hope adds a 1 to Mara's discipline: successes now 1."), []);
  assert.deepEqual(faultsOf("Mara rests an hour (hour 1); pain now 1."), []);
  assert.deepEqual(faultsOf("Juk takes 8 wounds."), []);
  assert.deepEqual(faultsOf("Mara checks 6 against TN 7 and fails on a fail lot."), []);
});

test("the words check marks character ids, not an id the sentence is about", () => {
  const { value, names } = marked({ code: "x", char: "a", params: { helper: "b", id: "a", dice: { helpers: { b: [6] } } } }, { a: "Mara", b: "" });
  assert.deepEqual(value, { code: "x", char: "Id~1~", params: { helper: "Id~2~", id: "a", dice: { helpers: { "Id~2~": [6] } } } });
  assert.deepEqual(names, { "Id~1~": "Mara", "Id~2~": "Person B" });
});

/** Each language file as Foundry's game.i18n would serve it, English as its fallback (fakes/foundry.mjs). */
const files = Object.fromEntries(["en", "de", "fr", "ru"].map((l) => [l, JSON.parse(readFileSync(new URL(`../lang/${l}.json`, import.meta.url), "utf8"))]));
const wordsIn = (l) => wordsFor(l, (key) => files[l][key] ?? files.en[key]);

test("counted words take the locale's plural form (Intl.PluralRules), numbers its digits", () => {
  const ru = wordsIn("ru");
  // Russian: one (1, 21), few (2–4, 22), many (5–20, 0) — the forms of ru.json, never "ран: {n}".
  assert.deepEqual([1, 2, 5, 21, 22, 11].map((n) => counted({ wounds: n }, ru.lookup, "ru")), ["1 рана", "2 раны", "5 ран", "21 рана", "22 раны", "11 ран"]);
  assert.equal(ru.t("VIGIL.Kit.uses", { kit: "аптечка", n: 3 }), "аптечка: осталось 3 применения");
  assert.equal(ru.t("VIGIL.Kit.uses", { kit: "аптечка", n: 0 }), files.ru["VIGIL.Kit.uses.none"].replace("{kit}", "аптечка"));
  // French says 0 and 1 in the singular; English and German only 1.
  assert.equal(wordsIn("fr").t("VIGIL.Duration.days", { n: 0 }), "0 jour");
  assert.equal(wordsIn("en").t("VIGIL.Duration.days", { n: 0 }), "0 days");
  assert.equal(wordsIn("de").t("VIGIL.Chat.Successes", { n: 1, outcome: "x" }), "1 Erfolg — x");
  assert.equal(wordsIn("de").number(2.5), "2,5");
  assert.equal(wordsIn("en").number(2.5), "2.5");
  assert.equal(readable({ total: 2.345 }, { lookup: wordsIn("ru").lookup, locale: "ru" }).total, "2,35");
});

test("lists, durations and clock readings are the locale's, not English pieces", () => {
  assert.equal(counted({ stuns: 1, wounds: 2, shocks: 5 }, wordsIn("de").lookup, "de"), "1 Betäubung, 2 Wunden und 5 Schocks");
  assert.equal(counted({ stuns: 1, wounds: 2, shocks: 5 }, wordsIn("ru").lookup, "ru"), "1 оглушение, 2 раны и 5 шоков");
  assert.equal(counted({ stuns: 1, wounds: 2, shocks: 5 }, wordsIn("en").lookup, "en"), "1 stun, 2 wounds and 5 shocks");
  assert.equal(wordsIn("en").duration(3 * 86400 + 4 * 3600), "3 days 4 h");
  assert.equal(wordsIn("ru").duration(2 * 86400 + 3600), "2 дня 1 ч");
  assert.equal(wordsIn("de").duration(75), "1 Min. 15 s");
  assert.equal(wordsIn("en").time(3 * 86400 + 130), "day 4, 00:02:10");
  assert.equal(wordsIn("fr").time(3 * 86400 + 130), "00:02:10 (jour 4)");
  assert.equal(wordsIn("ru").time(130), "00:02:10");
});

test("parameter values are words of the reader's language: yes/no, ops, responses, traits, causes", () => {
  const de = wordsIn("de");
  const out = de.readable({ passed: false, op: "add", response: "flight", trait: "constitution", cause: "time", sense: "sight", mode: "paused", by: "gm" });
  assert.deepEqual(out, { passed: "nein", op: "hinzufügen", response: "Flucht", trait: "Konstitution", cause: "die Zeit ist abgelaufen", sense: "den Sehsinn", mode: "angehalten", by: "der SL" });
  // A character's name stays a name, even one that is also a word ("gm" as a character's id).
  assert.equal(de.readable({ by: "gm" }, { gm: "Gisela" }).by, "Gisela");
  assert.equal(de.error({ code: "not_dying", params: { char: "c1" } }, { c1: "Mara" }), files.de["VIGIL.Error.not_dying"].replace("{char}", "Mara"));
});

test("the words check in other languages: English faults only in English, English words found in the others", () => {
  assert.deepEqual(faultsOf("Mara: 1 wounds, passed: no"), ["plural", "yes or no"]);
  assert.deepEqual(faultsOf("Mara: 1 wounds, passed: no", "de"), [], "English-only faults are not judged in German");
  assert.deepEqual(faultsOf("Mara erleidet {amount} Schmerz", "de"), ["leftover"]);
  const foreign = foreignWords(files.en, files.de);
  assert.ok(foreign.has("paused") && foreign.has("wounds"));
  assert.ok(!foreign.has("vigil") && !foreign.has("hursagmu"), "names shared by every language are never English");
  assert.deepEqual(englishIn("Die Uhr: paused mit 1×", foreign), ["paused"]);
  // A word people wrote (an injury's label) is theirs, whatever its language.
  assert.deepEqual(englishIn("Verletzung: broken arm", foreign, new Set(["broken", "arm"])), []);
});

test("a validation reason sent as a code (plain_errors.py `why`) reads in the reader's language", () => {
  const refused = { code: "bad_input", params: { field: "pain", reason: "it must be 0 or more", why: "at_least", limit: 0 } };
  assert.equal(wordsIn("en").error(refused), files.en["VIGIL.Error.bad_input"].replace("{field}", files.en["VIGIL.Field.pain"]).replace("{reason}", "it must be 0 or more"));
  assert.ok(wordsIn("de").error(refused).includes("der Wert muss mindestens 0 sein"));
  // A reason without words of its own keeps the server's English rather than vanishing.
  assert.ok(wordsIn("ru").error({ code: "bad_input", params: { field: "pain", reason: "it must be text" } }).includes("it must be text"));
});

test("what has no name of its own is said in the reader's words: the table corrected, an unnamed poison", () => {
  // The server sends a table correction's target as null and an unnamed poison as its kind
  // (rules/engine.py _correct; hursagmu Poison.called), never English words for them.
  const de = wordsIn("de");
  assert.match(de.event({ code: "corrected", char: null, params: { field: "despair", value: 4, target: null } }), /^Die SL setzt \S+ von dem Tisch auf 4\.$/);
  assert.equal(de.event({ code: "poison_stopped", char: "c", params: { poison: "p0001", called: "", kind: "poison" } }), "Gift wirkt nicht mehr.");
  assert.equal(wordsIn("en").event({ code: "poison_fought_off", char: "c", params: { poison: "p0001", called: "", kind: "drug" } }, { c: "Juk" }), "Juk has fought off the drug.");
  // A poison with a name is called by it, in every language.
  assert.equal(wordsIn("ru").event({ code: "poison_stopped", char: "c", params: { poison: "p0001", called: "Adder venom", kind: "poison" } }), "Adder venom: действие закончилось.");
});
