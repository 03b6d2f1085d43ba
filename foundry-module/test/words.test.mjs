/**
 * Params in words (core/words.js `readable`), the module's errorText that
 * uses them, and the words check's own judges (tools/check-words.mjs): that
 * they flag what they must, so a passing check means something.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readable, render } from "../scripts/core/words.js";
import { errorText, namesOf } from "../scripts/connection.js";
import { fakeI18n } from "./fakes/foundry.mjs";
import { FAULTS, faultsOf, marked } from "../tools/check-words.mjs";
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
  assert.equal(out.total, 2.35);
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
