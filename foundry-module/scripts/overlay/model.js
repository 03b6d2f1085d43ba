/**
 * What an overlay shows for one character: a plain object computed from the
 * table view the server sent. Pure (no Foundry, no PIXI) so it is tested in
 * Node; the server already removed what this viewer may not see, so this only
 * decides how to show what is there.
 */

import { remainingSeconds } from "../core/clock.js";

/** DRYH pools, in the order the book lists them. Each has a colour and a
 * letter, and a shape for its success mark, so that colour is never the only
 * cue (DESIGN "Foundry module": colour-blind players). */
export const POOLS = {
  discipline: { letter: "D", fill: 0xf4f1e8, text: 0x111111, stroke: 0x555555 },
  exhaustion: { letter: "E", fill: 0x2b2b2b, text: 0xffffff, stroke: 0xbbbbbb },
  madness: { letter: "M", fill: 0xc62828, text: 0xffffff, stroke: 0x5a0f0f },
  pain: { letter: "P", fill: 0x1e5fbf, text: 0xffffff, stroke: 0x0b2a57 },
};
export const POOL_ORDER = ["discipline", "exhaustion", "madness", "pain"];

/** Status badges: a short letter code, a colour and a shape each. */
export const BADGES = {
  unconscious: { letter: "U", color: 0x6d6d6d, shape: "circle" },
  dying: { letter: "Dy", color: 0xb71c1c, shape: "diamond" },
  stabilized: { letter: "St", color: 0x2e7d32, shape: "square" },
  departed: { letter: "†", color: 0x212121, shape: "square" },
  crashed: { letter: "Cr", color: 0x455a64, shape: "circle" },
  snapped: { letter: "Sn", color: 0x8e24aa, shape: "diamond" },
  nightmare: { letter: "N", color: 0x4a148c, shape: "triangle" },
  seriously_injured: { letter: "SI", color: 0xd84315, shape: "triangle" },
  delirious: { letter: "De", color: 0xf9a825, shape: "diamond" },
  dead: { letter: "†", color: 0x000000, shape: "square" },
  insane: { letter: "In", color: 0x6a1b9a, shape: "triangle" },
  resting: { letter: "R", color: 0x1565c0, shape: "circle" },
  blind: { letter: "Bl", color: 0x37474f, shape: "square" },
  deaf: { letter: "Df", color: 0x37474f, shape: "square" },
};

/** A die succeeds on 1-3 in Don't Rest Your Head (DRYH-04). The server sends
 * `successes` as a count; the per-die mark is this same reading. */
export const isSuccess = (face) => face >= 1 && face <= 3;

function counters(system, sheet) {
  if (!sheet) return [];
  if (system === "mettle") {
    const out = [{ key: "pain", value: sheet.pain ?? 0, letter: "P", color: 0xb71c1c }];
    const injuries = Array.isArray(sheet.injuries) ? sheet.injuries.length : 0;
    if (injuries) out.push({ key: "injuries", value: injuries, letter: "I", color: 0xd84315 });
    return out;
  }
  if (system === "hursagmu") {
    return [
      { key: "stuns", value: sheet.stuns ?? 0, letter: "S", color: 0xf9a825 },
      { key: "wounds", value: sheet.wounds ?? 0, letter: "W", color: 0xb71c1c },
      { key: "shocks", value: sheet.shocks ?? 0, letter: "K", color: 0x6a1b9a },
    ].filter((c) => c.value > 0);
  }
  if (system === "dryh") {
    return [
      { key: "discipline", value: sheet.discipline ?? 0, letter: "D", color: 0x9e9e9e },
      { key: "exhaustion", value: sheet.exhaustion ?? 0, letter: "E", color: 0x2b2b2b },
      { key: "madness", value: sheet.madness ?? 0, letter: "M", color: 0xc62828 },
    ];
  }
  return [];
}

function rattleMeter(system, ch) {
  if (system !== "mettle" || !ch.sheet) return null;
  const value = ch.derived?.rattle ?? ch.sheet.rattle ?? 0;
  // Rattle has no fixed cap in the rules; the meter shows pips up to the
  // larger of the character's Mettle and the current value.
  const max = Math.max(value, ch.sheet.mettle ?? 5, 1);
  return { key: "rattle", value, max, letter: "R", color: 0xef6c00 };
}

function rollModel(roll) {
  if (!roll) return null;
  const dice = roll.dice;
  const pools = [];
  if (dice) {
    for (const pool of POOL_ORDER) {
      const faces = dice[pool] ?? [];
      if (!faces.length) continue;
      pools.push({ pool, ...POOLS[pool], faces: faces.map((f) => ({ face: f, success: isSuccess(f) })) });
    }
    for (const [helper, faces] of Object.entries(dice.helpers ?? {})) {
      if (faces?.length) pools.push({ pool: "discipline", helper, ...POOLS.discipline, faces: faces.map((f) => ({ face: f, success: isSuccess(f) })) });
    }
  }
  const successes = roll.successes ?? (dice ? pools.filter((p) => p.pool !== "pain").reduce((n, p) => n + p.faces.filter((f) => f.success).length, 0) : null);
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
