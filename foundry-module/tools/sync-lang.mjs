#!/usr/bin/env node
/**
 * Copy the server's event and error codes (schemas/codes.json, generated from
 * the server) into lang/en.json as VIGIL.Event.<code> / VIGIL.Error.<code>.
 * The table options' descriptions (codes.json `options`, from the code that
 * defines each option) are copied as they are, under their own keys.
 * Both use `{name}` placeholders, the syntax of game.i18n.format, so the
 * templates are copied unchanged. Translators then translate en.json alone.
 *
 *   node tools/sync-lang.mjs          rewrite lang/en.json
 *   node tools/sync-lang.mjs --check  exit 1 if lang/en.json is out of date
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const CODES_PATH = join(here, "..", "..", "schemas", "codes.json");
export const LANG_PATH = join(here, "..", "lang", "en.json");

/** The en.json entries that the server's catalogue implies. */
export function codeEntries(codes) {
  const out = {};
  for (const [code, template] of Object.entries(codes.events ?? {})) out[`VIGIL.Event.${code}`] = template;
  for (const [code, template] of Object.entries(codes.errors ?? {})) out[`VIGIL.Error.${code}`] = template;
  for (const [key, text] of Object.entries(codes.options ?? {})) out[key] = text;
  return out;
}

/** en.json with the server's entries set, hand-written ones kept. */
export function synced(lang, codes) {
  const merged = { ...lang, ...codeEntries(codes) };
  const keys = Object.keys(merged);
  // Keep hand-written keys in their order, server codes sorted after them.
  const hand = keys.filter((k) => !k.startsWith("VIGIL.Event.") && !(k.startsWith("VIGIL.Error.") && k.slice(12) in (codes.errors ?? {})) && !(k in (codes.options ?? {})));
  const generated = keys.filter((k) => !hand.includes(k)).sort();
  return Object.fromEntries([...hand, ...generated].map((k) => [k, merged[k]]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const codes = JSON.parse(readFileSync(CODES_PATH, "utf8"));
  const before = readFileSync(LANG_PATH, "utf8");
  const after = JSON.stringify(synced(JSON.parse(before), codes), null, 2) + "\n";
  if (process.argv.includes("--check")) {
    if (after !== before) {
      console.error("lang/en.json is out of date: run node tools/sync-lang.mjs");
      process.exit(1);
    }
  } else if (after !== before) {
    writeFileSync(LANG_PATH, after);
    console.log("lang/en.json updated");
  }
}
