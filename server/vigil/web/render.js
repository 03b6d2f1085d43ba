/**
 * Drawing a table view: character cards, badges, countdowns and DRYH dice.
 * Shared by the dashboard and the spectator page so both show a character
 * the same way. Everything drawn comes from the view the server sent: a
 * `status`-visibility character has no `sheet`/`derived`, and then nothing
 * numeric is drawn (we never compute what the server withheld).
 *
 * Badges and dice pools carry a letter and a shape as well as a colour, for
 * colour-blind viewers (docs/design.md "Foundry module").
 */

import { CALM_COUNTDOWNS, badgeKey, badgeLetter, badgeLook, conditionsOf as conditionsIn, countdownKey, countdownsOf as countdownsIn, counterKey, counters, kitUses, markedFaces, poolKey, rattleAt, readDie, talentsOf } from "/client/core/display.js";
import { dieView, diceView } from "/client/core/dice-view.js";
import { countdownText, h, localize, t } from "./common.js";

// The display model (letters, shapes, tones, die readings) is the client
// library's, shared with the Foundry overlays; re-exported for the pages.
export { BADGES, POOLS } from "/client/core/display.js";
// Which dice the coins changed is the client library's too (the chat card marks them the same way).
export { markedFaces };

export function badge(name) {
  const b = badgeLook(name);
  const label = t(badgeKey(name));
  return h(
    "span",
    { class: `badge tone-${b.tone}`, title: label, dataset: { badge: name } },
    h("span", { class: `shape shape-${b.shape}`, "aria-hidden": "true" }, h("span", { class: "letter" }, badgeLetter(name, t))),
    h("span", { class: "badge-label" }, label),
  );
}

// Every countdown to draw for a character, its conditions, and the rattle
// at a moment (MET-14), are the client library's (core/display.js), shared
// with the Foundry overlays; an unnamed poison in this page's words.
const words = { unnamed: (kind) => t(`VIGIL.Param.unnamed.${kind}`) };
export const countdownsOf = (system, ch) => countdownsIn(system, ch, words);
export const conditionsOf = (system, ch) => conditionsIn(system, ch, words);
export { rattleAt };

/** A countdown element; `tick` fills in its time from the clock anchor. */
export function countdown(cd) {
  const word = t(countdownKey(cd.kind), { name: cd.name ?? "" });
  return h(
    "div",
    { class: `countdown kind-${cd.kind}${cd.random ? " random" : ""}${CALM_COUNTDOWNS.includes(cd.kind) ? " calm" : ""}`, dataset: { until: String(cd.until), since: String(cd.since ?? "") } },
    h("span", { class: "countdown-word" }, word),
    h("span", { class: "countdown-time", role: "timer" }, "--:--"),
    h("span", { class: "countdown-bar", "aria-hidden": "true" }, h("span", { class: "countdown-fill" })),
  );
}

/** Redraw every countdown and falling rattle under `root` for game time `now` (no server traffic). */
export function tick(root, now) {
  for (const el of root.querySelectorAll("[data-stat=rattle][data-zero-at]")) {
    const text = String(rattleAt(Number(el.dataset.zeroAt), now));
    const value = el.querySelector(".stat-value");
    if (value.textContent !== text) value.textContent = text;
  }
  for (const el of root.querySelectorAll(".countdown[data-until]")) {
    const until = Number(el.dataset.until);
    const since = el.dataset.since === "" ? null : Number(el.dataset.since);
    const left = until - now;
    const time = el.querySelector(".countdown-time");
    const text = left > 0 ? countdownText(left) : "00:00";
    if (time.textContent !== text) time.textContent = text;
    el.classList.toggle("expired", left <= 0);
    el.classList.toggle("urgent", left > 0 && left <= 60);
    const fill = el.querySelector(".countdown-fill");
    if (fill && since !== null && until > since) {
      fill.style.width = `${Math.max(0, Math.min(100, (left / (until - since)) * 100))}%`;
    }
  }
}

function stat(label, value, extra = {}) {
  return h(
    "div",
    { class: `stat ${extra.class ?? ""}`, dataset: { stat: extra.key ?? label.toLowerCase() } },
    h("span", { class: "stat-value" }, value),
    h("span", { class: "stat-label" }, label),
  );
}

