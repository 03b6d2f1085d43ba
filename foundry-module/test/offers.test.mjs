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
import { answersAWait, blockedBy, characterOffers, waitsOn } from "../scripts/core/offers.js";
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

test("HUR-14: a falling character is offered the answers first and none of its own actions", () => {
  const calm = hursagmu();
  assert.deepEqual(waitsOn(CATALOGUE, calm, "gil"), []);
  const calmTags = tags(characterOffers(CATALOGUE, calm, "gil", GM));
  assert.ok(calmTags.includes("hursagmu.rest") && !calmTags.includes("hursagmu.take_fall"));

  const falling = hursagmu({ pending_fall: 4 });
  assert.equal(waitsOn(CATALOGUE, falling, "gil").length, 1);
  const offered = tags(characterOffers(CATALOGUE, falling, "gil", GM));
  assert.deepEqual(offered.slice(0, 2), ["hursagmu.break_fall", "hursagmu.take_fall"], "the answers first");
  for (const tag of Object.keys(CATALOGUE.games.hursagmu.waits[0].blocks)) {
    if (tag !== "hursagmu.heal") assert.ok(!offered.includes(tag), `${tag} waits for the fall`);
  }
  // What is done to it stays on offer; healing it names another healer.
  assert.ok(offered.includes("hursagmu.harm") && offered.includes("hursagmu.poison"));
  assert.ok(blockedBy(CATALOGUE, falling, CATALOGUE.commands["hursagmu.rest"], { char: "gil" }));
  assert.equal(blockedBy(CATALOGUE, falling, CATALOGUE.commands["hursagmu.harm"], { char: "gil" }), null);
  const heal = characterOffers(CATALOGUE, falling, "ur", GM).find((o) => o.entry.type === "hursagmu.heal");
  assert.deepEqual(heal.choices.healer, [], "a falling healer is not offered");
  const healGil = characterOffers(CATALOGUE, falling, "gil", GM).find((o) => o.entry.type === "hursagmu.heal");
  assert.deepEqual(healGil.choices.healer, ["ur"]);

  // Its player: the answers alone (its rest waits too).
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

test("MET-11: a dying character's stabilize names another present helper, one with kit uses first", () => {
  const offer = stabilize(mettle(), "bran");
  assert.equal(offer.char, "bran", "the dying one is the subject");
  assert.equal(offer.values.helper, "ysolde", "never the dying one itself; kit uses left first");
  assert.deepEqual(offer.choices.helper, ["ann", "ysolde"], "present characters only, by name");
  const spent = mettle();
  spent.characters.ysolde.sheet.kits = { bandages: 0 };
  spent.characters.ann.sheet.kits = { herbs: 0 };
  assert.equal(stabilize(spent, "bran").values.helper, "ann", "else the first present one by name");
  const noKits = mettle();
  noKits.characters.ysolde.sheet.kits = {};
  assert.equal(stabilize(noKits, "bran"), null, "a stabilize needs a kit: none at the table");
  // A player names only its own characters as the helper; with none able, nothing is offered.
  const annKit = mettle();
  annKit.characters.ann.sheet.kits = { herbs: 1 };
  assert.equal(stabilize(annKit, "bran", { role: "player", own: ["bran", "ann"] }).values.helper, "ann");
  assert.deepEqual(stabilize(annKit, "bran", { role: "player", own: ["bran", "ann"] }).choices.helper, ["ann"]);
  assert.equal(stabilize(mettle(), "bran", { role: "player", own: ["bran"] }), null);
  // The helper's window still offers the attempt on the dying one.
  assert.deepEqual(stabilize(mettle(), "ysolde").values, { helper: "ysolde" });
  assert.equal(stabilize(mettle(), "out"), null, "an unconscious character helps no one");
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
