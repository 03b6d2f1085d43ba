/**
 * What a viewer may send now, for one character or for the table: the
 * command catalogue's commands (schemas/catalogue.json; who may send each
 * is its `senders`, the server's permissions.py) narrowed by what the
 * server says is legal now. Every view of a GM or a player carries
 * `legal` (server/vigil/moves.py, from the rules' own checks put to
 * candidate commands: server/vigil/rules/legal.py):
 * {table: {tag: offer}, chars: {subject: {tag: offer}}}, an offer being
 * 1 (legal as the form's defaults make it), 0 (legal if the values the
 * person gives are: the form decides) or the list of the accepted
 * variants of the fields beyond the subject ({helper: "b", leave: false}).
 * A command the catalogue marks `legal` is offered only as that says;
 * nothing here re-guesses a rule. Pure data, shared by every client (the
 * Foundry window; the dashboard draws its forms and its DRYH roll controls
 * from these offers); the server still checks every command.
 *
 * An offer: {entry, char, values, choices}, the ctx members of
 * buildForm (core/forms.js) that make the form of that command for this
 * viewer and this moment: `char` prefills the subject, `values` other
 * fields, `choices` narrows enum/character/ref fields.
 */

import { maySend, subjectField } from "./fields.js";

const rolls = (state) => state?.game?.rolls ?? {};

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

/** The legal moves the server lists for `owner`'s roll (DRYH): {failures, choices}. */
export const legalOf = (state, owner) => rolls(state)[owner]?.legal ?? { failures: [], choices: {} };

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

/** Whether command `tag` answers a wait of the game (offered first while it waits). */
export const answersAWait = (catalogue, system, tag) => waitsOf(catalogue, system).some((w) => w.answers.includes(tag));

/** The server's offer of command `tag` on subject `char` (state.legal), or undefined when not legal now. */
export const legalFor = (state, char, tag) => state?.legal?.chars?.[char]?.[tag];

/** Does the view say when `entry` is legal (the catalogue's `legal` commands)? */
const judged = (entry) => Boolean(entry.legal);

/** `choices` with each variant's values added (the distinct values per field). */
function gather(choices, variants) {
  for (const v of variants) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) continue;
      choices[k] ??= [];
      if (!choices[k].includes(x)) choices[k].push(x);
    }
  }
  return choices;
}

/** The values every variant agrees on (prefilled; the others are the person's to pick). */
const agreed = (choices) => Object.fromEntries(Object.entries(choices).filter(([, xs]) => xs.length === 1).map(([k, xs]) => [k, xs[0]]));

/**
 * The server's say on `entry` for the window's character `char`: as the
 * command's subject ({values, choices}), or as another character field of
 * it ({subject: false, …}: it helps in another's roll, chooses in it,
 * stabilizes another as the helper), or null (not legal now).
 */
function fromLegal(entry, state, char) {
  const subject = subjectField(entry)?.name;
  // The field naming who acts, when not the subject (a helper, a chooser:
  // the catalogue's senders.player.own); else the window's character is
  // what the command acts on (a patient, with its healers to pick).
  const fields = (entry.senders?.player?.own ?? []).filter((k) => k !== subject);
  const mine = legalFor(state, char, entry.type);
  if (mine !== undefined && !Array.isArray(mine)) return { values: {}, choices: {} };
  const asSubject = (variants) => {
    const choices = gather({}, variants);
    return { values: agreed(choices), choices };
  };
  if (!fields.length) return mine?.length ? asSubject(mine) : null;
  // Its own move, the window's character acting itself (a protagonist's choice).
  const itself = (mine ?? []).filter((v) => fields.every((k) => v[k] === undefined || v[k] === null || v[k] === char));
  if (itself.length) return asSubject(itself);
  // Its part in another's move: it helps in another's roll, chooses in it, stabilizes another.
  const found = [];
  for (const [owner, tags] of Object.entries(state?.legal?.chars ?? {})) {
    const offer = tags[entry.type];
    if (owner === char || !Array.isArray(offer)) continue;
    for (const v of offer) if (fields.some((k) => v[k] === char)) found.push([owner, v]);
  }
  if (found.length) {
    const choices = gather({}, found.map(([, v]) => v));
    choices[subject] = [...new Set(found.map(([owner]) => owner))];
    return { subject: false, values: { ...agreed(choices), [subject]: found[0][0] }, choices };
  }
  // Others acting on it (a dying character stabilized by another).
  return mine?.length ? asSubject(mine) : null;
}

/** DRYH-21: only the failure consequences a resolve would accept, from the roll's own legal moves (rules/dryh/view.py). */
function narrowed(entry, state, char, now) {
  if (entry.type !== "dryh.resolve" || !now) return now;
  const failures = legalOf(state, char).failures ?? [];
  return { ...now, choices: { ...now.choices, failure: failures.length ? failures : ["none"] } };
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
 * scope "character"), as offers for buildForm: those the server says are
 * legal now for this viewer (`state.legal`), the others as the catalogue's
 * senders say. A player gets only those on its own characters' behalf.
 * What waits on the character (HUR-14: a declared fall) comes first.
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
    const now = judged(entry) ? narrowed(entry, state, char, fromLegal(entry, state, char)) : {};
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
    const choices = now.choices ?? {};
    out.push({ entry: withoutFixed(entry, choices), char: isSubject ? char : null, values, choices });
  }
  const first = (o) => (waiting.some((w) => w.answers.includes(o.entry.type)) ? 0 : 1);
  return out.sort((a, b) => first(a) - first(b));
}

/**
 * The table-wide commands (catalogue scope "table") of the table's game a
 * viewer may send now, except `skip` (tags a client does elsewhere), as
 * offers: those whose legality the view publishes only while legal
 * (combat, sessions…). `values` prefills fields by tag (e.g.
 * clock.follow's world_time).
 */
export function tableOffers(catalogue, state, { role, own = [] } = {}, { skip = [], values = {} } = {}) {
  return commandsOf(catalogue, state?.system)
    .filter((e) => e.scope === "table" && !skip.includes(e.type) && maySend(e, { role, own }))
    .filter((e) => !judged(e) || state?.legal?.table?.[e.type] !== undefined)
    .map((entry) => ({ entry, char: null, values: values[entry.type] ?? {}, choices: {} }));
}
