/**
 * The module's language files as Foundry loads them (Node only: the
 * browser harnesses load foundry.mjs, which must not import node:fs). A
 * Foundry whose core "language" setting is `code` has game.i18n with that
 * file's translations and English as the fallback of a key it lacks
 * (foundry.mjs [i18n]).
 */
import { readFileSync } from "node:fs";
import { fakeI18n } from "./foundry.mjs";

const LANG_DIR = new URL("../../lang/", import.meta.url);

/** The module's language file for `code` ("en", "de", "fr", "ru"), as module.json's `languages` lists it. */
export function languageFile(code) {
  return JSON.parse(readFileSync(new URL(`${code}.json`, LANG_DIR), "utf8"));
}

/** game.i18n of a Foundry whose core "language" setting is `code`, with the module's files. */
export function i18nFor(code) {
  return fakeI18n(languageFile(code), { lang: code, fallback: code === "en" ? {} : languageFile("en") });
}
