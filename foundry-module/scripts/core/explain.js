/**
 * Every outcome explains itself: the arithmetic and the reason of a roll or
 * a check, in words, with the rule that decided it. Shared by the pages
 * (GM, player, stream) and the Foundry module's chat card.
 *
 * Nothing here re-reads dice or re-applies a rule: the numbers are the
 * event's own parameters, as the server's rules computed them (a Pain &
 * Mettle check's stat, modifiers and penalties, MET-01; a Hursagmu roll's
 * dice, level and penalties, HUR-01/02/03; a DRYH roll's `explain`, which
 * server/vigil/rules/dryh/reading.py builds with the rules' own functions:
 * successes from the dice and the talent, DRYH-05/11/12, and why a pool
 * dominates, DRYH-07). This file only puts them into words from
 * lang/en.json (VIGIL.Explain.*).
 *
 *   explain(ev, { t, game, base, lang })
 *   → [{ text: "3 + 7 (major exhaustion talent) = 10 successes against 3: success",
 *        rule: "DRYH-05", href: "/rules/dryh#DRYH-05" }, …]
 */

import { format } from "./words.js";

/**
 * The page of the rules reference Vigil serves for `rule` of `game`, in the
 * reader's language `lang` (the server words the page's options in it and
 * keeps the rule texts English); English needs no `lang`.
 */
export function ruleHref(game, rule, base = "", lang = "en") {
  const query = lang && lang !== "en" ? `?lang=${encodeURIComponent(lang)}` : "";
  return `${base}/rules/${encodeURIComponent(game)}${query}#${encodeURIComponent(rule)}`;
}

const GAME_OF_RULE = { MET: "mettle", HUR: "hursagmu", DRYH: "dryh" };

/** The game a rule id belongs to ("MET-01" → "mettle"), or null. */
export function gameOfRule(rule) {
  return GAME_OF_RULE[String(rule ?? "").split("-")[0]] ?? null;
}

/** "+ 2 (modifiers)" / "− 1 (rattle)": one signed term of a sum, or "" for 0. */
function term(value, label) {
  if (!value) return "";
  const sign = value < 0 ? "−" : "+";
  return ` ${sign} ${Math.abs(value)} (${label})`;
}

/** A lookup of VIGIL.Explain.<key> with params; English fallback when missing.
 * `w.trait(name)`: a Hursagmu trait in the reader's words (VIGIL.Param.trait.<name>),
 * or the name itself when the table made it up. */
function wordsOf(t) {
  const w = (key, params = {}, fallback = key) => {
    const full = `VIGIL.Explain.${key}`;
    const got = t ? t(full, params) : undefined;
    return got && got !== full ? got : format(fallback, params);
  };
  w.trait = (name) => {
    const key = `VIGIL.Param.trait.${name}`;
    const got = t ? t(key) : undefined;
    return got && got !== key ? got : name;
  };
  return w;
}

/** Pain & Mettle (MET-01/02/03/04): stat + modifiers − injuries − rattle against the TN, and the lot. */
function mettleCheck(w, p) {
  const sum = `${p.stat} (${w("stat", {}, "stat")})${term(p.modifiers, w("modifiers", {}, "modifiers"))}`
    + `${term(-(p.injury_penalty ?? 0), w("injuries", {}, "injuries"))}${term(-(p.rattle_penalty ?? 0), w("rattle", {}, "rattle"))}`;
  let verdict;
  if (p.lot === "crit") verdict = w("critLot", {}, "a crit lot: passes whatever the total");
  else if (p.lot === "fail") verdict = w("failLot", {}, "a fail lot: fails whatever the total");
  else if (p.total === p.tn) verdict = w("passesExactly", {}, "passes exactly");
  else if (p.total > p.tn) verdict = w("passesBy", { n: p.total - p.tn }, "passes by {n}");
  else verdict = w("failsBy", { n: p.tn - p.total }, "fails by {n}");
  return w("checkSum", { sum, total: p.total, tn: p.tn, verdict }, "{sum} = {total} against TN {tn}: {verdict}");
}

/** "12 wounds" / "1 shock": what a HUR-02 penalty comes from, or the plain word. */
function penaltySource(w, p) {
  if (!p.penalty_track || typeof p.penalty_count !== "number") return w("condition", {}, "wounds and shocks");
  return w(`count.${p.penalty_track}`, { n: p.penalty_count }, `{n} ${p.penalty_track}`);
}

