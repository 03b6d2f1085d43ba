/**
 * How a character of each game looks, for every client: the one display
 * model that the dashboard, the spectator page and the Foundry overlays
 * draw from, so that a dying character carries the same badge, a DRYH die
 * the same success mark and a pool the same letter everywhere.
 *
 * Pure data and pure functions (no DOM, no PIXI, no Foundry). What a thing
 * is called comes from lang/en.json by the keys below (the module through
 * game.i18n, the pages by loading the same file), never from here: this
 * file only decides letters, shapes, colours, which numbers a game shows
 * and how one of its dice reads. Colour is never the only cue (docs/design.md
 * "Foundry module": colour-blind players): every badge and pool also has a
 * letter and a shape.
 *
 * `tone` is the page's CSS family for a badge; `color` the same hue as a
 * 0xRRGGBB number for PIXI.
 */

/** Status badges the server sends (`character.badges`), by code. */
export const BADGES = Object.freeze({
  unconscious: { letter: "U", shape: "circle", tone: "warn", color: 0x6d6d6d },
  dying: { letter: "Dy", shape: "diamond", tone: "danger", color: 0xb71c1c },
  stabilized: { letter: "St", shape: "square", tone: "good", color: 0x2e7d32 },
  departed: { letter: "†", shape: "square", tone: "dead", color: 0x212121 },
  crashed: { letter: "Cr", shape: "circle", tone: "warn", color: 0x455a64 },
  snapped: { letter: "Sn", shape: "diamond", tone: "danger", color: 0x8e24aa },
  nightmare: { letter: "N", shape: "triangle", tone: "dead", color: 0x4a148c },
  seriously_injured: { letter: "SI", shape: "triangle", tone: "danger", color: 0xd84315 },
  delirious: { letter: "De", shape: "diamond", tone: "warn", color: 0xf9a825 },
  dead: { letter: "†", shape: "square", tone: "dead", color: 0x000000 },
  insane: { letter: "In", shape: "triangle", tone: "dead", color: 0x6a1b9a },
  resting: { letter: "R", shape: "circle", tone: "calm", color: 0x1565c0 },
  blind: { letter: "Bl", shape: "square", tone: "calm", color: 0x37474f },
  deaf: { letter: "Df", shape: "square", tone: "calm", color: 0x37474f },
  // HUR-14: a fall the GM declared waits on its character's answer.
  falling: { letter: "Fa", shape: "triangle", tone: "warn", color: 0xef6c00 },
});

/** A badge code's look; an unknown code (a newer server) still draws, plainly. */
export function badgeLook(code) {
  return BADGES[code] ?? { letter: String(code).slice(0, 2), shape: "circle", tone: "calm", color: 0x607d8b };
}

/** The full and the short name of a badge, as lang/en.json keys. */
export const badgeKey = (code) => `VIGIL.Badge.${code}`;
export const badgeShortKey = (code) => `VIGIL.BadgeShort.${code}`;
/** The letter drawn in a badge's shape, in the reader's language
 * (`VIGIL.BadgeLetter.<code>`; "St" is "Stabilized" in English, "Sterbend"
 * in German); an unknown code keeps its look's letters. `t` is the face's. */
export const badgeLetter = (code, t) => (BADGES[code] ? t(`VIGIL.BadgeLetter.${code}`) : badgeLook(code).letter);
/** The letter drawn on a DRYH pool's dice (helpers' too), in the reader's language. */
export const poolLetter = (pool, t) => t(poolShortKey(pool));

/** DRYH pools, in the order the book lists them (DRYH-04): a letter, and a
 * face colour with its text and edge colours. Helpers roll discipline dice
 * (DRYH-03), so their dice look like discipline with the helper's name. */
export const POOLS = Object.freeze({
  discipline: { letter: "D", fill: 0xf4f1e8, text: 0x111111, stroke: 0x555555 },
  exhaustion: { letter: "E", fill: 0x2b2b2b, text: 0xffffff, stroke: 0xbbbbbb },
  madness: { letter: "M", fill: 0xc62828, text: 0xffffff, stroke: 0x5a0f0f },
  pain: { letter: "P", fill: 0x1e5fbf, text: 0xffffff, stroke: 0x0b2a57 },
});
export const POOL_ORDER = Object.freeze(["discipline", "exhaustion", "madness", "pain"]);
/** A helper's dice (discipline dice of another character), marked apart. */
export const HELPER = Object.freeze({ letter: "H", fill: 0xf4f1e8, text: 0x111111, stroke: 0x555555 });
export const poolKey = (pool) => `VIGIL.Pool.${pool}`;
export const poolShortKey = (pool) => `VIGIL.PoolShort.${pool}`;

