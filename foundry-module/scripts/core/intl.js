/**
 * The reader's language for what Intl says better than a language file:
 * numbers in the locale's digits, plural categories (CLDR, through
 * Intl.PluralRules) and lists ("a, b und c"). Its own module because both
 * the words (words.js) and the clock readings (clock.js) need it, and
 * words.js imports clock.js.
 */

/** The locale when a caller names none: English, the language every file falls back to. */
export const BASE_LOCALE = "en";

/** The CLDR plural categories a language file may give a counted key (`<key>.one`, `<key>.few`…),
 * plus `none`: the words for a count of 0 where a language says it apart ("no madness dice"). */
export const PLURAL_FORMS = ["none", "zero", "one", "two", "few", "many", "other"];

/**
 * Vigil's English is British ("armour", and lists without a serial comma,
 * as the server's words.py writes them for its logs: "8 wounds, 1 shock and
 * 2 stuns"), so the English file is said with en-GB's conventions.
 */
const TAGS = { en: "en-GB" };

const cache = new Map();
/** One Intl object per kind, locale and options (they are costly to make and immutable). */
function intl(Kind, locale, options = {}) {
  const id = `${Kind.name}|${locale}|${JSON.stringify(options)}`;
  if (!cache.has(id)) {
    let made;
    try {
      made = new Kind(TAGS[locale] ?? locale, options);
    } catch {
      made = new Kind(BASE_LOCALE, options); // an unknown tag ("xx") reads as English, never throws
    }
    cache.set(id, made);
  }
  return cache.get(id);
}

/**
 * A number as the locale writes it ("2.5" in English, "2,5" in German and
 * Russian). No grouping: the numbers of a game are small, and a seed, a
 * year or a port must never gain separators.
 */
export function formatNumber(n, locale = BASE_LOCALE) {
  return intl(Intl.NumberFormat, locale, { useGrouping: false, maximumFractionDigits: 2 }).format(n);
}

/** Items as one list in the locale's words: "a, b and c", "a, b und c", "a, b и c". */
export function formatList(items, locale = BASE_LOCALE) {
  return intl(Intl.ListFormat, locale, { type: "conjunction" }).format(items.map(String));
}

/** The CLDR plural category of `n` in the locale ("one", "few", "many", "other"). */
export function pluralCategory(n, locale = BASE_LOCALE) {
  return intl(Intl.PluralRules, locale).select(n);
}

/**
 * The template of a counted key for `n`: `<key>.none` for 0 when the file
 * has one, else `<key>.<category>` (Intl.PluralRules of the locale), else
 * `<key>.other`. A translation need hold only its own language's forms
 * (Russian one/few/many/other, German one/other); English is the fallback
 * of the lookup, not of this function.
 * @param {(key: string) => string|undefined} lookup
 */
export function pluralTemplate(lookup, key, n, locale = BASE_LOCALE) {
  const tries = [...(n === 0 ? [`${key}.none`] : []), `${key}.${pluralCategory(n, locale)}`, `${key}.other`];
  for (const k of tries) {
    const text = lookup(k);
    if (typeof text === "string") return text;
  }
  return undefined;
}

