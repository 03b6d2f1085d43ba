/** Pure parts of the client core: view patches, clock, words. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { applyChanges, PatchError } from "../scripts/core/patch.js";
import { VIGIL, haveVigil } from "./support/vigil-server.mjs";
import { readFileSync } from "node:fs";
import { ENGLISH, gameTimeAt, formatCountdown } from "../scripts/core/clock.js";
import { render, format } from "../scripts/core/words.js";

test("applyChanges sets, removes and descends, mutating in place", () => {
  const doc = { a: { b: 1, gone: 2 }, list: [1, 2, 3], "x/y": { "m~n": 0 }, keep: true };
  const root = applyChanges(doc, { a: { b: [2], c: [{ deep: [1] }], gone: [] }, list: [[9]], "x/y": { "m~n": [5] }, n: [null] });
  assert.equal(root, doc, "same root object: patches mutate");
  assert.deepEqual(doc, { a: { b: 2, c: { deep: [1] } }, list: [9], "x/y": { "m~n": 5 }, keep: true, n: null });
});

test("applyChanges copies values so the caller's changes and the view never alias", () => {
  const value = { n: 1 };
  const doc = applyChanges({}, { v: [value] });
  value.n = 2;
  assert.equal(doc.v.n, 1);
});

test("applyChanges: {} changes nothing", () => {
  assert.deepEqual(applyChanges({ a: { b: 1 } }, {}), { a: { b: 1 } });
  assert.deepEqual(applyChanges({ a: { b: 1 } }, { a: {} }), { a: { b: 1 } });
});

test("applyChanges refuses changes that do not fit the document", () => {
  const doc = () => ({ a: 1, n: 5, l: [1], o: {} });
  for (const changes of [
    { missing: [] }, { missing: { b: [1] } }, { n: { b: [1] } }, { l: { 0: [1] } }, { o: { gone: [] } },
    { toString: { b: [1] } }, { a: [1, 2] }, [["a", 1]], null,
  ]) {
    assert.throws(() => applyChanges(doc(), changes), PatchError, JSON.stringify(changes));
  }
});

test("applyChanges sets a scalar as itself, a list or an object wrapped", () => {
  const doc = { a: 1, l: [1], o: { p: 1 } };
  applyChanges(doc, { a: null, b: "x", c: 2.5, d: false, l: [[2, 3]], o: [{ q: 2 }], n: [{}] });
  assert.deepEqual(doc, { a: null, b: "x", c: 2.5, d: false, l: [2, 3], o: { q: 2 }, n: {} });
});

/** Pairs of views; the server's own diff_tree makes their changes below. */
const CASES = [
  [{}, {}],
  [{ a: 1 }, { a: 1.5, b: "new" }],
  [{ a: { b: { c: [1, 2] } }, d: true }, { a: { b: { c: [2] }, e: {} } }],
  [{ v: 1 }, { v: { w: 2 } }],
  [{ v: { w: 2 } }, { v: [2] }],
  [{ "a/b": { "~c": 1 }, " ": null }, { "a/b": { "~c": 2 }, "": 0 }],
  [
    { characters: { c1: { badges: [], sheet: { resting: false, rest_since: null, pain: 2 }, derived: { next_respite_at: null } } } },
    { characters: { c1: { badges: ["resting"], sheet: { resting: true, rest_since: 0.5, pain: 2 }, derived: { next_respite_at: 86400.5 } } } },
  ],
];

test("the server's changes applied by applyChanges give the new view", { skip: !haveVigil && "no .venv with vigil" }, () => {
  const python = join(dirname(VIGIL), "python");
  const script = "import json, sys\nfrom vigil.treepatch import diff_tree\nprint(json.dumps([diff_tree(o, n) for o, n in json.load(sys.stdin)]))";
  const trees = JSON.parse(execFileSync(python, ["-c", script], { input: JSON.stringify(CASES) }).toString());
  assert.equal(trees.length, CASES.length);
  CASES.forEach(([old, fresh], i) => {
    assert.deepEqual(applyChanges(structuredClone(old), trees[i]), fresh, JSON.stringify(trees[i]));
  });
  assert.deepEqual(trees[0], {}, "equal views: no changes");
});

test("gameTimeAt extrapolates only a running clock", () => {
  const clock = { mode: "running", rate: 2, game: 100, wall: 1000 };
  assert.equal(gameTimeAt(clock, 1010), 120);
  assert.equal(gameTimeAt({ ...clock, mode: "paused" }, 1010), 100);
  assert.equal(gameTimeAt({ ...clock, mode: "follow" }, 1010), 100);
  assert.equal(gameTimeAt(clock, 990), 100, "never backwards when our wall clock lags");
  assert.equal(gameTimeAt(null, 5), 0);
});

test("formatCountdown: mm:ss, h:mm:ss, days", () => {
  assert.equal(formatCountdown(0), "00:00");
  assert.equal(formatCountdown(299.2), "05:00", "rounds up: 00:00 only when time is up");
  assert.equal(formatCountdown(59), "00:59");
  assert.equal(formatCountdown(3599), "59:59");
  assert.equal(formatCountdown(3600), "1:00:00");
  assert.equal(formatCountdown(86399), "23:59:59");
  assert.equal(formatCountdown(86400), "1 day");
  assert.equal(formatCountdown(3 * 86400 + 5), "3 days");
  assert.equal(formatCountdown(-5), "00:00");
  assert.equal(formatCountdown(2 * 86400, { days: (n) => `${n} jours` }), "2 jours");
  // A language file's counted days, in its plural forms (Russian: 2 дня, 5 дней).
  const ru = JSON.parse(readFileSync(new URL("../lang/ru.json", import.meta.url), "utf8"));
  assert.equal(formatCountdown(2 * 86400, { lookup: (k) => ru[k], locale: "ru" }), "2 дня");
  assert.equal(formatCountdown(5 * 86400, { lookup: (k) => ru[k], locale: "ru" }), "5 дней");
});

test("render fills {name} placeholders from codes.json-shaped catalogues", () => {
  const catalogue = { errors: { unknown_character: "There is no character {char}." }, events: { pain_taken: "{char} takes {amount} pain." } };
  assert.equal(render("unknown_character", { char: "x" }, catalogue), "There is no character x.");
  assert.equal(render("pain_taken", { char: "b", amount: 3 }, catalogue), "b takes 3 pain.");
  assert.equal(render("nope", { a: 1 }, catalogue), 'nope {"a":1}');
  assert.equal(render("k", { n: 2 }, (code) => (code === "k" ? "{n} left" : undefined)), "2 left");
  assert.equal(format("{a} and {missing}", { a: [1, 2] }), "1, 2 and {missing}");
});

test("the clock's English without a language file is en.json's, word for word", () => {
  const en = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url), "utf8"));
  for (const [key, text] of Object.entries(ENGLISH)) assert.equal(en[key], text, key);
});
