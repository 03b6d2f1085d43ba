/**
 * What the dashboard and the spectator page share besides the client core:
 * reading the token from the URL fragment, loading the words catalogue,
 * building DOM safely, and re-rendering without losing the keyboard focus.
 *
 * Names and labels come from GMs and players, so every text goes in through
 * textContent (the `h` builder), never through innerHTML.
 */

import { keyWords, namesOf, wordsFor } from "/client/core/words.js";
import { formatCountdown } from "/client/core/clock.js";
import { explain } from "/client/core/explain.js";

export { namesOf };

/**
 * The page's access token and layout parameters. A token in the fragment
 * (`#token=…`) is moved to this tab's sessionStorage and removed from the
 * address bar, so that it does not show on a shared screen or in a
 * bookmark; other fragment parameters (`layout=overlay`) stay. Without one
 * in the fragment, the tab's own token, else the one this browser keeps
 * (keepToken): a bookmark, a new tab or the history opens the same table.
 * @param {string} storageKey storage key (one per page kind)
 */
export function takeToken(storageKey) {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const query = new URLSearchParams(location.search);
  let token = params.get("token");
  if (token) {
    sessionStorage.setItem(storageKey, token);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  } else {
    token = sessionStorage.getItem(storageKey) ?? localStorage.getItem(storageKey);
  }
  return { token, params, query };
}

/**
 * Keep a table's token in this browser's localStorage once the server has
 * taken it, so that the link keeps working from a bookmark or a new tab.
 * Safe enough: localStorage is this origin's alone (no other site reads
 * it), it never travels in a request as a cookie would (nothing to forge
 * across sites), the pages run no third-party script, and the token is the
 * one the person already holds in the link, limited to one table, revocable
 * by the GM and expiring. An operator's token (every table of the server)
 * stays in the tab only; Sign out forgets both (forgetToken).
 */
export function keepToken(storageKey, token, role) {
  if (role === "operator") localStorage.removeItem(storageKey);
  else localStorage.setItem(storageKey, token);
}

/** Forget the page's token in the tab and in the browser (a refused or signed-out one). */
export function forgetToken(storageKey) {
  sessionStorage.removeItem(storageKey);
  localStorage.removeItem(storageKey);
}

/**
 * A new link pasted into an open page (`#token=…` in the fragment) switches
 * to it: the page starts over with that token instead of going on showing
 * the table of the first one.
 */