/** MET-14: the rattle falls with the clock from the server's anchor
 * `rattle_zero_at` (core/display.js `rattleAt`); `tick` redraws it, the
 * way the dying countdown runs, with no message from the server. */
function rattleStat(d, s) {
  const el = stat(t("VIGIL.Counter.rattle"), String(d.rattle ?? s.rattle), { key: "rattle" });
  if (d.rattle_zero_at !== null && d.rattle_zero_at !== undefined) el.dataset.zeroAt = String(d.rattle_zero_at);
  return el;
}

function boxes(label, checked, total, key) {
  const cells = [];
  for (let i = 0; i < total; i += 1) cells.push(h("span", { class: i < checked ? "box on" : "box" }, i < checked ? "✕" : ""));
  return h(
    "div",
    { class: "boxes", dataset: { stat: key }, "aria-label": t("VIGIL.Page.boxesChecked", { label, checked, total }) },
    h("span", { class: "stat-label" }, label),
    cells,
  );
}

/** A Hursagmu trait in the page's words; one the GM made up keeps its own name. */
function traitWord(name) {
  const key = `VIGIL.Param.trait.${name}`;
  const said = localize(key);
  return said === key ? name : said;
}

/** The numbers of a character whose sheet this viewer may see, per game. */
function numbers(system, ch) {
  const s = ch.sheet;
  const d = ch.derived ?? {};
  if (!s) return null;
  if (system === "mettle") {
    return h(
      "div",
      { class: "numbers" },
      stat(t("VIGIL.Counter.pain"), h("span", {}, String(s.pain), h("small", {}, ` / ${s.mettle}`)), { key: "pain", class: s.pain > s.mettle ? "over" : "" }),
      rattleStat(d, s),
      stat(t("VIGIL.Page.injuryPenalty"), String(d.injury_penalty ?? 0), { key: "injury_penalty" }),
      s.resting
        ? h(
            "div",
            { class: "note rest-progress" },
            t("VIGIL.Page.resting", { done: d.rest_hours ?? 0, toward: d.hours_toward_respite ?? 0, needed: d.respite_hours }),
            d.next_rest_hour_at !== null && d.next_rest_hour_at !== undefined ? countdown({ kind: "rest_hour", until: d.next_rest_hour_at }) : null,
          )
        : null,
    );
  }
  // The game's counters, as every face shows them (core/display.js), zeros
  // included on a card (a card is the whole sheet; rows and chips leave them out).
  const shown = counters(system, s, { zeros: true }).map((c) => stat(t(counterKey(c.key)), String(c.value), { key: c.key, class: system === "dryh" ? `pool-${c.key}` : "" }));
  if (system === "dryh") {
    const fightTotal = s.fight + (d.fight_free ?? 0);
    const flightTotal = s.flight + (d.flight_free ?? 0);
    return h(
      "div",
      { class: "numbers" },
      shown,
      boxes(t("VIGIL.Page.fight"), s.fight, fightTotal, "fight"),
      boxes(t("VIGIL.Page.flight"), s.flight, flightTotal, "flight"),
    );
  }
  if (system === "hursagmu") {
    const traits = Object.entries(s.traits ?? {});
    return h(
      "div",
      { class: "numbers" },
      shown,
      traits.length ? h("div", { class: "note traits" }, traits.map(([k, v]) => `${traitWord(k)} ${v}`).join(" · ")) : null,
    );
  }
  return null;
}

/**
 * What matters beside the badges (core/display.js): a poison in the blood,
 * injuries, kit uses left, DRYH talents. A poisoned character never reads
 * "no conditions".
 */
function conditionLines(system, ch) {
  const items = [
    ...conditionsOf(system, ch).map((c) => h("li", { class: `condition condition-${c.key}`, dataset: { condition: c.key } }, t(`VIGIL.Condition.${c.key}`, { names: c.names.join(", ") }))),
    ...kitUses(ch).map((k) => h("li", { class: `kit${k.uses ? "" : " used-up"}`, dataset: { kit: k.kit } }, t("VIGIL.Kit.uses", { kit: k.kit, n: k.uses }))),
    ...talentsOf(system, ch).map((x) => h("li", { class: `talent talent-${x.which}`, dataset: { talent: x.which } }, t(`VIGIL.Talent.${x.which}`, { name: x.name }))),
  ];
  return items.length ? h("ul", { class: "conditions" }, items) : null;
}

