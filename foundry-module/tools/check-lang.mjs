#!/usr/bin/env node
/**
 * The language files check (issue 27): every lang/*.json other than en.json
 * has exactly the keys of en.json (missing and extra keys are reported) and,
 * in each template, the same `{name}` placeholders as English (the same
 * names, each as many times; a translation never renames a placeholder).
 * Key order is reported too: a translation keeps en.json's order, so a
 * translator can read both files side by side.
 *
 *   node foundry-module/tools/check-lang.mjs [lang/de.json …]
 *
 * Exit status 1 on any problem (or a file that is not a JSON object of
 * strings), 0 otherwise.
 */
import { readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const LANG_DIR = join(here, "..", "lang");
export const BASE = "en.json";

const PLACEHOLDER = /\{([A-Za-z0-9_.]+)\}/g;

/** The placeholders of a template, as a sorted list (a name twice is listed twice). */
export function placeholders(template) {
  return [...String(template).matchAll(PLACEHOLDER)].map((m) => m[1]).sort();
}

/** Problems of a parsed language file's shape: it must be an object whose values are strings. */
export function shapeProblems(lang) {
  if (lang === null || typeof lang !== "object" || Array.isArray(lang)) return ["not a JSON object"];
  return Object.entries(lang)
    .filter(([, v]) => typeof v !== "string")
    .map(([k]) => `${k}: not a string`);
}

/**
 * Compare a translation with the base (English).
 * @param {Record<string,string>} base
 * @param {Record<string,string>} lang
 * @returns {{missing: string[], extra: string[], placeholders: {key: string, expected: string[], found: string[]}[], order: boolean, shape: string[]}}
 *   `order` is true when the common keys are in the base's order.
 */
export function compare(base, lang) {
  const shape = shapeProblems(lang);
  if (shape.length && shape[0] === "not a JSON object") return { missing: Object.keys(base), extra: [], placeholders: [], order: true, shape };
  const missing = Object.keys(base).filter((k) => !Object.hasOwn(lang, k));
  const extra = Object.keys(lang).filter((k) => !Object.hasOwn(base, k));
  const differing = [];
  for (const [key, template] of Object.entries(base)) {
    if (typeof lang[key] !== "string") continue;
    const expected = placeholders(template);
    const found = placeholders(lang[key]);
    if (expected.join("\u0000") !== found.join("\u0000")) differing.push({ key, expected, found });
  }
  const common = Object.keys(lang).filter((k) => Object.hasOwn(base, k));
  const baseOrder = Object.keys(base).filter((k) => Object.hasOwn(lang, k));
  const order = common.every((k, i) => k === baseOrder[i]);
  return { missing, extra, placeholders: differing, order, shape };
}

/** Whether a comparison found nothing wrong. */
export function clean(result) {
  return !result.missing.length && !result.extra.length && !result.placeholders.length && result.order && !result.shape.length;
}

/** A comparison as report lines, each prefixed with the file's name. */
export function report(name, result) {
  const lines = [];
  for (const s of result.shape) lines.push(`${name}: ${s}`);
  for (const k of result.missing) lines.push(`${name}: missing key ${k}`);
  for (const k of result.extra) lines.push(`${name}: extra key ${k}`);
  for (const p of result.placeholders) {
    lines.push(`${name}: ${p.key}: placeholders {${p.found.join("} {")}} instead of {${p.expected.join("} {")}}`.replace(/\{\}/g, "none"));
  }
  if (!result.order) lines.push(`${name}: keys are not in en.json's order`);
  return lines;
}

/** Check each file against en.json; returns the report lines (empty when all is well). */
export function checkFiles(files, baseFile = join(LANG_DIR, BASE)) {
  const base = JSON.parse(readFileSync(baseFile, "utf8"));
  const lines = [];
  for (const file of files) {
    let lang;
    try {
      lang = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      lines.push(`${basename(file)}: not valid JSON (${e.message})`);
      continue;
    }
    lines.push(...report(basename(file), compare(base, lang)));
  }
  return lines;
}

/** Every translation in a lang directory: its *.json files other than en.json. */
export function translations(dir = LANG_DIR) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== BASE)
    .sort()
    .map((f) => join(dir, f));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : translations();
  const lines = checkFiles(files);
  for (const line of lines) console.error(line);
  if (lines.length) {
    console.error(`${lines.length} problem(s) in ${files.length} language file(s).`);
    process.exit(1);
  }
  console.log(`${files.length} language file(s) match en.json: ${files.map((f) => basename(f)).join(", ") || "none"}.`);
}
