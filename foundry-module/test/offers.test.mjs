/**
 * State-dependent offers (scripts/core/offers.js) and the display model's
 * state-dependent parts (scripts/core/display.js) that the dashboard and the
 * Foundry window share: what waits on a character (HUR-14, a declared fall,
 * read from the catalogue's `games.<game>.waits`), whom a stabilize attempt
 * names by default (MET-11), the "falling" badge and the countdowns to the
 * next timed effects whose outcome is random.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CATALOGUE } from "../scripts/core/catalogue.js";
import { answersAWait, characterOffers, waitsOn } from "../scripts/core/offers.js";
import { BADGES, RANDOM_KINDS, badgeLook, nextRandom } from "../scripts/core/display.js";

const ch = (name, extra = {}) => ({ name, visibility: "full", badges: [], countdowns: [], ...extra });
const GM = { role: "gm", own: [] };
const tags = (offers) => offers.map((o) => o.entry.type);

const hursagmu = (gil = {}) => ({
  system: "hursagmu",
  characters: {
    gil: ch("Gil", { sheet: { traits: { healer: 3 }, pending_fall: null, ...gil } }),
    ur: ch("Ur", { sheet: { traits: { healer: 2 }, pending_fall: null } }),
  },
  game: {},
  options: {},
});

test("HUR-14: the catalogue's wait names the pending fall, its answers and the actions it blocks", () => {
  const [wait] = CATALOGUE.games.hursagmu.waits;
  assert.equal(wait.field, "pending_fall");
  assert.deepEqual(wait.answers, ["hursagmu.break_fall", "hursagmu.take_fall"]);
  assert.equal(wait.blocks["hursagmu.heal"], "healer", "a heal is its healer's action");
  assert.deepEqual(CATALOGUE.games.dryh.waits, []);
  assert.ok(answersAWait(CATALOGUE, "hursagmu", "hursagmu.take_fall") && !answersAWait(CATALOGUE, "hursagmu", "hursagmu.rest"));
  // Each wait has its sentence for the pages (VIGIL.Wait.<field>, {name} and {value}).
  const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
  for (const game of Object.values(CATALOGUE.games)) {
    for (const w of game.waits) assert.match(lang[`VIGIL.Wait.${w.field}`] ?? "", /\{name\}.*\{value\}/);
  }
});

test("HUR-14: a falling character is offered what the server says, the answers first", () => {
  const calm = hursagmu();
  assert.deepEqual(waitsOn(CATALOGUE, calm, "gil"), []);
  calm.legal = { table: {}, chars: { gil: { "hursagmu.rest": 1, "hursagmu.harm": 0 } } };
  assert.deepEqual(tags(characterOffers(CATALOGUE, calm, "gil", GM)).filter((t) => t.startsWith("hursagmu.")), ["hursagmu.harm", "hursagmu.rest"]);

  // The server's view (server/vigil/moves.py) while the fall waits: the answers and what is done to him.
  const falling = hursagmu({ pending_fall: 4 });
  falling.legal = { table: {}, chars: { gil: { "hursagmu.harm": 0, "hursagmu.break_fall": 1, "hursagmu.take_fall": 1 }, ur: { "hursagmu.heal": [{ healer: "gil", healer_level: null }] } } };
  assert.equal(waitsOn(CATALOGUE, falling, "gil").length, 1);
  const offered = tags(characterOffers(CATALOGUE, falling, "gil", GM));
  assert.deepEqual(offered.slice(0, 2), ["hursagmu.break_fall", "hursagmu.take_fall"], "the answers first");
  assert.ok(!offered.includes("hursagmu.rest") && offered.includes("hursagmu.harm"));
  // Healing Ur names the healers the server lists.
  const heal = characterOffers(CATALOGUE, falling, "ur", GM).find((o) => o.entry.type === "hursagmu.heal");
  assert.deepEqual(heal.choices.healer, ["gil"]);
  // Its player: the answers alone.
  const player = tags(characterOffers(CATALOGUE, falling, "gil", { role: "player", own: ["gil"] }));
  assert.deepEqual(player, ["hursagmu.break_fall", "hursagmu.take_fall"]);
});

const mettle = () => ({
  system: "mettle",
  characters: {
    bran: ch("Brannoc", { badges: ["dying"], sheet: { kits: {} } }),
    ann: ch("Ann", { sheet: { kits: {} } }),
    ysolde: ch("Ysolde", { sheet: { kits: { bandages: 1 } } }),
    out: ch("Aaron", { badges: ["unconscious"], sheet: { kits: { herbs: 3 } } }),
  },
  game: {},
  options: {},
});
const stabilize = (state, char, viewer = GM) => characterOffers(CATALOGUE, state, char, viewer).find((o) => o.entry.type === "mettle.stabilize") ?? null;

test("MET-11: a dying character's stabilize offers the helpers and kits the server lists", () => {
  const state = mettle();
  const attempt = (helper, kit) => ["lore", "survival"].map((discipline) => ({ helper, discipline, kit }));
  // server/vigil/moves.py: Ysolde (bandages) and Ann (herbs) may try; Aaron is unconscious.
  state.legal = { table: {}, chars: { bran: { "mettle.stabilize": [...attempt("ysolde", "bandages"), ...attempt("ann", "herbs")] } } };
  const offer = stabilize(state, "bran");
  assert.equal(offer.char, "bran", "the dying one is the subject");
  assert.deepEqual(offer.choices.helper, ["ysolde", "ann"], "as the server lists them");
  assert.deepEqual(offer.choices.kit, ["bandages", "herbs"]);
  assert.equal(offer.values.helper, undefined, "several helpers: the GM picks");
  // The helper's window offers the attempt on the dying one, itself as the helper.
  const help = stabilize(state, "ysolde");
  assert.deepEqual([help.char, help.values.char, help.values.helper, help.choices.kit], [null, "bran", "ysolde", ["bandages"]]);
  // A player names only its own characters: the server lists only those for it.
  state.legal = { table: {}, chars: { bran: { "mettle.stabilize": attempt("ann", "herbs") } } };
  assert.equal(stabilize(state, "ann", { role: "player", own: ["bran", "ann"] }).values.helper, "ann");
  assert.equal(stabilize(state, "out"), null, "not listed: not offered");
  state.legal = { table: {}, chars: {} };
  assert.equal(stabilize(state, "bran"), null, "nothing listed (no kit at the table): nothing offered");
});

test("display: the falling badge has a letter, a shape, a tone and a colour like every badge", () => {
  const look = badgeLook("falling");
  assert.equal(look, BADGES.falling);
  assert.ok(look.letter && look.shape && look.tone && Number.isInteger(look.color));
  const letters = Object.entries(BADGES).filter(([code]) => code !== "falling").map(([, b]) => `${b.letter}/${b.shape}`);
  assert.ok(!letters.includes(`${look.letter}/${look.shape}`), "told apart from the others without colour");
});

test("display: the next random timed effects, soonest first, only from what the viewer sees", () => {
  const derived = {
    next_rest_at: 130,
    next_recovery_at: null,
    poisons: { p0002: { called: "Adder venom", next_dose_at: 160 }, p0001: { called: "the drug", next_dose_at: 100 } },
  };
  const got = nextRandom("hursagmu", { derived });
  assert.deepEqual(got, [
    { kind: "poison_dose", until: 100, name: "the drug" },
    { kind: "rest_roll", until: 130 },
    { kind: "poison_dose", until: 160, name: "Adder venom" },
  ]);
  assert.ok(got.every((c) => RANDOM_KINDS.includes(c.kind)));
  assert.deepEqual(nextRandom("hursagmu", { badges: ["resting"] }), [], "a status-only view has no numbers");
  assert.deepEqual(nextRandom("mettle", { derived: { next_rest_hour_at: 10 } }), [], "Pain & Mettle's are certain");
  assert.deepEqual(nextRandom("hursagmu", { derived: { next_recovery_at: 5 } }), [{ kind: "recovery_roll", until: 5 }]);
});
