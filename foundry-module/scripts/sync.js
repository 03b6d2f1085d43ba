/**
 * Clock and combat sync, from the active GM's client only
 * (game.users.activeGM), so two GMs never double an advance.
 *
 * Combat uses `updateCombat`/`deleteCombat` rather than `combatStart` /
 * `combatRound`: Foundry fires those two only on the client that initiated
 * the change, before the database update, which need not be the active GM's;
 * `updateCombat` fires on every client after the update — for every
 * combat of the world, so only the active encounter (`Combat#active`,
 * https://foundryvtt.com/api/classes/foundry.documents.Combat.html) moves
 * Vigil's combat clock: advancing an encounter prepared on another scene
 * does not.
 */

import { hasGmDuties } from "./sessions.js";

const quiet = (p) => p?.catch?.(() => {});

/** The command (if any) a Foundry combat round change implies, given the
 * server's clock. Pure, so it is tested without Foundry. */
export function combatCommand(clock, changed, combat) {
  if (!clock || !changed || !("round" in changed)) return null;
  const round = changed.round ?? combat?.round ?? 0;
  if (round < 1) return null;
  if (!clock.in_combat) return { type: "combat.start" };
  if (round > (clock.round ?? 0)) return { type: "combat.next_round" };
  return null;
}

export function installSync(connection, Hooks = globalThis.Hooks, election) {
  const isActiveGM = () => hasGmDuties(globalThis.game, election);
  Hooks.on("updateWorldTime", (worldTime) => {
    if (!isActiveGM()) return;
    const clock = connection.state?.clock;
    if (clock?.mode !== "follow") return;
    quiet(connection.send({ type: "clock.world", world_time: worldTime }));
  });
  Hooks.on("updateCombat", (combat, changed) => {
    if (!isActiveGM() || !combat?.active) return;
    const cmd = combatCommand(connection.state?.clock, changed, combat);
    if (cmd) quiet(connection.send(cmd));
  });
  Hooks.on("deleteCombat", (combat) => {
    if (!isActiveGM() || !connection.state?.clock?.in_combat) return;
    const others = (globalThis.game.combats?.contents ?? []).some((c) => c !== combat && c.started && c.active);
    if (!others) quiet(connection.send({ type: "combat.end" }));
  });
}

/** Buttons of the GM window: start following Foundry's world time now. */
export const followWorldTime = (connection) =>
  connection.send({ type: "clock.follow", world_time: globalThis.game.time.worldTime });