/**
 * A character card. `extra` (dashboard only) is appended: GM controls.
 * The card carries data-char so tests and styles can find it.
 */
export function characterCard(system, id, ch, extra = null) {
  const status = ch.derived?.status ?? ch.sheet?.status;
  return h(
    "article",
    {
      class: `card vis-${ch.visibility} ${ch.badges?.length ? `has-${ch.badges[0]}` : ""}`,
      dataset: { char: id },
      "aria-label": ch.name,
    },
    h(
      "header",
      { class: "card-head" },
      h("h3", { class: "card-name" }, ch.name),
      h("span", { class: "kind" }, t(`VIGIL.Page.kindShort.${ch.kind === "npc" ? "npc" : "pc"}`)),
      ch.visibility !== "full" ? h("span", { class: `vis vis-${ch.visibility}` }, t(`VIGIL.Page.visibility.${ch.visibility}`)) : null,
    ),
    ch.badges?.length || !conditionsOf(system, ch).length ? h(
      "div",
      { class: "badges" },
      (ch.badges ?? []).map(badge),
      // No badge: the status word when the sheet is visible, else "no conditions" (what badges say).
      // No badge: the status word when the sheet is visible, else "No conditions" — unless
      // a condition that matters (a poison, an injury) is listed below.
      !ch.badges?.length && !conditionsOf(system, ch).length ? h("span", { class: "status-word" }, status ? t(`VIGIL.Choice.status.${status}`) : t("VIGIL.Condition.none")) : null,
    ) : null,
    // Beside the badges: what else matters (a poison, injuries, kit uses, talents).
    conditionLines(system, ch),
    countdownsOf(system, ch).length ? h("div", { class: "countdowns" }, countdownsOf(system, ch).map(countdown)) : null,
    numbers(system, ch),
    ch.notes ? h("p", { class: "notes" }, ch.notes) : null,
    extra,
  );
}

// ---- DRYH dice --------------------------------------------------------------

/**
 * One die as `game` reads it: its face, its pool's letter (DRYH pools and
 * helpers only) and, where a single die means something (DRYH: 1–3
 * succeeds), its success mark. Other games' dice are plain faces. Drawn by
 * the client library's one dice renderer (core/dice-view.js).
 */
export function die(game, pool, face, mark = null) {
  const { success } = readDie(game, face);
  return dieView(h, t, pool, face, { success: Boolean(success) && mark?.op !== "struck", mark });
}

/**
 * The dice of a roll by pool (core/dice-view.js, shared with the Foundry
 * chat card). `dice` is {discipline, exhaustion, madness, pain, helpers:
 * {id: faces}}; `names` maps helper ids to names.
 */
export function diceByPool(dice, dominant = null, names = {}, adjustments = []) {
  if (!dice) return null;
  return diceView(h, t, dice, { dominant, names, adjustments });
}

const PHASES = ["open", "declared", "rolled", "adjusted", "resolved"];

/** The phase track of an open roll, the current one marked. */
export function phaseTrack(phase) {
  return h(
    "ol",
    { class: "phases", "aria-label": t("VIGIL.Page.phase", { phase: t(`VIGIL.Choice.phase.${phase}`) }) },
    PHASES.map((p) => h("li", { class: p === phase ? "current" : PHASES.indexOf(p) < PHASES.indexOf(phase) ? "done" : "" }, t(`VIGIL.Choice.phase.${p}`))),
  );
}

/** A roll's reading line: successes against degree, success, dominant.
 * The server counts help this viewer cannot see (includes_unseen_help): the
 * line says so, so the successes need not match the dice shown. */
export function reading(roll) {
  if (roll.success === null || roll.success === undefined) return null;
  const unseen = roll.includes_unseen_help ? t("VIGIL.Page.unseenHelp") : "";
  return h(
    "p",
    { class: `reading ${roll.success ? "won" : "lost"}` },
    roll.successes !== undefined && roll.successes !== null ? `${t("VIGIL.Page.reading", { n: roll.successes, unseen, degree: roll.degree })} — ` : "",
    h("strong", {}, t(roll.success ? "VIGIL.Page.success" : "VIGIL.Page.failure")),
    roll.dominant ? t("VIGIL.Page.dominates", { pool: t(poolKey(roll.dominant)) }) : "",
  );
}
