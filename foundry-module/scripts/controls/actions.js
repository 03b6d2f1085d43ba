/**
 * What the Vigil window offers for one character: the commands of its game
 * system, filtered by what the server lets this user do (DESIGN
 * "Permissions" and server/vigil/permissions.py: players act only on their
 * own characters, and only in the listed ways) and by what the state allows
 * now (a pending choice, an open roll to help in). Pure data, so the
 * filtering is tested without Foundry; the server still checks every command.
 *
 * An action: `id` (label VIGIL.Action.<id>) and `body(char, n, v, ctx)`,
 * the command for the window's character `char`, the shared number field
 * `n` and its own fields' values `v`; optionally
 *  - `player`: a player may send it for their own character (PLAYER_OWN);
 *  - `anyPlayer`: any player of the table may, on any character (PLAYER_ANY);
 *  - `amount`: it takes the window's shared number field;
 *  - `fields`: its own inputs (see FIELD KINDS);
 *  - `when(ctx)`: offered only when the state fits.
 * ctx = { state, char, role, own }.
 *
 * FIELD KINDS (label VIGIL.Field.<name>; a field's own `when(ctx)` hides it):
 *  - number {min, max, value, step}        → a number, null when empty
 *  - select {options, labels?, filter?} → one of `options`, labelled
 *    VIGIL.<labels>.<value> (labels defaults to Option.<name>);
 *    `filter(value, ctx)` hides options that do not fit the state
 *  - pick {choices(ctx) → [[value, label]], empty?} → a value from the state
 *    (characters, kits, injuries: labels are names, not translated); `empty`
 *    is the label key of a leading "none" option (value null)
 *  - text {maxlength}                      → a trimmed string
 *  - check                                 → a boolean
 * `required`: the window refuses to send while the field is empty (picks
 * without `empty` always are).
 */

import { CATALOGUE } from "../core/catalogue.js";

const rolls = (state) => state?.game?.rolls ?? {};
const sheetOf = (ctx) => ctx.state?.characters?.[ctx.char]?.sheet ?? null;
const phaseIn = (roll, ...phases) => Boolean(roll && phases.includes(roll.phase));
const rolled = (ctx) => phaseIn(rolls(ctx.state)[ctx.char], "rolled", "adjusted");

/** The open roll `char` takes part in, as protagonist or helper: [owner, roll] or null. */
export function rollOf(state, char) {
  for (const [owner, r] of Object.entries(rolls(state))) {
    if (owner === char || (r.helpers ?? []).includes(char)) return [owner, r];
  }
  return null;
}

/** DRYH-14/16/20: the choice `char` owes in a resolved roll: [owner, "discipline" | "madness"] or null. */
export function pendingOf(state, char) {
  for (const [owner, r] of Object.entries(rolls(state))) {
    const kind = r.pending?.[char];
    if (kind) return [owner, kind];
  }
  return null;
}

/** The table's other characters, [id, name], that `keep(id, character)`. */
const others = (ctx, keep = () => true) => Object.entries(ctx.state?.characters ?? {})
  .filter(([id, ch]) => id !== ctx.char && keep(id, ch))
  .map(([id, ch]) => [id, ch.name || id]);

/** DRYH-03: rolls not yet rolled that a character in no roll may join. */
const helpable = (ctx) => (rollOf(ctx.state, ctx.char) ? [] : others(ctx, (id) => phaseIn(rolls(ctx.state)[id], "open", "declared")));
const helping = (ctx) => {
  const found = rollOf(ctx.state, ctx.char);
  return found && found[0] !== ctx.char && phaseIn(found[1], "open", "declared") ? found[0] : null;
};

/** DRYH-14/16/20: the moves of each kind of pending choice, from the server's catalogue. */
const CHOICES = CATALOGUE.games.dryh.pending_choices;
const CHOICE_NEEDS = { uncheck_fight: "fight", uncheck_flight: "flight", exhaustion_down: "exhaustion" };
/** Only the choices of the pending kind, and (when the sheet is seen) none with nothing to take away. */
function choiceFits(value, ctx) {
  const pending = pendingOf(ctx.state, ctx.char);
  if (!pending || !CHOICES[pending[1]]?.includes(value)) return false;
  const need = CHOICE_NEEDS[value];
  const sheet = sheetOf(ctx);
  return !need || !sheet || (sheet[need] ?? 0) > 0;
}