/** Hursagmu (HUR-01/02/03 and the rolls built on them): 2d6 + level + modifiers − penalties against the target. */
function hursagmuRoll(w, p) {
  const dice = (p.faces ?? []).reduce((a, b) => a + b, 0);
  const asked = p.asked ?? p.modifiers - (p.condition_penalty ?? 0) - (p.sense_penalty ?? 0);
  // Resisting damage (HUR-12): the modifiers are the armour's bonus.
  const askedWord = typeof p.amount === "number" ? w("bonus", {}, "armour and the like") : w("modifiers", {}, "modifiers");
  const sum = `${dice} (${w("dice", { faces: (p.faces ?? []).join(" + ") }, "dice {faces}")})`
    + `${term(p.level, p.trait ? w("trait", { trait: w.trait(p.trait) }, "{trait}") : w("level", {}, "level"))}`
    + `${term(asked, askedWord)}`
    + `${term(p.condition_penalty ?? 0, penaltySource(w, p))}`
    + `${term(p.sense_penalty ?? 0, w("senses", {}, "senses"))}`;
  const margin = Math.abs(p.total - p.target);
  let verdict;
  if (margin === 0) verdict = p.success ? w("succeedsExactly", {}, "succeeds exactly") : w("failsOnATie", {}, "fails on a tie");
  else verdict = p.success ? w("succeedsBy", { n: margin }, "succeeds by {n}") : w("failsBy", { n: margin }, "fails by {n}");
  return w("rollSum", { sum, total: p.total, target: p.target, verdict }, "{sum} = {total} against {target}: {verdict}");
}

/** HUR-02: why a roll takes a wound or shock penalty ("12 wounds: − 1 per wound beyond 10"). */
function hursagmuCondition(w, p) {
  return w(`penalty.${p.penalty_track ?? "condition"}`, { source: penaltySource(w, p), n: Math.abs(p.condition_penalty) },
    "{source}: − {n} (1 per wound or shock beyond 10)");
}

/** HUR-03: a sense the action needs and lacks. */
function hursagmuSenses(w, p) {
  return w("sensesWhy", { n: Math.abs(p.sense_penalty) }, "− {n}: 4 for each sense the action needs and lacks");
}

/** HUR-12: how much resisted damage got through, and its arithmetic. */
function hursagmuResisted(w, p) {
  const amount = p.amount;
  const harm = p.harm ?? 0;
  // A drug's dose is resisted with willpower and gives shocks (HUR-13): the event's track says which.
  const track = p.track === "shocks" ? "shocks" : "wounds";
  const taken = w(`count.${track}`, { n: harm }, `{n} ${track}`);
  if (p.mode === "flat") {
    const sum = `${amount} (${w("damage", {}, "damage")})${term(-(p.level ?? 0), p.trait ? w.trait(p.trait) : "")}${term(-(p.bonus ?? 0), w("bonus", {}, "armour and the like"))}`;
    return harm > 0
      ? w("resistedFlat", { sum, harm, taken }, "{sum} = {harm}: takes {taken}")
      : w("resistedFlatNone", { sum }, "{sum}: nothing gets through");
  }
  if (p.success || harm === 0) return w("resistedAll", { amount, total: p.total }, "{total} against {amount} damage: nothing gets through");
  return w("resistedPart", { amount, total: p.total, taken }, "{amount} damage − {total} resisted: takes {taken}");
}

/** HUR-11: one healer's roll against the patient's wounds and, apart, its shocks. */
function hursagmuHealing(w, p, track) {
  const r = p[track];
  const dice = p.faces.reduce((a, b) => a + b, 0);
  const sum = `${dice} (${w("dice", { faces: p.faces.join(" + ") }, "dice {faces}")})${term(p.level, w("healer", {}, "healer"))}`;
  const margin = Math.abs(r.dx);
  let verdict;
  if (!r.success) verdict = margin ? w("failsBy", { n: margin }, "fails by {n}") : w("failsOnATie", {}, "fails on a tie");
  else verdict = margin ? w("succeedsBy", { n: margin }, "succeeds by {n}") : w("succeedsExactly", {}, "succeeds exactly");
  const against = w(`count.${track}`, { n: r.target }, `{n} ${track}`);
  const left = r.after
    ? w("left", { what: w(`count.${track}`, { n: r.after }, `{n} ${track}`) }, "{what} left")
    : w(`noneLeft.${track}`, {}, `no ${track} left`);
  return w("healSum", { sum, total: p.total, against, verdict, left }, "{sum} = {total} against {against}: {verdict}, {left}");
}

