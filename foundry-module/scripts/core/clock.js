/**
 * Game time from the clock anchor the server sends. The server never sends
 * per-second ticks (see DESIGN "Time"): clients extrapolate from
 * {mode, rate, game, wall} and redraw countdowns themselves.
 */

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

/**
 * "mm:ss" under an hour, "h:mm:ss" under a day, "N days" beyond (a day and
 * more is read as days at the table: Pain & Mettle dying can last days).
 * Rounds up, so "00:00" is shown only when the time is really up.
 * @param {number} seconds
 * @param {{day?: (n:number)=>string, days?: (n:number)=>string}} [words] localized "N days" (optional)
 */
export function formatCountdown(seconds, words = {}) {
  const s = Math.max(0, Math.ceil(Number.isFinite(seconds) ? seconds : 0));
  if (s < 3600) return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
  if (s < 86400) return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  const days = Math.floor(s / 86400);
  if (days === 1) return words.day ? words.day(1) : "1 day";
  return words.days ? words.days(days) : `${days} days`;
}