export function followNewLinks() {
  window.addEventListener("hashchange", () => {
    if (new URLSearchParams(location.hash.replace(/^#/, "")).get("token")) location.reload();
  });
}

export function wsUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

let lang = {};
/** The language the page speaks (a code of module.json's `languages`). */
export let locale = "en";
/** Where this browser keeps the language picked on the pages (languagePicker). */
const LANG_KEY = "vigil.lang";

/**
 * Which language a page speaks, among `available` (codes): the link's
 * own (`lang=`: a stream speaks its streamer's language, not the
 * viewer's), else the one picked here before (`kept`), else the first of
 * the browser's languages that is available (de-AT reads German), else
 * English. Pure, so the order is stated once.
 * @param {string[]} available
 * @param {{asked?: string|null, kept?: string|null, browser?: readonly string[]}} sources
 */
export function chooseLanguage(available, { asked = null, kept = null, browser = [] } = {}) {
  const match = (tag) => {
    if (!tag) return null;
    const lower = String(tag).toLowerCase();
    return available.find((code) => code === lower) ?? available.find((code) => code === lower.split("-")[0]) ?? null;
  };
  return match(asked) ?? match(kept) ?? browser.map(match).find(Boolean) ?? "en";
}

async function readJson(url) {
  try {
    const reply = await fetch(url);
    return reply.ok ? await reply.json() : null;
  } catch {
    return null; // offline: keys and codes are shown as readable words
  }
}

/** The languages offered, by their own names ([{lang, name}]): the Foundry
 * module's (module.json `languages`), so the pages and the module offer the
 * same ones, listed once. */
let offered = [{ lang: "en", name: "English" }];

/**
 * Load the words: the Foundry module's lang file of the page's language
 * (chooseLanguage), over English (lang/en.json) key by key, so a key a
 * language lacks reads in English. The files hold every label and, synced
 * from the server's catalogue, every event and error template: the pages
 * and the module read one text. Sets `<html lang>` and fills the page's
 * static words (`translateStatic`). Without the files, labels fall back to
 * words made from their keys and sentences to their codes.
 */
export async function loadCatalogue() {
  const manifest = await readJson("/foundry/module.json");
  if (Array.isArray(manifest?.languages) && manifest.languages.length) offered = manifest.languages.map(({ lang: code, name }) => ({ lang: code, name }));
  locale = chooseLanguage(offered.map((l) => l.lang), {
    asked: languageAsked(),
    kept: localStorage.getItem(LANG_KEY),
    browser: navigator.languages ?? [navigator.language],
  });
  const [english, own] = await Promise.all([readJson("/foundry/lang/en.json"), locale === "en" ? null : readJson(`/foundry/lang/${locale}.json`)]);
  lang = { ...(english ?? {}), ...(own ?? {}) };
  words = wordsFor(locale, look, { missing: keyWords });
  plain = wordsFor(locale, look);
  document.documentElement.lang = locale;
  translateStatic(document);
  return lang;
}

/** The language the page's link asks for (`lang=` in its fragment or
 * query), or null. */
export function languageAsked() {
  return new URLSearchParams(location.hash.replace(/^#/, "")).get("lang") ?? new URLSearchParams(location.search).get("lang");
}

/**
 * Fill the words written in a page's HTML from the lang file: an
 * element's text from `data-t`, its attributes from `data-t-title`,
 * `data-t-label` (aria-label) and `data-t-placeholder`. The HTML keeps the
 * English text, which shows only until the words load.
 */
export function translateStatic(root) {
  for (const el of root.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const [data, attr] of [["tTitle", "title"], ["tLabel", "aria-label"], ["tPlaceholder", "placeholder"]]) {
    const selector = `[data-${data.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`;
    for (const el of root.querySelectorAll(selector)) el.setAttribute(attr, t(el.dataset[data]));
  }
}

/**
 * The language picker of the GM's and a player's page: the languages
 * offered, each by its own name; a choice is kept in this browser
 * (localStorage) and the page reloads in it (the token stays in the tab).
 */
export function languagePicker() {
  const select = h(
    "select",
    {
      id: "lang-picker",
      class: "lang-picker",
      "aria-label": t("VIGIL.Page.language"),
      onchange: () => {
        localStorage.setItem(LANG_KEY, select.value);
        location.reload();
      },
    },
    offered.map(({ lang: code, name }) => h("option", { value: code, lang: code }, name)),
  );
  select.value = locale;
  return select;
}

/** A link that opens in this page's language (`lang=` in its fragment):
 * a stream link the GM hands out speaks the GM's language. */
export function withLanguage(url) {
  const at = url.indexOf("#");
  const fragment = new URLSearchParams(at < 0 ? "" : url.slice(at + 1));
  fragment.set("lang", locale);
  return `${at < 0 ? url : url.slice(0, at)}#${fragment.toString()}`;
}

const look = (key) => lang[key];
/** The page's words in its language (core/words.js `wordsFor`): a missing
 * key reads as its last part in words ("Seriously injured"). */
let words = wordsFor(locale, look, { missing: keyWords });
/** The same with Foundry's game.i18n.localize's contract, a missing key
 * read as itself: for the client library's forms, which then put their own
 * words in its place (a field's name, "(none)" for an empty choice) rather
 * than the key's last part. */
let plain = wordsFor(locale, look);

/** A label by its lang key ("VIGIL.Badge.dying"), `{name}`s filled, a
 * counted key in the plural form for `n`, numbers in the locale's digits.
 * The client library's translator (core/words.js), as the module's `t`. */
export const t = (key, params) => words.t(key, params);

/** `t` for the client library's forms (a missing key is itself). */
export const localize = (key, params) => plain.t(key, params);

/** A game time as a clock reading in the page's language ("Tag 2, 07:15:03"). */
export const formatGameTime = (seconds) => words.time(seconds);

/** A countdown's reading ("mm:ss", "h:mm:ss", "3 Tage") in the page's language. */
export const countdownText = (seconds) => formatCountdown(seconds, { lookup: look, locale });

/** A readable sentence for a server error (VigilError {code, params}): the
 * client library's (core/words.js), as the module's notifications say it. */
export function errorSentence(err, names = {}) {
  return words.error(err, names);
}

/**
 * A history event as a sentence in the page's language (core/words.js
 * `eventSentence`, as the module says it): names, not ids; an event the
 * viewer may read only the bare fact of says just that.
 */
export function eventSentence(ev, names = {}) {
  return words.event(ev, names);
}

/**
 * Element builder: h("button", {type: "button", onclick}, "Text").
 * Attributes starting with "on" are listeners; `dataset` and `style` objects
 * are merged; `null`/`false` children are skipped; strings become text nodes.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "class") el.className = value;
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replace a container's children with freshly built ones, keeping what the
 * user was doing: the focused control (matched by `data-key`) gets the focus
 * back, and edited form fields (marked `data-key`, changed by the user since
 * the last render) keep their values. A patch then never steals the caret
 * or a half-typed number from the GM.
 */
export function swap(container, children) {
  const active = document.activeElement;
  const focusKey = active && container.contains(active) ? active.dataset.key : null;
  const kept = new Map();
  for (const el of container.querySelectorAll("[data-key][data-edited]")) {
    kept.set(el.dataset.key, el.type === "checkbox" ? el.checked : el.value);
  }
  container.replaceChildren();
  append(container, [children]);
  for (const el of container.querySelectorAll("[data-key]")) {
    if (kept.has(el.dataset.key)) {
      if (el.type === "checkbox") el.checked = kept.get(el.dataset.key);
      else el.value = kept.get(el.dataset.key);
      el.dataset.edited = "";
    }
  }
  if (focusKey) container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
}

/** Mark form fields as edited by the user (so `swap` keeps their values). */
export function trackEdits(root) {
  const mark = (ev) => {
    if (ev.target?.dataset && "key" in ev.target.dataset) ev.target.dataset.edited = "";
  };
  root.addEventListener("input", mark);
  root.addEventListener("change", mark);
}

/** A connection status in words (VIGIL.Page.status.<status>). */
export const statusWords = (status) => t(`VIGIL.Page.status.${status}`);

/**
 * Where the /verify page checks the dice this viewer was shown: its own
 * token in the fragment (the page moves it out of the address bar).
 */
export const verifyUrl = (token) => `/verify#token=${encodeURIComponent(token)}`;

/**
 * The dice period's fingerprint (docs/dice.md), shown wherever rolls are so
 * that a viewer can compare it with the commitment a reveal proves; its
 * title holds the whole commitment. Null for a table with no period.
 */
export function diceFingerprint(state, cls = "dice-proof") {
  const dice = state?.dice;
  if (!dice) return null;
  return h(
    "span",
    { class: cls, title: t("VIGIL.Dice.fingerprintTitle", dice), dataset: { commitment: dice.commitment } },
    t("VIGIL.Dice.fingerprint", dice),
  );
}

/**
 * Why a roll or a check came out as it did (core/explain.js): one line per
 * reason, its arithmetic in words and a link to the rule in the rules
 * reference this server serves (/rules/<game>?lang=<reader's>#<rule>); null for an event
 * that is no roll or check.
 */
export function explanation(ev, game) {
  const lines = explain(ev, { t, game, lang: locale });
  if (!lines.length) return null;
  return h(
    "span",
    { class: "explain" },
    lines.map((l) => h(
      "span",
      { class: "explain-line", dataset: { rule: l.rule ?? "" } },
      `${l.text} `,
      l.href ? h("a", { class: "rule-link", href: l.href, target: "_blank", rel: "noopener" }, t("VIGIL.Explain.rule", { rule: l.rule })) : null,
    )),
  );
}