/** DRYH (DRYH-05/11/12): successes from the dice and the talent against the GM's degree. */
function dryhSuccesses(w, x, t) {
  const talent = t ? t(`VIGIL.Choice.talent.${x.talent}`) : x.talent;
  let sum = `${x.from_dice} (${w("diceHits", {}, "dice showing 1–3")})`;
  if (x.talent === "exhaustion_major" && x.talent_adds) sum += ` + ${x.talent_adds} (${talent})`;
  if (x.talent === "exhaustion_minor" && x.talent_adds) sum = w("atLeast", { sum, n: x.successes, talent }, "{sum}, raised to {n} ({talent})");
  const verdict = x.success ? w("success", {}, "success") : w("failure", {}, "failure");
  if (x.successes === 1) return w("successesSumOne", { sum, degree: x.degree, verdict }, "{sum} = 1 success against {degree}: {verdict}");
  return w("successesSum", { sum, successes: x.successes, degree: x.degree, verdict }, "{sum} = {successes} successes against {degree}: {verdict}");
}

/** DRYH-07: why a pool dominates. */
function dryhDominance(w, d, t) {
  const pool = (p) => (t ? t(`VIGIL.Pool.${p}`) : p);
  const params = { pool: pool(d.pool), strength: d.strength, rival: d.rival ? pool(d.rival) : "", rival_strength: d.rival_strength };
  const fallback = {
    strength: "{pool} dominates: its {strength} beats {rival}'s {rival_strength}",
    next_die: "{pool} dominates: tied with {rival} at {strength}, it wins on the next die",
    priority: "{pool} dominates: tied with {rival} die for die, {pool} comes first",
    alone: "{pool} dominates: the only pool with dice",
  }[d.by];
  return w(`dominates.${d.by}`, params, fallback);
}

/**
 * The explanations of one event: [{text, rule, href}] (empty for an event
 * that is not a roll or a check).
 * @param {{code: string, rule?: string, params?: object}} ev
 * @param {{t?: (key: string, params?: object) => string, game?: string, base?: string, lang?: string}} ctx
 */
export function explain(ev, { t, game, base = "", lang = "en" } = {}) {
  const p = ev?.params ?? {};
  const w = wordsOf(t);
  const rule = ev?.rule ?? null;
  const g = game ?? gameOfRule(rule);
  const line = (text, r) => ({ text, rule: r, href: r && g ? ruleHref(g, r, base, lang) : null });
  if (p.explain && typeof p.explain === "object") {
    const out = [line(dryhSuccesses(w, p.explain, t), "DRYH-05")];
    if (p.explain.dominance) out.push(line(dryhDominance(w, p.explain.dominance, t), "DRYH-07"));
    return out;
  }
  if (typeof p.stat === "number" && typeof p.tn === "number" && typeof p.total === "number") return [line(mettleCheck(w, p), rule)];
  const resisted = typeof p.amount === "number" && typeof p.harm === "number" && (p.mode === "flat" || p.mode === "roll");
  if (Array.isArray(p.faces) && typeof p.level === "number" && typeof p.target === "number" && typeof p.total === "number") {
    const out = [line(hursagmuRoll(w, p), rule)];
    if (p.condition_penalty) out.push(line(hursagmuCondition(w, p), "HUR-02"));
    if (p.sense_penalty) out.push(line(hursagmuSenses(w, p), "HUR-03"));
    if (resisted) out.push(line(hursagmuResisted(w, p), "HUR-12"));
    return out;
  }
  if (resisted) return [line(hursagmuResisted(w, p), "HUR-12")];
  if (Array.isArray(p.faces) && typeof p.level === "number" && typeof p.total === "number" && (p.wounds?.target || p.shocks?.target)) {
    return ["wounds", "shocks"].filter((track) => p[track]?.target).map((track) => line(hursagmuHealing(w, p, track), rule));
  }
  return [];
}
