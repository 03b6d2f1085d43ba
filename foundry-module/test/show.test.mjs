/**
 * Issue 22, the stream and the words (pure parts of the client library):
 * the newest roll or check, the conditions that matter, kit uses and DRYH
 * talents, the one dice renderer (pages and chat card), counts as people
 * say them, and Hursagmu's explanations (penalties, resisted damage).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { conditionsOf, kitUses, newestOutcome, poolRows, talentsOf } from "../scripts/core/display.js";
import { diceView, htmlElement } from "../scripts/core/dice-view.js";
import { explain } from "../scripts/core/explain.js";
import { counted, format, readable, translator } from "../scripts/core/words.js";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url), "utf8"));
// The faces' translator (core/words.js): counted keys ("VIGIL.Explain.count.wounds") take their plural form.
const t = translator((key) => lang[key]);
const lookup = (key) => lang[key];

test("newestOutcome: the newest of several doses in one change, the newest change first", () => {
  const dose = (n) => ({ code: "poison_dose", char: "juk", params: { total: n, faces: [1, 1], level: 0, target: 3 } });
  const entries = [
    { rev: 4, events: [{ code: "clock_changed", params: {} }, dose(1), dose(2), dose(3)] },
    { rev: 3, events: [{ code: "trait_rolled", params: { total: 9 } }] },
  ];
  assert.equal(newestOutcome(entries).event.params.total, 3);
  // Pages in either order read the same: the highest rev wins.
  assert.equal(newestOutcome([...entries].reverse()).event.params.total, 3);
  assert.equal(newestOutcome([{ ...entries[0], undone: true }, entries[1]]).event.params.total, 9);
  const dryh = { rev: 9, events: [{ code: "roll_resolved", params: { dice: { discipline: [1] } } }] };
  assert.equal(newestOutcome([dryh, ...entries]).kind, "dryh");
  assert.equal(newestOutcome([{ rev: 1, events: [{ code: "combat_started" }] }]), null);
});

test("a poisoned character has a condition (never 'no conditions'); injuries name their penalty", () => {
  const juk = { sheet: { poisons: { p0001: { name: "Adder venom", kind: "poison" }, p0002: { name: "", kind: "drug" } } } };
  // An unnamed one is called by its kind, in the reader's words (the server sends no English for it).
  const unnamed = (kind) => t(`VIGIL.Param.unnamed.${kind}`);
  assert.deepEqual(conditionsOf("hursagmu", juk, { unnamed }), [{ key: "poisoned", names: ["Adder venom", "the drug"] }]);
  assert.equal(t("VIGIL.Condition.poisoned", { names: "Adder venom" }), "Poisoned: Adder venom");
  assert.deepEqual(conditionsOf("hursagmu", { sheet: { poisons: {} } }), []);
  assert.deepEqual(conditionsOf("hursagmu", { visibility: "status" }), [], "a withheld sheet says nothing");
  const ysolde = { sheet: { injuries: [{ id: "i1", label: "Cracked rib", penalty: 2 }] } };
  assert.deepEqual(conditionsOf("mettle", ysolde), [{ key: "injured", names: ["Cracked rib (−2)"] }]);
});

test("kit uses and DRYH talents are on the card's list", () => {
  assert.deepEqual(kitUses({ sheet: { kits: { medkit: 2, bandages: 0 } } }), [{ kit: "medkit", uses: 2 }, { kit: "bandages", uses: 0 }]);
  assert.deepEqual(talentsOf("dryh", { sheet: { exhaustion_talent: "Outrun anything", madness_talent: "" } }), [{ which: "exhaustion", name: "Outrun anything" }]);
  assert.deepEqual(talentsOf("mettle", { sheet: { exhaustion_talent: "x" } }), []);
  assert.equal(t("VIGIL.Talent.exhaustion", { name: "Outrun anything" }), "Exhaustion talent: Outrun anything");
  assert.equal(t("VIGIL.Kit.uses.none", { kit: "bandages" }), "bandages: used up");
});

test("one dice renderer: the chat card's HTML and the pages' rows come from the same rows", () => {
  const dice = { discipline: [1, 6], exhaustion: [], madness: [6], pain: [2], helpers: { mina: [3] } };
  const adjustments = [{ pool: "madness", op: "add", face: 6, source: "despair" }];
  const rows = poolRows(dice, { dominant: "madness", adjustments });
  assert.deepEqual(rows.map((r) => r.pool), ["discipline", "exhaustion", "madness", "pain", "helpers"]);
  assert.deepEqual(rows[2].faces[0].mark, { op: "added", source: "despair" });
  const html = String(diceView(htmlElement, t, dice, { dominant: "madness", adjustments, names: { mina: "<Mina>" }, empty: null }));
  assert.ok(!html.includes("pool-exhaustion"), "an empty pool is left out of the card");
  assert.match(html, /class="die pool-discipline success"[^>]*><span class="die-face">1</);
  assert.match(html, /class="die pool-madness die-added by-despair" data-face="6" data-mark="added:despair"/);
  assert.match(html, /&lt;Mina&gt; helps/, "names are escaped");
  assert.match(html, /pool-row pool-madness dominant/);
});

test("counts are said as people say them: no zero, singular for one", () => {
  assert.equal(counted({ stuns: 0, wounds: 8, shocks: 0 }, lookup), "8 wounds");
  assert.equal(counted({ stuns: 1, wounds: 2, shocks: 1 }, lookup), "1 stun, 2 wounds and 1 shock");
  assert.equal(counted({ wounds: 0 }, lookup), "no harm");
  const said = readable({ char: "juk", counts: { stuns: 0, wounds: 8 } }, { names: { juk: "Juk" }, lookup });
  assert.equal(format(lang["VIGIL.Event.harmed"], said), "Juk takes 8 wounds.");
});

test("a check says its outcome in words, never 'lot fail, passed: no'", () => {
  const said = readable({ char: "y", total: 9, tn: 8, lot: "fail", passed: false, outcome: "fails_on_a_fail_lot" }, { names: { y: "Ysolde" }, lookup });
  assert.equal(format(lang["VIGIL.Event.check"], said), "Ysolde checks 9 against TN 8 and fails on a fail lot.");
});

test("a named healer is named; one given by its level says so", () => {
  const names = { juk: "Juk", sarah: "Sarah" };
  const by = readable({ char: "juk", healer: "sarah", faces: [5, 5], total: 20 }, { names, lookup });
  assert.equal(format(lang["VIGIL.Event.healer_rolled"], by), "Sarah tends Juk (5, 5): total 20.");
  const level = readable({ char: "juk", level: 4, faces: [1, 2], total: 7 }, { names, lookup });
  assert.equal(format(lang["VIGIL.Event.level_healer_rolled"], level), "A healer of level 4 tends Juk (1, 2): total 7.");
  const joined = readable({ char: "tallman", name: "Tall Man" }, { names: {}, lookup });
  assert.equal(format(lang["VIGIL.Event.character_added"], joined), "Tall Man joins the table.");
});

test("Hursagmu: the wound penalty (HUR-02) and resisted damage (HUR-12) explain themselves, rules linked", () => {
  const rolled = {
    code: "trait_rolled", rule: "HUR-01",
    params: { faces: [3, 4], level: 5, modifiers: -2, asked: 1, total: 10, target: 9, success: true, dx: 1, trait: "athlete", condition_penalty: -3, sense_penalty: 0, penalty_track: "wounds", penalty_count: 13 },
  };
  const lines = explain(rolled, { t, game: "hursagmu" });
  assert.equal(lines[0].text, "7 (dice 3 + 4) + 5 (athlete) + 1 (modifiers) − 3 (13 wounds) = 10 against 9: succeeds by 1");
  assert.equal(lines[1].text, "13 wounds: − 3, 1 for each wound beyond 10");
  assert.equal(lines[1].href, "/rules/hursagmu#HUR-02");
  // A German reader's link asks for the page in German (its options; the rule texts stay English).
  const german = explain(rolled, { t, game: "hursagmu", lang: "de" });
  assert.equal(german[1].href, "/rules/hursagmu?lang=de#HUR-02");
  const resisted = {
    code: "resisted", rule: "HUR-12",
    params: { amount: 8, trait: "constitution", mode: "roll", faces: [1, 2], level: 2, modifiers: 1, total: 6, target: 8, success: false, dx: -2, bonus: 1, harm: 2 },
  };
  const r = explain(resisted, { t, game: "hursagmu" });
  assert.equal(r[0].text, "3 (dice 1 + 2) + 2 (constitution) + 1 (armour and the like) = 6 against 8: fails by 2");
  assert.equal(r[1].text, "8 damage − 6 resisted: takes 2 wounds");
  assert.equal(r[1].rule, "HUR-12");
  const flat = explain({ code: "resisted", rule: "HUR-12", params: { amount: 8, trait: "constitution", mode: "flat", level: 2, bonus: 1, harm: 5 } }, { t, game: "hursagmu" });
  assert.equal(flat[0].text, "8 (damage) − 2 (constitution) − 1 (armour and the like) = 5: takes 5 wounds");
  const drug = explain({ code: "poison_dose", rule: "HUR-13", params: { amount: 3, trait: "willpower", mode: "roll", faces: [1, 1], level: 0, modifiers: 0, total: 2, target: 3, success: false, dx: -1, bonus: 0, harm: 1, track: "shocks" } }, { t, game: "hursagmu" });
  assert.equal(drug[1].text, "3 damage − 2 resisted: takes 1 shock");
});

test("Hursagmu: a healer's one roll is explained against wounds and shocks apart (HUR-11)", () => {
  const healed = {
    code: "healer_rolled", rule: "HUR-11",
    params: { faces: [5, 5], level: 10, total: 20, healer: "sarah", wounds: { target: 18, success: true, dx: 2, after: 16 }, shocks: { target: 21, success: false, dx: -1, after: 21 } },
  };
  const lines = explain(healed, { t, game: "hursagmu" });
  assert.deepEqual(lines.map((l) => l.text), [
    "10 (dice 5 + 5) + 10 (healer) = 20 against 18 wounds: succeeds by 2, 16 wounds left",
    "10 (dice 5 + 5) + 10 (healer) = 20 against 21 shocks: fails by 1, 21 shocks left",
  ]);
  assert.equal(lines[0].href, "/rules/hursagmu#HUR-11");
});

test("a DRYH declaration and resolution say it as people would", () => {
  const names = { mina: "Mina" };
  const declared = readable({ char: "mina", madness: 1, counts: { madness_dice: 1 }, exhaustion_choice: "no_extra_exhaustion", talent: "madness" }, { names, lookup });
  assert.equal(format(lang["VIGIL.Event.roll_declared"], declared), "Mina declares 1 madness die, no extra exhaustion, Madness talent.");
  const none = readable({ char: "mina", counts: { madness_dice: 0 }, exhaustion_choice: "one_more_exhaustion_die", talent: "none" }, { names, lookup });
  assert.equal(format(lang["VIGIL.Event.roll_declared"], none), "Mina declares no madness dice, one more exhaustion die, No talent.");
  const resolved = readable({ char: "mina", successes: 0, degree: 2, outcome: "failure", dominant: "discipline" }, { names, lookup });
  assert.equal(format(lang["VIGIL.Event.roll_resolved"], resolved), "Mina's roll is a failure: 0 against the GM's 2; Discipline dominates.");
});