/** The kinds of countdown the server sends (`character.countdowns[].kind`),
 * and those of `nextRandom` below; a key may take `{name}`. The short word
 * is for a token's overlay, where a sentence does not fit. */
export const countdownKey = (kind) => `VIGIL.Countdown.${kind}`;
export const countdownShortKey = (kind) => `VIGIL.CountdownShort.${kind}`;

/** Countdowns to something harmless (a helper free again, the next rest
 * hour): drawn in a calm colour, never in the red of a Dying countdown. */
export const CALM_COUNTDOWNS = Object.freeze(["busy", "rest_hour"]);

/** A counter shown beside a character: a sheet number with a letter. */
const counter = (key, letter, color) => ({ key, letter, color });
export const counterKey = (key) => `VIGIL.Counter.${key}`;
export const counterShortKey = (key) => `VIGIL.CounterShort.${key}`;

/**
 * Per game: which numbers a character shows, and how one die reads.
 *  - `counters`: the sheet numbers, in order (`hideZero`: shown only when
 *    not 0, for harm that most characters do not carry);
 *  - `dieSuccess(face)`: true/false when a single die succeeds or fails in
 *    this game, null when a die alone means nothing (summed dice);
 *  - `pools`: whether its rolls are read pool by pool (DRYH only).
 */
export const GAMES = Object.freeze({
  dryh: {
    counters: [counter("discipline", "D", 0x9e9e9e), counter("exhaustion", "E", 0x2b2b2b), counter("madness", "M", 0xc62828)],
    // DRYH-04: each die showing 1, 2 or 3 is a success.
    dieSuccess: (face) => face >= 1 && face <= 3,
    pools: true,
    rattle: false,
  },
  mettle: {
    counters: [counter("pain", "P", 0xb71c1c), { ...counter("injuries", "I", 0xd84315), hideZero: true, count: true }],
    // Pain & Mettle rolls no dice: a check is stat + modifiers against a TN
    // with a Cast Lot (MET-01, MET-02); faces appear only as manual lots.
    dieSuccess: () => null,
    pools: false,
    rattle: true,
  },
  hursagmu: {
    // HUR-13 poison doses, HUR-08 an unconscious character's rest rolls and
    // HUR-09 the wake hour's recovery rolls: the clock rolls their dice.
    random: (d, unnamed) => [
      ...Object.values(d.poisons ?? {}).map((p) => ({ kind: "poison_dose", until: p.next_dose_at, name: p.called || unnamed(p.kind) })),
      { kind: "rest_roll", until: d.next_rest_at },
      { kind: "recovery_roll", until: d.next_recovery_at },
    ],
    counters: [
      { ...counter("stuns", "S", 0xf9a825), hideZero: true },
      { ...counter("wounds", "W", 0xb71c1c), hideZero: true },
      { ...counter("shocks", "K", 0x6a1b9a), hideZero: true },
    ],
    // Hursagmu rolls 2d6 and adds them (HUR-01): no single die succeeds.
    dieSuccess: () => null,
    pools: false,
    rattle: false,
  },
});

const NO_GAME = { counters: [], dieSuccess: () => null, pools: false, rattle: false };

/** The countdown kinds of `nextRandom`, for the lang check. */
export const RANDOM_KINDS = Object.freeze(["poison_dose", "rest_roll", "recovery_roll"]);

/**
 * The next timed effects of a character whose outcome is random — the
 * clock will roll their dice — soonest first, as countdowns drawn from the
 * clock anchor the way the dying countdown is (no message per second; a
 * paused clock holds them still): [{kind, until, name?}]. From the server's
 * derived numbers, so only for a viewer who sees them (`random` of GAMES:
 * Hursagmu's; Pain & Mettle's and DRYH's timed effects have sure outcomes,
 * and their deadlines are the server's countdowns). `unnamed` words an
 * unnamed poison by its kind (core/words.js `unnamed`, with the reader's
 * language file); this module has no words of its own.
 */
export function nextRandom(game, ch, { unnamed = (kind) => kind } = {}) {
  const random = GAMES[game]?.random;
  if (!random || !ch?.derived) return [];
  return random(ch.derived, unnamed)
    .filter((c) => typeof c.until === "number" && Number.isFinite(c.until))
    .sort((a, b) => a.until - b.until);
}
export const gameLook = (game) => GAMES[game] ?? NO_GAME;

