/** Every visible string is in lang/en.json, including every server code. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BADGES, GAMES, POOLS, COUNTDOWN_KINDS, badgeKey, badgeShortKey, counterKey, counterShortKey, countdownKey, countdownShortKey, poolKey, poolShortKey } from "../scripts/core/display.js";
import { CODES_PATH, LANG_PATH, codeEntries, synced } from "../tools/sync-lang.mjs";
import { CATALOGUE } from "../scripts/core/catalogue.js";

const codes = JSON.parse(readFileSync(CODES_PATH, "utf8"));
const lang = JSON.parse(readFileSync(LANG_PATH, "utf8"));

test("en.json has an entry for every event and error code of schemas/codes.json", () => {
  const missing = Object.keys(codeEntries(codes)).filter((k) => typeof lang[k] !== "string");
  assert.deepEqual(missing, [], "run: node tools/sync-lang.mjs");
  assert.ok(Object.keys(codes.events).length > 10 && Object.keys(codes.errors).length > 10);
});

test("en.json is exactly what sync-lang writes (server templates unchanged)", () => {
  assert.deepEqual(synced(lang, codes), lang);
});

test("every VIGIL.* key the module's code uses literally exists in en.json", () => {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      // The generated catalogue names key prefixes too (choice_labels); its keys are checked below.
      else if (p.endsWith(".js") && !p.endsWith("/core/catalogue.js")) files.push(p);
    }
  };
  walk(new URL("../scripts", import.meta.url).pathname);
  const used = new Set();
  for (const f of files) {
    for (const m of readFileSync(f, "utf8").matchAll(/"(VIGIL\.[A-Za-z0-9_.]+)"/g)) used.add(m[1]);
  }
  assert.ok(used.size > 10);
  // A counted key is used by its group's name ("VIGIL.Kit.uses"): its forms are the file's (".one", ".other"…).
  assert.deepEqual([...used].filter((k) => !(k in lang) && !(`${k}.other` in lang)), []);
});

/** Every lang key the command catalogue names: labels, helps, and each choice's "<choice_labels>.<value>". */
function catalogueKeys(catalogue) {
  const keys = new Set();
  const field = (f) => {
    keys.add(f.label);
    if (f.type === "enum") for (const v of f.choices) keys.add(`${f.choice_labels}.${v}`);
    for (const sub of [...(f.fields ?? []), f.items, f.keys, f.values]) if (sub) field(sub);
  };
  for (const c of Object.values(catalogue.commands)) {
    keys.add(c.label);
    keys.add(c.help);
    c.fields.forEach(field);
  }
  for (const g of Object.values(catalogue.games)) {
    keys.add(g.label);
    [...g.options, ...g.sheet, ...g.correctable.map((c) => c.field)].forEach(field);
  }
  for (const c of Object.values(catalogue.close_codes)) keys.add(c.label);
  return keys;
}

test("every key the command catalogue names exists in en.json", () => {
  const keys = catalogueKeys(CATALOGUE);
  assert.ok(keys.size > 300);
  assert.deepEqual([...keys].filter((k) => typeof lang[k] !== "string"), []);
});

test("keys built at run time exist too: statuses, badges, pools, counters, countdowns", () => {
  const keys = [
    ...["idle", "waiting", "connecting", "connected", "reconnecting", "refused", "closed"].map((s) => `VIGIL.Status.${s}`),
    ...Object.keys(BADGES).flatMap((b) => [badgeKey(b), badgeShortKey(b)]),
    ...Object.keys(POOLS).flatMap((p) => [poolKey(p), poolShortKey(p)]),
    ...Object.values(GAMES).flatMap((g) => g.counters.flatMap((c) => [counterKey(c.key), counterShortKey(c.key)])),
    counterKey("rattle"), counterShortKey("rattle"),
    ...COUNTDOWN_KINDS.flatMap((k) => [countdownKey(k), countdownShortKey(k)]),
  ];
  assert.deepEqual(keys.filter((k) => !(k in lang)), []);
});
