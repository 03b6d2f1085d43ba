#!/usr/bin/env node
/**
 * The language files check (issue 27): every lang/*.json other than en.json
 * has exactly the keys of en.json (missing and extra keys are reported) and,
 * in each template, the same `{name}` placeholders as English (the same
 * names, each as many times; a translation never renames a placeholder).
 * Key order is reported too: a translation keeps en.json's order, so a
 * translator can read both files side by side.
 *
 * Counted keys are the exception: a key whose English has `<key>.other` is
 * said through its plural forms (core/intl.js pluralTemplate), and each
 * language gives the forms of its own grammar, as Intl.PluralRules names
 * them: English, German and French `one` and `other`, Russian `one`,
 * `few`, `many` and `other` (`other` always; `none` where English has it).
 * Such a form is compared with English's same form, else with `other`.
 * A key that is also the start of another (`A.b` and `A.b.c`) is reported:
 * Foundry nests a file's keys by their dots, so one would hide the other.
 *
 *   node foundry-module/tools/check-lang.mjs [lang/de.json …]
 *
 * Exit status 1 on any problem (or a file that is not a JSON object of
 * strings), 0 otherwise.
 */
import { readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PLURAL_FORMS } from "../scripts/core/intl.js";

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

/** The plural categories the language uses for whole numbers (0–1000), and always `other`. */
export function pluralForms(locale) {
  const rules = new Intl.PluralRules(locale);
  const forms = new Set(["other"]);
  for (let n = 0; n <= 1000; n++) forms.add(rules.select(n));
  return forms;
}

/** The counted keys of the English file: each group whose keys are all plural forms, `other` among them
 * (a choice group with an "other" choice, `VIGIL.Choice.reason.other`, has other keys too). */
export function pluralGroups(base) {
  const children = new Map();
  for (const key of Object.keys(base)) {
    const cut = key.lastIndexOf(".");
    const group = key.slice(0, cut);
    if (!children.has(group)) children.set(group, []);
    children.get(group).push(key.slice(cut + 1));
  }
  return new Set([...children].filter(([, forms]) => forms.includes("other") && forms.every((f) => PLURAL_FORMS.includes(f))).map(([g]) => g));
}

/** Keys that start another key (`A.b` and `A.b.c`): Foundry's nesting would lose one. */
export function nestingClashes(lang) {
  const keys = new Set(Object.keys(lang));
  return Object.keys(lang).filter((k) => {
    const parts = k.split(".");
    return parts.slice(1).some((_, i) => keys.has(parts.slice(0, i + 1).join(".")));
  });
}

/**
 * Compare a translation with the base (English).
 * @param {Record<string,string>} base
 * @param {Record<string,string>} lang
 * @param {string} [locale] the translation's language, for its plural forms
 * @returns {{missing: string[], extra: string[], placeholders: {key: string, expected: string[], found: string[]}[], order: boolean, shape: string[]}}
 *   `order` is true when the common keys are in the base's order.
 */
export function compare(base, lang, locale = "en") {
  const shape = shapeProblems(lang);
  if (shape.length && shape[0] === "not a JSON object") return { missing: Object.keys(base), extra: [], placeholders: [], order: true, shape };
  shape.push(...nestingClashes(lang).map((k) => `${k}: also the start of another key (Foundry nests keys by their dots)`));
  const forms = pluralForms(locale);
  // The keys this language should have: English's, with each counted key's forms made the language's own.
  const expected = new Map(); // key → [rank, English template to compare with]
  const groups = new Set();
  const counted = pluralGroups(base);
  Object.keys(base).forEach((key, i) => {
    const group = key.slice(0, key.lastIndexOf("."));
    const plural = counted.has(group) ? { group } : null;
    if (!plural) return expected.set(key, [[i, 0], base[key]]);
    if (groups.has(plural.group)) return undefined;
    groups.add(plural.group);
    for (const form of PLURAL_FORMS) {
      const english = base[`${plural.group}.${form}`];
      if ((form === "none" && typeof english === "string") || (form !== "none" && forms.has(form))) {
        expected.set(`${plural.group}.${form}`, [[i, PLURAL_FORMS.indexOf(form)], english ?? base[`${plural.group}.other`]]);
      }
    }
    return undefined;
  });
  const missing = [...expected.keys()].filter((k) => !Object.hasOwn(lang, k));
  const extra = Object.keys(lang).filter((k) => !expected.has(k));
  const differing = [];
  for (const [key, [, template]] of expected) {
    if (typeof lang[key] !== "string") continue;
    const want = placeholders(template);
    const found = placeholders(lang[key]);
    if (want.join("\u0000") !== found.join("\u0000")) differing.push({ key, expected: want, found });
  }
  const ranks = Object.keys(lang).filter((k) => expected.has(k)).map((k) => expected.get(k)[0]);
  const order = ranks.every((r, i) => i === 0 || r[0] > ranks[i - 1][0] || (r[0] === ranks[i - 1][0] && r[1] > ranks[i - 1][1]));
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
    lines.push(...report(basename(file), compare(base, lang, basename(file, ".json"))));
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