/** The kinds of countdown the server sends, and `nextRandom`'s. */
export const COUNTDOWN_KINDS = Object.freeze(["dying", "busy", "rest_hour", "poison", "drug", ...RANDOM_KINDS]);

/**
 * Every countdown to draw for a character: the server's (dying, busy, a
 * poison's end) and the next timed effects whose outcome is random
 * (`nextRandom`: "Next dose of Adder venom in 04:32"), each drawn from the
 * clock anchor: [{kind, until, since?, name?, random?}].
 */
export function countdownsOf(game, ch, words = {}) {
  return [...(ch?.countdowns ?? []), ...nextRandom(game, ch, words).map((c) => ({ ...c, random: true }))];
}

/**
 * MET-14: rattle wears off 1 per game second out of combat, so its value at
 * any moment follows from the server's anchor `rattle_zero_at` (null in
 * combat or at 0): ceil(zero_at − now). Drawn from the clock, the way the
 * dying countdown runs, with no message from the server.
 */
export function rattleAt(zeroAt, now) {
  return Math.max(0, Math.ceil(zeroAt - now));
}

/** One die as a game reads it: {face, success: true | false | null}. */
export function readDie(game, face) {
  return { face, success: gameLook(game).dieSuccess(face) };
}

/** The counters of a character whose sheet the viewer sees: [{key, value, letter, color}].
 * `zeros`: keep the counters a game hides at 0 (a card shows the whole sheet). */
export function counters(game, sheet, { zeros = false } = {}) {
  if (!sheet) return [];
  const out = [];
  for (const c of gameLook(game).counters) {
    const raw = sheet[c.key];
    const value = c.count ? (Array.isArray(raw) ? raw.length : 0) : (raw ?? 0);
    if (c.hideZero && !value && !zeros) continue;
    out.push({ key: c.key, value, letter: c.letter, color: c.color });
  }
  return out;
}

/**
 * Pain & Mettle's Rattle meter, or null. The value is the server's derived
 * (worn-off) rattle when the view was made, and `zeroAt` the game time it
 * reaches 0 while it falls (`rattleAt` gives it at any moment; null: it
 * stands still). Rattle has no cap in the rules, so the meter shows pips up
 * to the larger of the character's Mettle and the current value.
 */
export function rattleMeter(game, ch) {
  if (!gameLook(game).rattle || !ch?.sheet) return null;
  const value = ch.derived?.rattle ?? ch.sheet.rattle ?? 0;
  const max = Math.max(value, ch.sheet.mettle ?? 5, 1);
  const zeroAt = typeof ch.derived?.rattle_zero_at === "number" ? ch.derived.rattle_zero_at : null;
  return { key: "rattle", value, max, zeroAt, letter: "R", color: 0xef6c00 };
}

/** The rattle a meter shows at game time `now`. */
export const rattleNow = (meter, now) => (meter.zeroAt === null ? meter.value : Math.min(meter.value, rattleAt(meter.zeroAt, now)));

/**
 * A DRYH roll's dice, pool by pool in the book's order, each die read:
 * [{pool, helper?, faces: [{face, success}]}]. Helpers' dice follow as
 * discipline dice with the helper's id (the caller names it).
 */
export function dicePools(game, dice) {
  if (!dice) return [];
  const out = [];
  for (const pool of POOL_ORDER) {
    const faces = dice[pool] ?? [];
    if (faces.length) out.push({ pool, faces: faces.map((f) => readDie(game, f)) });
  }
  for (const [helper, faces] of Object.entries(dice.helpers ?? {})) {
    if (faces?.length) out.push({ pool: "discipline", helper, faces: faces.map((f) => readDie(game, f)) });
  }
  return out;
}

/**
 * The conditions that matter beside a character's badges, which name only
 * its status: a Hursagmu poison or drug in the blood (HUR-13: it will hurt
 * again), a Pain & Mettle injury (MET-03: every check pays for it). A
 * poisoned character never reads "no conditions". [{key, names}] from what
 * the viewer sees (nothing for a withheld sheet); `VIGIL.Condition.<key>`
 * words it; `unnamed` words an unnamed poison by its kind, as for `nextRandom`.
 */
