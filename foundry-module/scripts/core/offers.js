/**
 * What a viewer may send now, for one character or for the table: the
 * command catalogue's commands (schemas/catalogue.json; who may send each
 * is its `senders`, the server's permissions.py) narrowed by what the
 * table's state allows at this moment — what the catalogue cannot say:
 * an open roll to help in, a pending choice, the legal moves the server
 * puts in the view (DRYH: state.game.rolls[owner].legal = {failures,
 * choices}, server/vigil/rules/dryh/view.py legal_moves), someone dying to
 * stabilize. Pure data, shared by every client (the Foundry window; the
 * dashboard draws its forms and its DRYH roll controls from these offers);
 * the server still checks every command.
 *
 * An offer: {entry, char, values, choices}, the ctx members of
 * buildForm (core/forms.js) that make the form of that command for this
 * viewer and this moment: `char` prefills the subject, `values` other
 * fields, `choices` narrows enum/character/ref fields.
 */

import { maySend, refOwner, subjectField } from "./forms.js";

const rolls = (state) => state?.game?.rolls ?? {};
const phaseIn = (roll, ...phases) => Boolean(roll && phases.includes(roll.phase));

/**
 * May a viewer send command `entry` with these character fields? The GM
 * always (when the catalogue lets a GM send it); a player as the catalogue's
 * senders say: any player of the table, or the fields it must own naming
 * its own characters.
 */
export function mayAct(entry, { role, own = [] } = {}, fields = {}) {
  if (!maySend(entry, { role, own })) return false;
  if (role !== "player") return true;
  const rules = entry.senders.player;
  return Boolean(rules.any) || (rules.own ?? []).every((name) => own.includes(fields[name]));
}

/** The open roll `char` takes part in, as protagonist or helper: [owner, roll] or null. */
export function rollOf(state, char) {
  for (const [owner, r] of Object.entries(rolls(state))) {
    if (owner === char || (r.helpers ?? []).includes(char)) return [owner, r];
  }
  return null;
}

/** DRYH-14/16/20: the choice `char` owes in a resolved roll: [owner, kind] or null. */
export function pendingOf(state, char) {
  for (const [owner, r] of Object.entries(rolls(state))) {
    const kind = r.pending?.[char];
    if (kind) return [owner, kind];
  }
  return null;
}

/** The legal moves the server lists for `owner`'s roll (DRYH): {failures, choices}. */
export const legalOf = (state, owner) => rolls(state)[owner]?.legal ?? { failures: [], choices: {} };

/** The table's characters other than `char` that `keep(id, character)`. */
const others = (state, char, keep = () => true) => Object.entries(state?.characters ?? {})
  .filter(([id, ch]) => id !== char && keep(id, ch))
  .map(([id]) => id);

const waitsOf = (catalogue, system) => catalogue?.games?.[system]?.waits ?? [];

/**
 * What waits on character `char` for its answer: the waits of the game
 * (catalogue `games.<game>.waits`, the server's rules/game.py Wait) whose
 * sheet field is set — HUR-14: a fall the GM declared (`pending_fall`)
 * until its character breaks or takes it. Only for a viewer who sees the
 * sheet. [wait] ({field, answers, blocks, refusal}).
 */
export function waitsOn(catalogue, state, char) {
  const sheet = state?.characters?.[char]?.sheet;
  if (!sheet) return [];
  return waitsOf(catalogue, state.system).filter((w) => (sheet[w.field] ?? null) !== null);
}

/** Whether command `tag` answers a wait of the game (offered only while it waits). */
export const answersAWait = (catalogue, system, tag) => waitsOf(catalogue, system).some((w) => w.answers.includes(tag));

/**
 * The wait that makes the server refuse `entry` with these field values
 * (the character acting in it is waiting: a falling character's own rolls,
 * HUR-14), or null.
 */
export function blockedBy(catalogue, state, entry, values) {
  for (const w of waitsOf(catalogue, state?.system)) {
    const name = w.blocks?.[entry.type];
    if (name && typeof values[name] === "string" && waitsOn(catalogue, state, values[name]).includes(w)) return w;
  }
  return null;
}

