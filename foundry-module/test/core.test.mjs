/** Pure parts of the client core: JSON Patch, clock, words. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyPatch, PatchError } from "../scripts/core/patch.js";
import { gameTimeAt, formatCountdown } from "../scripts/core/clock.js";
import { render, format } from "../scripts/core/words.js";

test("applyPatch: add/remove/replace on objects and arrays, mutating in place", () => {
  const doc = { a: { b: 1 }, list: [1, 2, 3], "x/y": { "m~n": 0 } };
  const root = applyPatch(doc, [
    { op: "replace", path: "/a/b", value: 2 },
    { op: "add", path: "/a/c", value: { deep: [1] } },
    { op: "add", path: "/list/1", value: 9 },
    { op: "add", path: "/list/-", value: 4 },
    { op: "remove", path: "/list/0" },
    { op: "replace", path: "/x~1y/m~0n", value: 5 },
  ]);
  assert.equal(root, doc, "same root object: patches mutate");
  assert.deepEqual(doc, { a: { b: 2, c: { deep: [1] } }, list: [9, 2, 3, 4], "x/y": { "m~n": 5 } });
});

test("applyPatch copies values so later ops cannot alias them", () => {
  const value = { n: 1 };
  const doc = applyPatch({}, [{ op: "add", path: "/v", value }]);
  value.n = 2;
  assert.equal(doc.v.n, 1);
});

test("applyPatch: whole-document replace returns the new root", () => {
  assert.deepEqual(applyPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }]), { b: 2 });
});

test("applyPatch refuses ops that do not apply", () => {
  assert.throws(() => applyPatch({}, [{ op: "replace", path: "/missing", value: 1 }]), PatchError);
  assert.throws(() => applyPatch({}, [{ op: "add", path: "/a/b", value: 1 }]), PatchError);
  assert.throws(() => applyPatch({ l: [] }, [{ op: "remove", path: "/l/0" }]), PatchError);
  assert.throws(() => applyPatch({ l: [1] }, [{ op: "add", path: "/l/5", value: 1 }]), PatchError);
  assert.throws(() => applyPatch({}, [{ op: "bogus", path: "/a" }]), PatchError);
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
});

test("render fills {name} placeholders from codes.json-shaped catalogues", () => {
  const catalogue = { errors: { unknown_character: "There is no character {char}." }, events: { pain_taken: "{char} takes {amount} pain." } };
  assert.equal(render("unknown_character", { char: "x" }, catalogue), "There is no character x.");
  assert.equal(render("pain_taken", { char: "b", amount: 3 }, catalogue), "b takes 3 pain.");
  assert.equal(render("nope", { a: 1 }, catalogue), 'nope {"a":1}');
  assert.equal(render("k", { n: 2 }, (code) => (code === "k" ? "{n} left" : undefined)), "2 left");
  assert.equal(format("{a} and {missing}", { a: [1, 2] }), "1, 2 and {missing}");
});