/** DRYH-21: only on a failed roll, never the kind that dominated. */
function failureFits(value, ctx) {
  const dominant = rolls(ctx.state)[ctx.char]?.dominant;
  if (value === "exhaustion") return dominant !== "exhaustion";
  if (value === "fight" || value === "flight") return dominant !== "madness";
  return true;
}

/** MET-11: dying characters not yet stabilized, and the helper's kits with uses left. */
const dyingOthers = (ctx) => others(ctx, (id, ch) => (ch.badges ?? []).includes("dying") && !(ch.badges ?? []).includes("stabilized"));
const kitsOf = (ctx) => Object.entries(sheetOf(ctx)?.kits ?? {}).filter(([, uses]) => uses > 0).map(([kit, uses]) => [kit, `${kit} (${uses})`]);
const injuriesOf = (ctx) => (sheetOf(ctx)?.injuries ?? []).map((i) => [i.id, `${i.label || i.id} (${i.penalty})`]);

/** An optional field goes into a command only when set to something other
 * than the server's default for it (none, "", false, 0). */
const isGM = (ctx) => ctx.role === "gm";
const given = (key, value) => ([null, undefined, "", false, 0].includes(value) ? {} : { [key]: value });

/** amount: the command takes the window's number field. */
const ACTIONS = {
  mettle: [
    { id: "mettle.pain", amount: true, body: (char, n) => ({ type: "mettle.pain", char, amount: n }) },
    { id: "mettle.heal", amount: true, body: (char, n) => ({ type: "mettle.heal", char, amount: n }) },
    { id: "mettle.rattle", amount: true, body: (char, n) => ({ type: "mettle.rattle", char, amount: n }) },
    { id: "mettle.relieve", amount: true, body: (char, n) => ({ type: "mettle.relieve", char, amount: n }) },
    { id: "mettle.shake_off", amount: true, player: true, body: (char, n) => ({ type: "mettle.shake_off", char, effort: n }) },
    { id: "mettle.effort", amount: true, player: true, body: (char, n) => ({ type: "mettle.effort", char, effort: n }) },
    {
      id: "mettle.injury_add", amount: true,
      fields: [{ name: "label", kind: "text", maxlength: 64 }],
      body: (char, n, v) => ({ type: "mettle.injury_add", char, penalty: n, ...given("label", v.label) }),
    },
    {
      id: "mettle.injury_remove", when: (ctx) => injuriesOf(ctx).length > 0,
      fields: [{ name: "injury", kind: "pick", choices: injuriesOf }],
      body: (char, n, v) => ({ type: "mettle.injury_remove", char, injury: v.injury }),
    },
    {
      id: "mettle.stabilize", player: true, when: (ctx) => dyingOthers(ctx).length > 0 && kitsOf(ctx).length > 0,
      fields: [
        { name: "patient", kind: "pick", choices: dyingOthers },
        { name: "discipline", kind: "select", options: ["survival", "ingenuity", "lore", "intuition"] },
        { name: "kit", kind: "pick", choices: kitsOf },
        // The TN, modifiers and lot are the GM's input (MET-02/MET-11); a
        // player's attempt takes the table's stabilize_tn on the server.
        { name: "tn", kind: "number", min: -1000, max: 1000, required: true, when: isGM },
        { name: "modifiers", kind: "number", min: -1000, max: 1000, value: 0, when: isGM },
        { name: "lot", kind: "select", options: ["auto", "crit", "plain", "fail"], when: isGM },
      ],
      body: (char, n, v) => ({
        type: "mettle.stabilize", char: v.patient, helper: char, discipline: v.discipline, kit: v.kit,
        ...given("tn", v.tn), ...given("modifiers", v.modifiers), ...given("lot", v.lot === "auto" ? null : v.lot),
      }),
    },
    {
      id: "mettle.stabilize_by_fiat",
      fields: [{ name: "means", kind: "text", maxlength: 64 }],
      body: (char, n, v = {}) => ({ type: "mettle.stabilize_by_fiat", char, ...given("means", v.means) }),
    },
    {
      id: "mettle.kit_set",
      fields: [{ name: "kit", kind: "text", maxlength: 64, required: true }, { name: "uses", kind: "number", min: 0, max: 1000, value: 1, required: true }],
      body: (char, n, v) => ({ type: "mettle.kit_set", char, kit: v.kit, uses: v.uses }),
    },
    { id: "mettle.rest_start", player: true, body: (char) => ({ type: "mettle.rest_start", char }) },
    { id: "mettle.rest_stop", player: true, body: (char) => ({ type: "mettle.rest_stop", char }) },
    {
      id: "mettle.strenuous", player: true,
      fields: [{ name: "reason", kind: "select", options: ["hindrance", "faster_than_stride", "other"] }],
      body: (char, n, v) => ({ type: "mettle.strenuous", char, reason: v.reason }),
    },
  ],
  hursagmu: [
    { id: "hursagmu.harm.stuns", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, stuns: n }) },
    { id: "hursagmu.harm.wounds", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, wounds: n }) },
    { id: "hursagmu.harm.shocks", amount: true, body: (char, n) => ({ type: "hursagmu.harm", char, shocks: n }) },
    {
      id: "hursagmu.damage", amount: true,
      fields: [{ name: "bonus", kind: "number", min: -50, max: 50, value: 0 }],
      body: (char, n, v) => ({ type: "hursagmu.damage", char, amount: n, ...given("bonus", v.bonus) }),
    },
    {
      id: "hursagmu.fall",
      fields: [{ name: "spaces", kind: "number", min: 0, max: 10000, step: "any", value: 1, required: true }, { name: "athlete", kind: "check" }],
      body: (char, n, v) => ({ type: "hursagmu.fall", char, spaces: v.spaces, ...given("athlete", v.athlete) }),
    },
    {
      id: "hursagmu.poison",
      fields: [
        { name: "damage", kind: "number", min: 1, max: 100, value: 1, required: true },
        { name: "interval", kind: "number", min: 1, max: 3153600000, value: 60, required: true },
        { name: "duration", kind: "number", min: 1, max: 3153600000, value: 600, required: true },
        { name: "kind", kind: "select", options: ["poison", "drug"] },
        { name: "name", kind: "text", maxlength: 64 },
      ],
      body: (char, n, v) => ({ type: "hursagmu.poison", char, damage: v.damage, interval: v.interval, duration: v.duration, kind: v.kind, ...given("name", v.name) }),
    },
    {
      id: "hursagmu.heal",
      fields: [
        { name: "healer", kind: "pick", choices: (ctx) => others(ctx), empty: "VIGIL.Option.healer.npc" },
        { name: "healer_level", kind: "number", min: -20, max: 100, value: 0 },
      ],
      // HUR-11: a healer character of the table, or an NPC healer's level, never both.
      body: (char, n, v = {}) => (v.healer
        ? { type: "hursagmu.heal", patient: char, healer: v.healer }
        : { type: "hursagmu.heal", patient: char, healer_level: v.healer_level ?? 0 }),
    },
    { id: "hursagmu.morning", body: (char) => ({ type: "hursagmu.morning", char }) },
    { id: "hursagmu.rest", player: true, body: (char) => ({ type: "hursagmu.rest", char }) },
  ],
  dryh: [
    { id: "dryh.open", amount: true, body: (char, n) => ({ type: "dryh.open", char, pain: n }) },
    { id: "dryh.declare", amount: true, player: true, body: (char, n) => ({ type: "dryh.declare", char, madness: n }) },
    { id: "dryh.exhaustion_up", player: true, body: (char) => ({ type: "dryh.declare", char, exhaustion_up: true }) },
    {
      id: "dryh.help", player: true, when: (ctx) => helpable(ctx).length > 0,
      fields: [{ name: "owner", kind: "pick", choices: helpable }],
      body: (char, n, v) => ({ type: "dryh.help", char: v.owner, helper: char, leave: false }),
    },
    {
      id: "dryh.help_leave", player: true, when: (ctx) => Boolean(helping(ctx)),
      body: (char, n, v, ctx) => ({ type: "dryh.help", char: helping(ctx), helper: char, leave: true }),
    },
    { id: "dryh.roll", player: true, body: (char) => ({ type: "dryh.roll", char }) },
    {
      id: "dryh.despair_spend", when: rolled,
      fields: [
        { name: "pool", kind: "select", options: ["discipline", "exhaustion", "madness", "pain"], labels: "Pool" },
        { name: "op", kind: "select", options: ["add", "remove"] },
      ],
      body: (char, n, v) => ({ type: "dryh.despair_spend", char, pool: v.pool, op: v.op }),
    },
    { id: "dryh.hope_improve", player: true, anyPlayer: true, when: rolled, body: (char) => ({ type: "dryh.hope_improve", char }) },
    {
      id: "dryh.resolve",
      fields: [{
        name: "failure", kind: "select", options: ["none", "exhaustion", "fight", "flight"], filter: failureFits,
        when: (ctx) => Boolean(ctx.state?.options?.failure_consequences) && rolls(ctx.state)[ctx.char]?.success === false,
      }],
      body: (char, n, v = {}) => ({ type: "dryh.resolve", char, ...given("failure", v.failure) }),
    },
    {
      id: "dryh.choose", player: true, when: (ctx) => Boolean(pendingOf(ctx.state, ctx.char)),
      fields: [{ name: "choice", kind: "select", options: [...CHOICES.discipline, ...CHOICES.madness], filter: choiceFits }],
      body: (char, n, v, ctx) => ({ type: "dryh.choose", char: pendingOf(ctx.state, char)[0], who: char, choice: v.choice }),
    },
    { id: "dryh.cancel", body: (char) => ({ type: "dryh.cancel", char }) },
    {
      id: "dryh.hope_spend", player: true,
      fields: [{ name: "what", kind: "select", options: ["exhaustion", "fight", "flight"] }],
      body: (char, n, v = {}) => ({ type: "dryh.hope_spend", char, what: v.what ?? "exhaustion" }),
    },
    { id: "dryh.recover_discipline", player: true, body: (char) => ({ type: "dryh.recover_discipline", char }) },
    { id: "dryh.wake", body: (char) => ({ type: "dryh.wake", char }) },
    { id: "dryh.clear_snap", body: (char) => ({ type: "dryh.clear_snap", char }) },
  ],
};

