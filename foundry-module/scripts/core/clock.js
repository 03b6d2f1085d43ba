/**
 * Game time from the clock anchor the server sends. The server never sends
 * per-second ticks (docs/design.md "Time"): clients extrapolate from
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

/**
 * Game time as a clock reading: "07:15:03" on the first day, "day 2,
 * 07:15:03" after (game time 0 is midnight of day 1). Used wherever a game
 * time is shown to people, never the raw seconds.
 * @param {number} seconds game seconds
 */
export function formatGameTime(seconds) {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const day = Math.floor(s / 86400);
  const time = `${pad(Math.floor((s % 86400) / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return day ? `day ${day + 1}, ${time}` : time;
}

/**
 * A span of game time in words: "45 s", "12 min", "2 h 5 min", "3 days 4 h".
 * The two largest units only, rounded down (a duration is read at a glance;
 * countdowns that must be exact use formatCountdown).
 * @param {number} seconds
 */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const units = [
    [86400, (n) => (n === 1 ? "1 day" : `${n} days`)],
    [3600, (n) => `${n} h`],
    [60, (n) => `${n} min`],
    [1, (n) => `${n} s`],
  ];
  const parts = [];
  let rest = s;
  for (const [size, word] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 || (size === 1 && parts.length === 0)) {
      parts.push(word(n));
      rest -= n * size;
    }
    if (parts.length === 2) break;
    if (parts.length === 1 && n === 0 && size !== 1) break;
  }
  return parts.join(" ");
}