const badgesOf = (ch) => ch?.badges ?? [];
const dying = (ch) => badgesOf(ch).includes("dying") && !badgesOf(ch).includes("stabilized");
/** MET-11: a helper must be able to act (active: no unconscious, dying or departed badge). */
const able = (ch) => !badgesOf(ch).some((b) => b === "unconscious" || b === "dying" || b === "departed");
const kitsLeft = (ch) => Object.entries(ch?.sheet?.kits ?? {}).filter(([, uses]) => uses > 0).map(([kit]) => kit);
const byName = (state) => (a, b) => String(state.characters[a]?.name ?? a).localeCompare(String(state.characters[b]?.name ?? b)) || a.localeCompare(b);

/**
 * The state's say on a command for character `char` and this viewer
 * ({role, own}), by tag: null (not now) or {values, choices, subject} —
 * `subject: false` when the window's character is not the command's subject
 * (it helps, or chooses, in another's roll). Commands not listed are
 * offered as the catalogue says.
 */
const NOW = {
  // DRYH-03: join a roll not yet rolled while in none; or leave the one joined.
  "dryh.help": (state, char) => {
    const mine = rollOf(state, char);
    if (mine && mine[0] !== char && phaseIn(mine[1], "open", "declared")) {
      return { subject: false, values: { char: mine[0], helper: char, leave: true }, choices: { char: [mine[0]], helper: [char] } };
    }
    const open = mine ? [] : others(state, char, (id) => phaseIn(rolls(state)[id], "open", "declared"));
    return open.length ? { subject: false, values: { helper: char }, choices: { char: open, helper: [char] } } : null;
  },
  // DRYH-07/09: despair and hope change dice already rolled.
  "dryh.despair_spend": (state, char) => (phaseIn(rolls(state)[char], "rolled", "adjusted") ? {} : null),
  "dryh.hope_improve": (state, char) => (phaseIn(rolls(state)[char], "rolled", "adjusted") ? {} : null),
  // DRYH-21: only the failure consequences the rules would accept now.
  "dryh.resolve": (state, char) => {
    if (!phaseIn(rolls(state)[char], "rolled", "adjusted")) return null;
    const failures = legalOf(state, char).failures ?? [];
    return failures.length ? { choices: { failure: failures } } : null;
  },
  // DRYH-14/16/20: the choice this character owes, with the legal moves only.
  "dryh.choose": (state, char) => {
    const pending = pendingOf(state, char);
    if (!pending) return null;
    const legal = legalOf(state, pending[0]).choices?.[char] ?? [];
    if (!legal.length) return null;
    return { subject: false, values: { char: pending[0], who: char }, choices: { char: [pending[0]], who: [char], choice: legal } };
  },
  // MET-11: a dying window character is stabilized by another present one
  // (the viewer's own, for a player), one with kit uses left first; else the
  // window's character helps a dying one, with a kit that has uses left.
  "mettle.stabilize": (state, char, { role, own = [] } = {}) => {
    const me = state?.characters?.[char];
    if (dying(me)) {
      const helpers = others(state, char, (id, ch) => able(ch) && (role !== "player" || own.includes(id))).sort(byName(state));
      if (!helpers.length) return null;
      const helper = helpers.find((id) => kitsLeft(state.characters[id]).length) ?? helpers[0];
      return { values: { helper }, choices: { helper: helpers } };
    }
    const patients = others(state, char, (id, ch) => dying(ch));
    const kits = kitsLeft(me);
    if (!patients.length || !kits.length || !able(me)) return null;
    return { subject: false, values: { helper: char }, choices: { char: patients, helper: [char], kit: kits } };
  },
  // HUR-11: a healer of the table is another character (or an NPC's level).
  "hursagmu.heal": (state, char) => ({ choices: { healer: others(state, char) } }),
};

/** Required ref fields naming things the owner lacks (an injury to remove
 * when there is none): such a command is not offered. */
function refsMissing(catalogue, entry, state, char, values) {
  const game = catalogue.games?.[entry.game ?? state?.system];
  for (const f of entry.fields ?? []) {
    if (f.type !== "ref" || !f.required || f.ref_new) continue;
    const owner = values[refOwner(entry, f)] ?? char;
    const where = game?.refs?.[f.ref];
    const coll = where?.path ? state?.characters?.[owner]?.sheet?.[where.path] : null;
    const count = Array.isArray(coll) ? coll.length : coll && typeof coll === "object" ? Object.keys(coll).length : 0;
    if (count === 0) return true;
  }
  return false;
}