/** Table-wide GM actions: clock and combat, and a system's own (`system`). */
export const TABLE_ACTIONS = [
  { id: "clock.pause", body: () => ({ type: "clock.pause" }) },
  { id: "clock.run", body: () => ({ type: "clock.run" }) },
  { id: "clock.follow", body: () => ({ type: "clock.follow", world_time: globalThis.game?.time?.worldTime ?? 0 }) },
  { id: "combat.start", body: () => ({ type: "combat.start" }) },
  { id: "combat.next_round", body: () => ({ type: "combat.next_round" }) },
  { id: "combat.end", body: () => ({ type: "combat.end" }) },
  { id: "dryh.session_start", system: "dryh", body: () => ({ type: "dryh.session_start" }) },
  { id: "dryh.session_end", system: "dryh", body: () => ({ type: "dryh.session_end" }) },
  { id: "hursagmu.morning_all", system: "hursagmu", body: () => ({ type: "hursagmu.morning" }) },
];

export const tableActionsFor = (system) => TABLE_ACTIONS.filter((a) => !a.system || a.system === system);

/**
 * @param {string} system "dryh" | "mettle" | "hursagmu"
 * @param {{role: string, own: boolean, anyOwn?: boolean}} who the
 *   connection's role, whether the character is one of the player's own,
 *   and whether the player has any character at all
 */
export function actionsFor(system, { role, own, anyOwn = own }) {
  const list = ACTIONS[system] ?? [];
  if (role === "gm") return list;
  if (role !== "player") return [];
  return list.filter((a) => (own && a.player) || (anyOwn && a.anyPlayer));
}

/** What the window shows for `char`: permitted, and fitting the state now. */
export function offeredFor(state, char, { role, ownCharacters = [] }) {
  const own = ownCharacters.includes(char);
  const ctx = { state, char, role, own };
  return actionsFor(state?.system, { role, own, anyOwn: ownCharacters.length > 0 }).filter((a) => !a.when || a.when(ctx));
}

/** The action's fields shown in this state. */
export const fieldsOf = (action, ctx) => (action.fields ?? []).filter((f) => !f.when || f.when(ctx));

/** A select field's options in this state: [value, label key]. */
export const optionsOf = (field, ctx) => (field.options ?? [])
  .filter((value) => !field.filter || field.filter(value, ctx))
  .map((value) => [value, `VIGIL.${field.labels ?? `Option.${field.name}`}.${value}`]);
