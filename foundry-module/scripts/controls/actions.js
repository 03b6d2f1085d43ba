/**
 * What the Vigil window offers for one character: the commands of its game
 * system, filtered by what the server lets this user do (DESIGN
 * "Permissions": players act only on their own characters, and only in the
 * listed ways). Pure data, so the filtering is tested without Foundry; the
 * server still checks every command.
 */

/** amount: the command takes the window's number field. */
const ACTIONS = {
  mettle: [
    { id: "mettle.pain", amount: true, body: (char, n) => ({ type: "mettle.pain", char, amount: n }) },
    { id: "mettle.heal", amount: true, body: (char, n) => ({ type: "mettle.heal", char, amount: n }) },
    { id: "mettle.rattle", amount: true, body: (char, n) => ({ type: "mettle.rattle", char, amount: n }) },
    { id: "mettle.relieve", amount: true, body: (char, n) => ({ type: "mettle.relieve", char, amount: n }) },
    { id: "mettle.shake_off", amount: true, player: true, body: (char, n) => ({ type: "mettle.shake_off", char, effort: n }) },
    { id: "mettle.injury_add", amount: true, body: (char, n) => ({ type: "mettle.injury_add", char, penalty: n }) },
    { id: "mettle.stabilize_by_fiat", body: (char) => ({ type: "mettle.stabilize_by_fiat", char }) },
    { id: "mettle.rest_start", player: true, body: (char) => ({ type: "mettle.rest_start", char }) },
    { id: "mettle.rest_stop", player: true, body: (char) => ({ type: "mettle.rest_stop", char }) },
  ],
  hursagmu: [
    { id: "hursagmu.harm.stuns", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, stuns: n }) },
    { id: "hursagmu.harm.wounds", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, wounds: n }) },
    { id: "hursagmu.harm.shocks", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, shocks: n }) },
    { id: "hursagmu.heal", body: (char) => ({ type: "hursagmu.heal", patient: char }) },
    { id: "hursagmu.rest", player: true, body: (char) => ({ type: "hursagmu.rest", char }) },
  ],
  dryh: [
    { id: "dryh.open", amount: true, body: (char, n) => ({ type: "dryh.open", char, pain: n }) },
    { id: "dryh.declare", amount: true, player: true, body: (char, n) => ({ type: "dryh.declare", char, madness: n }) },
    { id: "dryh.exhaustion_up", player: true, body: (char) => ({ type: "dryh.declare", char, exhaustion_up: true }) },
    { id: "dryh.roll", player: true, body: (char) => ({ type: "dryh.roll", char }) },
    { id: "dryh.hope_improve", player: true, body: (char) => ({ type: "dryh.hope_improve", char }) },
    { id: "dryh.resolve", body: (char) => ({ type: "dryh.resolve", char }) },
    { id: "dryh.cancel", body: (char) => ({ type: "dryh.cancel", char }) },
    { id: "dryh.hope_spend", player: true, body: (char) => ({ type: "dryh.hope_spend", char, what: "exhaustion" }) },
    { id: "dryh.recover_discipline", player: true, body: (char) => ({ type: "dryh.recover_discipline", char }) },
  ],
};

/** Table-wide GM actions (clock and combat). */
export const TABLE_ACTIONS = [
  { id: "clock.pause", body: () => ({ type: "clock.pause" }) },
  { id: "clock.run", body: () => ({ type: "clock.run" }) },
  { id: "clock.follow", body: () => ({ type: "clock.follow", world_time: globalThis.game?.time?.worldTime ?? 0 }) },
  { id: "combat.start", body: () => ({ type: "combat.start" }) },
  { id: "combat.next_round", body: () => ({ type: "combat.next_round" }) },
  { id: "combat.end", body: () => ({ type: "combat.end" }) },
];

/**
 * @param {string} system "dryh" | "mettle" | "hursagmu"
 * @param {{role: string, own: boolean}} who the connection's role and
 *   whether the character is one of the player's own
 */
export function actionsFor(system, { role, own }) {
  const list = ACTIONS[system] ?? [];
  if (role === "gm") return list;
  if (role === "player" && own) return list.filter((a) => a.player);
  return [];
}