/** `entry` without the optional fields the state narrows to their default
 * alone (a resolve whose only legal failure is "none"): nothing to choose,
 * and the server applies that default. */
function withoutFixed(entry, choices) {
  const fixed = (f) => !f.required && Array.isArray(choices[f.name]) && choices[f.name].length === 1 && choices[f.name][0] === f.default;
  return (entry.fields ?? []).some(fixed) ? { ...entry, fields: entry.fields.filter((f) => !fixed(f)) } : entry;
}

/** The catalogue commands of a game, in the game's own order, then any other generic ones. */
export function commandsOf(catalogue, system) {
  const listed = catalogue.games?.[system]?.commands ?? [];
  const rest = Object.values(catalogue.commands).filter((e) => (e.game === null || e.game === system) && !listed.includes(e.type)).map((e) => e.type);
  return [...listed, ...rest].map((tag) => catalogue.commands[tag]).filter(Boolean);
}

/**
 * The commands a viewer may send now for character `char` (catalogue
 * scope "character"), as offers for buildForm. A player gets those the
 * catalogue lets any player send, and on its own characters those whose
 * own-fields the window's character fills.
 * @param {object} catalogue  CATALOGUE (core/catalogue.js)
 * @param {object} state      the table view (VigilClient.state)
 * @param {string} char       the window's character
 * @param {{role: string, own?: string[]}} viewer
 */
export function characterOffers(catalogue, state, char, { role, own = [] } = {}) {
  if (!state?.characters?.[char]) return [];
  const out = [];
  const waiting = waitsOn(catalogue, state, char);
  for (const entry of commandsOf(catalogue, state.system)) {
    if (entry.scope !== "character" || !maySend(entry, { role, own })) continue;
    // HUR-14: an answer only while what it answers waits on this character.
    if (answersAWait(catalogue, state.system, entry.type) && !waiting.some((w) => w.answers.includes(entry.type))) continue;
    const rule = NOW[entry.type];
    const now = rule ? rule(state, char, { role, own }) : {};
    if (!now) continue;
    const subject = subjectField(entry)?.name;
    const values = { ...(now.values ?? {}) };
    const isSubject = now.subject !== false;
    if (isSubject && subject) values[subject] = char;
    // A player: the window's character must be what the command lets it name.
    if (role === "player") {
      const rules = entry.senders.player;
      if (!rules.any) {
        if (!own.includes(char)) continue;
        for (const name of rules.own ?? []) if (!(name in values)) values[name] = char;
      }
      if (!mayAct(entry, { role, own }, values)) continue;
    }
    if (refsMissing(catalogue, entry, state, char, values)) continue;
    // The server refuses a waiting character's own actions: not offered, and
    // not among the characters a field lets act (a falling healer).
    if (blockedBy(catalogue, state, entry, values)) continue;
    const choices = narrowWaiting(catalogue, state, entry, now.choices ?? {});
    out.push({ entry: withoutFixed(entry, choices), char: isSubject ? char : null, values, choices });
  }
  // What waits on the character is answered first (HUR-14: break or take the fall).
  const first = (o) => (waiting.some((w) => w.answers.includes(o.entry.type)) ? 0 : 1);
  return out.sort((a, b) => first(a) - first(b));
}

/** `choices` without the waiting characters in the field a wait blocks for `entry`. */
function narrowWaiting(catalogue, state, entry, choices) {
  let out = choices;
  for (const w of waitsOf(catalogue, state?.system)) {
    const name = w.blocks?.[entry.type];
    if (!name || !Array.isArray(out[name])) continue;
    out = { ...out, [name]: out[name].filter((id) => !waitsOn(catalogue, state, id).includes(w)) };
  }
  return out;
}

/**
 * The table-wide commands (catalogue scope "table") of the table's game a
 * viewer may send, except `skip` (tags a client does elsewhere), as offers.
 * `values` prefills fields by tag (e.g. clock.follow's world_time).
 */
export function tableOffers(catalogue, state, { role, own = [] } = {}, { skip = [], values = {} } = {}) {
  return commandsOf(catalogue, state?.system)
    .filter((e) => e.scope === "table" && !skip.includes(e.type) && maySend(e, { role, own }))
    .map((entry) => ({ entry, char: null, values: values[entry.type] ?? {}, choices: {} }));
}
