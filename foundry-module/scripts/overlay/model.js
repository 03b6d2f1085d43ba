/**
 * What an overlay shows for one character: a plain object computed from the
 * table view the server sent. Pure (no Foundry, no PIXI) so it is tested in
 * Node; the server already removed what this viewer may not see, so this only
 * decides how to show what is there.
 */

import { remainingSeconds } from "../core/clock.js";
import { BADGES, POOLS, counters, countdownsOf, dicePools, rattleMeter } from "../core/display.js";

// The display model is the client library's (core/display.js); re-exported
// for the overlay's drawing code.
export { BADGES, POOLS };

function rollModel(roll) {
  if (!roll) return null;
  const pools = dicePools("dryh", roll.dice).map((p) => ({ ...p, ...POOLS[p.pool] }));
  // The server counts successes (hidden helpers included); a view without
  // the count sums the marks of the dice it has.
  const successes = roll.successes ?? (roll.dice ? pools.filter((p) => p.pool !== "pain").reduce((n, p) => n + p.faces.filter((f) => f.success).length, 0) : null);
  return { phase: roll.phase, pools, dominant: roll.dominant ?? null, successes, success: roll.success ?? null, pain: roll.pain ?? null };
}

/**
 * @param {object} state the table view (VigilClient#state)
 * @param {string} charId
 * @param {number} now game seconds now (VigilClient#gameNow)
 * @returns {object|null} null when the character is not in this view
 */
export function overlayModel(state, charId, now) {
  const ch = state?.characters?.[charId];
  if (!ch) return null;
  const system = state.system;
  const badgeCodes = Array.isArray(ch.badges) ? ch.badges : [];
  const departed = badgeCodes.includes("departed") || ch.sheet?.status === "departed" || ch.derived?.status === "departed";
  const dyingCd = (ch.countdowns ?? []).find((c) => c.kind === "dying");
  let dying = null;
  if (departed) dying = { departed: true, remaining: 0, fraction: 0 };
  else if (dyingCd) {
    const total = Math.max(1, (dyingCd.until ?? 0) - (dyingCd.since ?? 0));
    const remaining = remainingSeconds(dyingCd, now);
    dying = { departed: false, until: dyingCd.until, since: dyingCd.since, total, remaining, fraction: Math.min(1, remaining / total) };
  }
  const roll = system === "dryh" ? rollModel(state.game?.rolls?.[charId] ?? ch.derived?.roll ?? null) : null;
  // Every other countdown the pages draw (a poison's next dose, rest and
  // recovery rolls, busy, a drug), from the clock anchor like Dying.
  const timers = countdownsOf(system, ch)
    .filter((c) => c.kind !== "dying" && typeof c.until === "number" && Number.isFinite(c.until))
    .map(({ kind, until, since = null, name = null }) => ({ kind, until, since, name }));
  return {
    id: charId,
    name: ch.name,
    system,
    badges: badgeCodes.filter((b) => BADGES[b]).map((code) => ({ code, ...BADGES[code] })),
    dying,
    timers,
    rattle: rattleMeter(system, ch),
    counters: counters(system, ch.sheet),
    roll,
  };
}

/** What an overlay draws from a model, apart from what the clock moves
 * (the countdowns' remaining time, the falling rattle): two models with the
 * same signature draw the same overlay, so it is not rebuilt. */
export function modelSignature(model) {
  return JSON.stringify(model, (key, value) => (key === "remaining" || key === "fraction" ? undefined : value));
}

/**
 * Which characters' overlays a patch may change (`changes` of a "state"
 * event, shaped like the view: core/patch.js), or null for all of them (a
 * snapshot, a change of game). An overlay reads only `system`, its own
 * `characters[id]` and its own `game.rolls[id]`; the clock's anchor moves
 * countdowns without a redraw (the ticker reads it), and nothing else
 * shows on a token. Pure.
 */
export function touchedCharacters(changes) {
  if (!changes || typeof changes !== "object") return null;
  if ("system" in changes) return null;
  const out = new Set();
  const add = (part) => {
    if (Array.isArray(part)) return false; // replaced whole
    if (part && typeof part === "object") for (const id of Object.keys(part)) out.add(id);
    return true;
  };
  if ("characters" in changes && !add(changes.characters)) return null;
  const game = changes.game;
  if (Array.isArray(game)) return null;
  if (game && typeof game === "object" && "rolls" in game && !add(game.rolls)) return null;
  return out;
}

/** The Vigil character shown on a Foundry token: its token id first, else its
 * actor (for characters linked by actor only). */
export function characterForToken(state, tokenDoc) {
  if (!state?.characters || !tokenDoc) return null;
  let byActor = null;
  for (const [id, ch] of Object.entries(state.characters)) {
    if (ch.token_id && ch.token_id === tokenDoc.id) return id;
    if (!ch.token_id && ch.actor_id && ch.actor_id === tokenDoc.actorId && byActor === null) byActor = id;
  }
  return byActor;
}