export function conditionsOf(game, ch, { unnamed = (kind) => kind } = {}) {
  const s = ch?.sheet;
  if (!s) return [];
  const out = [];
  if (game === "hursagmu") {
    const called = Object.values(s.poisons ?? {}).map((p) => p.name || unnamed(p.kind ?? "poison"));
    if (called.length) out.push({ key: "poisoned", names: called });
  }
  if (game === "mettle" && s.injuries?.length) out.push({ key: "injured", names: s.injuries.map((i) => `${i.label || i.id} (−${i.penalty})`) });
  return out;
}

/**
 * Kit uses that matter (Pain & Mettle kits: a medkit's uses left; the view
 * carries them only for the GM and the character's own player): [{kit,
 * uses}], a kit with none left included, since that is the news.
 */
export function kitUses(ch) {
  return Object.entries(ch?.sheet?.kits ?? {}).map(([kit, uses]) => ({ kit, uses }));
}

/**
 * DRYH talents (DRYH-11 exhaustion, DRYH-12 madness), which change what a
 * roll can do: [{which, name}] for those the sheet names.
 */
export function talentsOf(game, ch) {
  const s = ch?.sheet;
  if (game !== "dryh" || !s) return [];
  return ["exhaustion", "madness"].filter((w) => s[`${w}_talent`]).map((which) => ({ which, name: s[`${which}_talent`] }));
}

/**
 * Which dice of a pool the coins changed (DRYH-08 despair adds or removes
 * a 6, DRYH-09 hope adds a 1: the roll's `adjustments`, appended to the
 * pool's end as the server does): the pool's faces each with its mark
 * ({op: "added", source} or null), then the 6s struck out
 * ({op: "struck", source}).
 */
export function markedFaces(pool, faces, adjustments = []) {
  const net = new Map(); // "source|face" → adds − removes
  for (const a of adjustments ?? []) {
    if (a.pool !== pool) continue;
    const key = `${a.source}|${a.face}`;
    net.set(key, (net.get(key) ?? 0) + (a.op === "add" ? 1 : -1));
  }
  const out = faces.map((f) => [f, null]);
  const struck = [];
  for (const [key, n] of net) {
    const [source, faceText] = key.split("|");
    const face = Number(faceText);
    if (n < 0) {
      for (let i = 0; i < -n; i += 1) struck.push([face, { op: "struck", source }]);
      continue;
    }
    let left = n;
    for (let i = out.length - 1; i >= 0 && left > 0; i -= 1) {
      if (out[i][0] === face && !out[i][1]) {
        out[i][1] = { op: "added", source };
        left -= 1;
      }
    }
  }
  return [...out, ...struck];
}

/**
 * A DRYH roll's rows as every face draws them (the pages' roll boxes, the
 * stream, the Foundry chat card): each pool in the book's order, empty
 * ones included (`empty`: the page shows "—", the card leaves it out),
 * then each helper's dice: [{pool, helper?, dominant, faces: [{face,
 * success, mark}]}].
 */
export function poolRows(dice, { dominant = null, adjustments = [] } = {}) {
  if (!dice) return [];
  const read = (pool, marked) => marked.map(([face, mark]) => ({ face, mark, success: readDie("dryh", face).success && mark?.op !== "struck" }));
  const rows = POOL_ORDER.map((pool) => {
    const faces = read(pool, markedFaces(pool, dice[pool] ?? [], adjustments));
    return { pool, dominant: dominant === pool, faces, empty: !faces.length };
  });
  for (const [helper, faces] of Object.entries(dice.helpers ?? {})) {
    rows.push({ pool: "helpers", helper, dominant: false, faces: read("helpers", faces.map((f) => [f, null])), empty: !faces.length });
  }
  return rows;
}

/**
 * The newest roll or check in a history page (entries newest first, as the
 * server pages them; each entry's events in the order they happened): a
 * resolved DRYH roll with its dice, else an event with a total (a check, a
 * trait roll, a poison dose). Several in one entry (the clock firing three
 * doses at once): the last one, the newest. {kind: "dryh" | "check", event}
 * or null; undone entries are skipped.
 */
export function newestOutcome(entries) {
  const sorted = [...(entries ?? [])].sort((a, b) => (b.rev ?? 0) - (a.rev ?? 0));
  for (const entry of sorted) {
    if (entry.undone) continue;
    const events = entry.events ?? [];
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const ev = events[i];
      if (ev.code === "roll_resolved" && ev.params?.dice) return { kind: "dryh", event: ev };
      if (ev.params && typeof ev.params.total === "number") return { kind: "check", event: ev };
    }
  }
  return null;
}
