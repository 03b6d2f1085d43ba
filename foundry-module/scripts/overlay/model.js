/**
 * What an overlay shows for one character: a plain object computed from the
 * table view the server sent. Pure (no Foundry, no PIXI) so it is tested in
 * Node; the server already removed what this viewer may not see, so this only
 * decides how to show what is there.
 */

import { remainingSeconds } from "../core/clock.js";
import { BADGES, POOLS, counters, dicePools, rattleMeter } from "../core/display.js";

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
  return {
    id: charId,
    name: ch.name,
    system,
    badges: badgeCodes.filter((b) => BADGES[b]).map((code) => ({ code, ...BADGES[code] })),
    dying,
    rattle: rattleMeter(system, ch),
    counters: counters(system, ch.sheet),
    roll,
  };
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
