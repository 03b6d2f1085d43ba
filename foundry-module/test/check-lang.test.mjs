/**
 * The language files check (tools/check-lang.mjs): every translation has
 * en.json's keys, in its order, with the same placeholders in each template;
 * and the check flags what it must on small bad examples.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE, LANG_DIR, checkFiles, clean, compare, placeholders, report, shapeProblems, translations } from "../tools/check-lang.mjs";

const en = JSON.parse(readFileSync(join(LANG_DIR, BASE), "utf8"));
const manifest = JSON.parse(readFileSync(new URL("../module.json", import.meta.url), "utf8"));

test("the real language files match en.json: keys, order and placeholders", () => {
  const files = translations();
  assert.deepEqual(files.map((f) => f.split("/").pop()), ["de.json", "fr.json", "ru.json"]);
  assert.deepEqual(checkFiles(files), []);
});

test("every language file is registered in module.json, and every registered one exists", () => {
  const registered = manifest.languages.map((l) => l.path).sort();
  const present = [join(LANG_DIR, BASE), ...translations()].map((f) => `lang/${f.split("/").pop()}`).sort();
  assert.deepEqual(registered, present);
  assert.deepEqual(
    manifest.languages.map((l) => [l.lang, l.name]),
    [["en", "English"], ["de", "Deutsch"], ["fr", "Français"], ["ru", "Русский"]],
  );
});

test("translations are translated: proper names kept, most other words differ from English", () => {
  for (const file of translations()) {
    const lang = JSON.parse(readFileSync(file, "utf8"));
    for (const name of ["Don't Rest Your Head", "Pain & Mettle", "Hursagmu"]) {
      assert.equal(lang["VIGIL.Game." + { "Don't Rest Your Head": "dryh", "Pain & Mettle": "mettle", Hursagmu: "hursagmu" }[name]], name, file);
    }
    const long = Object.keys(en).filter((k) => en[k].length > 25);
    const same = long.filter((k) => lang[k] === en[k]);
    assert.ok(same.length < long.length / 50, `${file}: ${same.length} long templates left in English: ${same.slice(0, 5).join(", ")}`);
  }
});

test("placeholders: each name as often as it appears, sorted", () => {
  assert.deepEqual(placeholders("{pool} dominates: tied with {rival}, {pool} first"), ["pool", "pool", "rival"]);
  assert.deepEqual(placeholders("no placeholders, {not one} either"), []);
  assert.deepEqual(placeholders("{a.b} {n}"), ["a.b", "n"]);
});

test("compare: missing, extra, renamed, dropped, doubled placeholders and order are all reported", () => {
  const base = { "A.one": "Hello {name}", "A.two": "{n} of {total}", "A.three": "Plain", "A.four": "{x} and {x}" };
  const good = { "A.one": "Hallo {name}", "A.two": "{n} von {total}", "A.three": "Schlicht", "A.four": "{x} und {x}" };
  assert.ok(clean(compare(base, good)));

  const bad = { "A.two": "{n} von {gesamt}", "A.one": "Hallo", "A.four": "{x}", "A.five": "Extra" };
  const r = compare(base, bad);
  assert.deepEqual(r.missing, ["A.three"]);
  assert.deepEqual(r.extra, ["A.five"]);
  assert.deepEqual(r.placeholders.map((p) => p.key), ["A.one", "A.two", "A.four"]);
  assert.deepEqual(r.placeholders[1], { key: "A.two", expected: ["n", "total"], found: ["gesamt", "n"] });
  assert.equal(r.order, false);
  assert.equal(clean(r), false);

  const lines = report("xx.json", r);
  assert.ok(lines.includes("xx.json: missing key A.three"));
  assert.ok(lines.includes("xx.json: extra key A.five"));
  assert.ok(lines.includes("xx.json: A.one: placeholders none instead of {name}"), lines.join("\n"));
  assert.ok(lines.includes("xx.json: A.two: placeholders {gesamt} {n} instead of {n} {total}"), lines.join("\n"));
  assert.ok(lines.includes("xx.json: keys are not in en.json's order"));

  // A translated placeholder name is a difference even with the same count.
  assert.equal(compare({ k: "{char} falls" }, { k: "{personnage} tombe" }).placeholders.length, 1);
});

test("shape: a file must be an object of strings", () => {
  assert.deepEqual(shapeProblems([]), ["not a JSON object"]);
  assert.deepEqual(shapeProblems({ a: "x", b: 3 }), ["b: not a string"]);
  assert.equal(clean(compare({ a: "x" }, { a: 1 })), false);
});

test("checkFiles reads files: invalid JSON and bad files are reported, good ones pass", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigil-lang-"));
  const base = join(dir, "en.json");
  writeFileSync(base, JSON.stringify({ "K.a": "{n} dice", "K.b": "Roll" }));
  writeFileSync(join(dir, "ok.json"), JSON.stringify({ "K.a": "{n} Würfel", "K.b": "Wurf" }));
  writeFileSync(join(dir, "broken.json"), "{ \"K.a\": ");
  writeFileSync(join(dir, "short.json"), JSON.stringify({ "K.a": "dés" }));
  assert.deepEqual(checkFiles([join(dir, "ok.json")], base), []);
  const lines = checkFiles([join(dir, "broken.json"), join(dir, "short.json")], base);
  assert.match(lines[0], /^broken\.json: not valid JSON/);
  assert.deepEqual(lines.slice(1), ["short.json: missing key K.b", "short.json: K.a: placeholders none instead of {n}"]);
  assert.deepEqual(translations(dir).map((f) => f.split("/").pop()), ["broken.json", "ok.json", "short.json"]);
});

test("counted keys: each language gives its own plural forms (Intl.PluralRules), no more, no fewer", () => {
  const base = { "A.n.one": "{n} wound", "A.n.other": "{n} wounds", "A.reason.pain": "Pain", "A.reason.other": "Other" };
  // Russian needs one, few, many and other; German one and other; a choice named "other" is no plural.
  assert.ok(clean(compare(base, { "A.n.one": "{n} рана", "A.n.few": "{n} раны", "A.n.many": "{n} ран", "A.n.other": "{n} раны", "A.reason.pain": "Боль", "A.reason.other": "Другое" }, "ru")));
  assert.deepEqual(compare(base, { "A.n.one": "{n} рана", "A.n.other": "{n} раны", "A.reason.pain": "Боль", "A.reason.other": "Другое" }, "ru").missing, ["A.n.few", "A.n.many"]);
  assert.deepEqual(compare(base, { "A.n.one": "{n} Wunde", "A.n.few": "x {n}", "A.n.other": "{n} Wunden", "A.reason.pain": "S", "A.reason.other": "A" }, "de").extra, ["A.n.few"]);
  // A form English lacks is compared with English's `other`.
  assert.deepEqual(compare(base, { "A.n.one": "{n} рана", "A.n.few": "раны", "A.n.many": "{n} ран", "A.n.other": "{n} раны", "A.reason.pain": "Боль", "A.reason.other": "Другое" }, "ru").placeholders.map((p) => p.key), ["A.n.few"]);
  assert.equal(compare(base, { "A.n.many": "{n} ран", "A.n.one": "{n} рана", "A.n.few": "{n} раны", "A.n.other": "{n} раны", "A.reason.pain": "Боль", "A.reason.other": "Другое" }, "ru").order, false);
});

test("a key that starts another key is flagged: Foundry nests keys by their dots", () => {
  assert.deepEqual(compare({ "A.b": "x", "A.b.c": "y" }, { "A.b": "x", "A.b.c": "y" }, "de").shape, ["A.b.c: also the start of another key (Foundry nests keys by their dots)"]);
});
