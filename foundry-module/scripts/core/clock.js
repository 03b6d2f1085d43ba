/**
 * Game time from the clock anchor the server sends. The server never sends
 * per-second ticks (docs/design.md "Time"): clients extrapolate from
 * {mode, rate, game, wall} and redraw countdowns themselves.
 */

import { BASE_LOCALE, formatNumber, pluralTemplate } from "./intl.js";

/**
 * Game seconds at a given wall-clock time (Unix seconds).
 * @param {{mode: string, rate: number, game: number, wall: number}|null|undefined} clock
 * @param {number} wallSeconds
 */
export function gameTimeAt(clock, wallSeconds) {
  if (!clock) return 0;
  if (clock.mode !== "running") return clock.game;
  // Never extrapolate backwards: a client clock a little behind the server's
  // would otherwise show time running in reverse just after a patch.
  return clock.game + Math.max(0, wallSeconds - clock.wall) * (clock.rate ?? 1);
}

/** Seconds left of a countdown (e.g. dying) at game time `now`, never negative. */
export function remainingSeconds(countdown, now) {
  return Math.max(0, (countdown?.until ?? 0) - now);
}

const pad = (n) => String(n).padStart(2, "0");

/** English when a caller gives no language file (tests, early hooks): the words of
 * lang/en.json, which core.test.mjs holds them to. */
export const ENGLISH = {
  "VIGIL.Time.reading": "day {day}, {time}",
  "VIGIL.Duration.days.one": "{n} day",
  "VIGIL.Duration.days.other": "{n} days",
  "VIGIL.Duration.hours.other": "{n} h",
  "VIGIL.Duration.minutes.other": "{n} min",
  "VIGIL.Duration.seconds.other": "{n} s",
};

/**
 * The words of a language file for a counted span (`VIGIL.Duration.<unit>`):
 * the locale's plural form with `{n}` written in its digits.
 * @param {{lookup?: (key: string) => string|undefined, locale?: string}} how
 */
function counted(how, unit, n) {
  const locale = how.locale ?? BASE_LOCALE;
  const template = pluralTemplate((k) => how.lookup?.(k) ?? ENGLISH[k], `VIGIL.Duration.${unit}`, n, locale);
  return template.replace("{n}", formatNumber(n, locale));
}

/**
 * "mm:ss" under an hour, "h:mm:ss" under a day, "N days" beyond (a day and
 * more is read as days at the table: Pain & Mettle dying can last days).
 * Rounds up, so "00:00" is shown only when the time is really up.
 * @param {number} seconds
 * @param {{lookup?: (key: string) => string|undefined, locale?: string, days?: (n: number) => string}} [how]
 *   the reader's language file and locale, for "N days" (English without),
 *   or a face's own words for them (`days`)
 */
export function formatCountdown(seconds, how = {}) {
  const s = Math.max(0, Math.ceil(Number.isFinite(seconds) ? seconds : 0));
  if (s < 3600) return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
  if (s < 86400) return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  const days = Math.floor(s / 86400);
  return how.days ? how.days(days) : counted(how, "days", days);
}

/**
 * Game time as a clock reading: "07:15:03" on the first day, "day 2,
 * 07:15:03" after (game time 0 is midnight of day 1). Used wherever a game
 * time is shown to people, never the raw seconds. The 24-hour reading is
 * the same in every language Vigil speaks; the day is worded by the file
 * (`VIGIL.Time.reading`).
 * @param {number} seconds game seconds
 * @param {{lookup?: (key: string) => string|undefined, locale?: string}} [how]
 */
export function formatGameTime(seconds, how = {}) {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const day = Math.floor(s / 86400);
  const time = `${pad(Math.floor((s % 86400) / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  if (!day) return time;
  const template = how.lookup?.("VIGIL.Time.reading") ?? ENGLISH["VIGIL.Time.reading"];
  return template.replace("{day}", formatNumber(day + 1, how.locale ?? BASE_LOCALE)).replace("{time}", time);
}

/**
 * A span of game time in words: "45 s", "12 min", "2 h 5 min", "3 days 4 h"
 * (as the language file words each unit: `VIGIL.Duration.<unit>`).
 * The two largest units only, rounded down (a duration is read at a glance;
 * countdowns that must be exact use formatCountdown).
 * @param {number} seconds
 * @param {{lookup?: (key: string) => string|undefined, locale?: string}} [how]
 */
export function formatDuration(seconds, how = {}) {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const units = [
    [86400, "days"],
    [3600, "hours"],
    [60, "minutes"],
    [1, "seconds"],
  ];
  const parts = [];
  let rest = s;
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 || (size === 1 && parts.length === 0)) {
      parts.push(counted(how, unit, n));
      rest -= n * size;
    }
    if (parts.length === 2) break;
    if (parts.length === 1 && n === 0 && size !== 1) break;
  }
  return parts.join(" ");
}
