/**
 * The DRYH roll panel of the GM's and a player's page: the coins, each
 * open roll through its phases with the controls this viewer may use now
 * (declare, help, roll, despair, hope, resolve, pending choices; as the
 * server's view says: state.legal and the roll's own legal moves), and the
 * last resolved roll once none is open.
 */

import { CATALOGUE } from "/client/core/catalogue.js";
import { choiceLabel } from "/client/core/fields.js";
import { buildForm } from "/client/core/forms.js";
import { legalFor } from "/client/core/offers.js";
import { explanation, h, swap, t } from "./common.js";
import { formCtx, offerFor, slots } from "./acting.js";
import { lastResolvedRoll } from "./history.js";
import { $, page, run } from "./page.js";
import { diceByPool, phaseTrack, reading } from "./render.js";

const choiceField = (tag, name) => CATALOGUE.commands[tag].fields.find((f) => f.name === name);
const choiceText = (tag, name, v) => choiceLabel(choiceField(tag, name), v, t);

export function renderDryh(state, gm) {
  const g = state.game;
  $("hope").textContent = String(g.hope ?? 0);
  $("despair").textContent = String(g.despair ?? 0);
  $("session").textContent = g.session?.active ? t("VIGIL.Page.session", { number: g.session.number }) : t("VIGIL.Page.noSession", { played: g.session?.number ?? 0 });
  const rolls = Object.entries(g.rolls ?? {});
  const boxes = rolls.map(([char, roll]) => rollBox(state, char, roll, gm));
  const lastRoll = lastResolvedRoll();
  if (!rolls.length && lastRoll) {
    boxes.push(
      h(
        "section",
        { class: "roll last-roll", dataset: { roll: lastRoll.protagonist, phase: "done" }, "aria-label": t("VIGIL.Page.lastRollLabel") },
        h("header", { class: "roll-head" }, h("h3", {}, t("VIGIL.Page.lastRoll", { name: page.names[lastRoll.protagonist] ?? lastRoll.protagonist }))),
        diceByPool(lastRoll.dice, lastRoll.dominant, page.names, lastRoll.adjustments),
        reading(lastRoll),
        explanation({ params: { explain: lastRoll.explain } }, "dryh"),
      ),
    );
  }
  swap($("rolls"), boxes.length ? [boxes, rolls.length ? null : h("p", { class: "muted" }, t("VIGIL.Page.noOpenRoll"))] : h("p", { class: "muted" }, t("VIGIL.Page.noOpenRoll")));
}

function rollBox(state, char, roll, gm) {
  const name = page.names[char] ?? char;
  const k = (s) => `${char}:${s}`;
  const d = roll.declaration;
  const controls = [];
  const talents = choiceField("dryh.declare", "talent").choices;
  if (offerFor(state, char, "dryh.declare")) {
    controls.push(
      h(
        "form",
        {
          class: "inline-form",
          dataset: { command: "dryh.declare" },
          onsubmit: (ev) => {
            ev.preventDefault();
            const f = ev.target;
            run({ type: "dryh.declare", char, madness: Number(f.madness.value), exhaustion_up: f.exhaustion_up.checked, talent: f.talent.value });
          },
        },
        h("label", { for: `decl-m-${char}` }, t("VIGIL.Page.madnessDice")),
        h("select", { id: `decl-m-${char}`, name: "madness", dataset: { key: k("madness") } }, [0, 1, 2, 3, 4, 5, 6].map((n) => h("option", { value: n, selected: (d?.madness ?? 0) === n }, String(n)))),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "exhaustion_up", checked: !!d?.exhaustion_up, dataset: { key: k("exh") } }), ` ${t("VIGIL.Page.exhaustionUp")}`),
        h("label", { for: `decl-t-${char}` }, t("VIGIL.Page.talent")),
        h("select", { id: `decl-t-${char}`, name: "talent", dataset: { key: k("talent") } }, talents.map((v) => h("option", { value: v, selected: d?.talent === v }, choiceText("dryh.declare", "talent", v)))),
        h("button", { type: "submit", class: "btn", dataset: { key: k("declare") } }, t("VIGIL.Page.declare")),
      ),
    );
  }
  if (roll.phase === "open" || roll.phase === "declared") {
    // DRYH-03: who may join this roll and who may leave it, as the server's view says (state.legal).
    const help = legalFor(state, char, "dryh.help");
    const variants = Array.isArray(help) ? help : [];
    const helpers = variants.filter((v) => !v.leave).map((v) => [v.helper, state.characters[v.helper]]).filter(([, ch]) => ch);
    const leaving = variants.filter((v) => v.leave).map((v) => v.helper);
    if (helpers.length || leaving.length) {
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.help" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.help", char, helper: ev.target.helper.value });
            },
          },
          helpers.length ? [
            h("label", { for: `help-${char}` }, t("VIGIL.Page.helper")),
            h("select", { id: `help-${char}`, name: "helper", dataset: { key: k("helper") } }, helpers.map(([id, ch]) => h("option", { value: id }, ch.name))),
            h("button", { type: "submit", class: "btn", dataset: { key: k("help") } }, t("VIGIL.Page.joinAsHelper")),
          ] : null,
          leaving.map((hid) => h("button", { type: "button", class: "btn small", onclick: () => run({ type: "dryh.help", char, helper: hid, leave: true }) }, t("VIGIL.Page.leaves", { name: page.names[hid] ?? hid }))),
        ),
      );
    }
    const row = [];
    if (gm && state.options?.manual_dice) controls.push(manualRoll(state, char));
    else if (offerFor(state, char, "dryh.roll")) row.push(h("button", { type: "button", class: "btn primary big", dataset: { key: k("roll"), command: "dryh.roll" }, onclick: () => run({ type: "dryh.roll", char }) }, t("VIGIL.Page.rollFor", { name })));
    if (gm && offerFor(state, char, "dryh.cancel")) row.push(h("button", { type: "button", class: "btn", dataset: { key: k("cancel"), command: "dryh.cancel" }, onclick: () => run({ type: "dryh.cancel", char }) }, t("VIGIL.Page.cancelRoll")));
    if (row.length) controls.push(h("div", { class: "row" }, row));
  }
  if (roll.phase === "rolled" || roll.phase === "adjusted") {
    if (gm && offerFor(state, char, "dryh.despair_spend")) {
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.despair_spend" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.despair_spend", char, pool: ev.target.pool.value, op: ev.target.op.value });
            },
          },
          h("label", { for: `dsp-pool-${char}` }, t("VIGIL.Page.despairPool")),
          h("select", { id: `dsp-pool-${char}`, name: "pool", dataset: { key: k("dpool") } }, choiceField("dryh.despair_spend", "pool").choices.map((p) => h("option", { value: p }, choiceText("dryh.despair_spend", "pool", p)))),
          h("label", { for: `dsp-op-${char}` }, t("VIGIL.Page.change")),
          h("select", { id: `dsp-op-${char}`, name: "op", dataset: { key: k("dop") } }, h("option", { value: "add" }, t("VIGIL.Page.addSix")), h("option", { value: "remove" }, t("VIGIL.Page.removeSix"))),
          h("button", { type: "submit", class: "btn tone-danger", dataset: { key: k("despair") } }, t("VIGIL.Page.spendDespair")),
        ),
      );
    }
    if (offerFor(state, char, "dryh.hope_improve")) {
      controls.push(
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", class: "btn tone-good", dataset: { key: k("hope"), command: "dryh.hope_improve" }, onclick: () => run({ type: "dryh.hope_improve", char }) }, t("VIGIL.Page.spendHope")),
        ),
      );
    }
    const resolve = gm ? offerFor(state, char, "dryh.resolve") : null;
    if (resolve) {
      // DRYH-21: only the failure consequences the rules would accept now.
      const failures = resolve.choices?.failure ?? ["none"];
      controls.push(
        h(
          "form",
          {
            class: "inline-form",
            dataset: { command: "dryh.resolve" },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.resolve", char, failure: ev.target.failure.value });
            },
          },
          failures.length > 1 ? [
            h("label", { for: `fail-${char}` }, t("VIGIL.Page.failureConsequence")),
            h("select", { id: `fail-${char}`, name: "failure", dataset: { key: k("failure") } }, failures.map((f) => h("option", { value: f }, choiceText("dryh.resolve", "failure", f)))),
          ] : h("input", { type: "hidden", name: "failure", value: "none" }),
          h("button", { type: "submit", class: "btn primary big", dataset: { key: k("resolve") } }, t("VIGIL.Page.resolve")),
        ),
      );
    }
  }
  if (roll.phase === "resolved") {
    // DRYH-14/16/20: each pending choice, to its chooser, with the legal moves only.
    const chooses = legalFor(state, char, "dryh.choose");
    for (const [who, kind] of Object.entries(roll.pending ?? {})) {
      const chooser = page.names[who] ?? who;
      const kindWord = t(`VIGIL.Choice.pending.${kind}`);
      // The choices the server's view offers this viewer for `who` (none: another's to make).
      // A variant naming no chooser means the roll's protagonist: the same move as one naming it, listed once.
      const choices = [...new Set((Array.isArray(chooses) ? chooses : []).filter((v) => (v.who ?? char) === who).map((v) => v.choice))];
      if (!choices.length) {
        controls.push(h("p", { class: "muted pending-other" }, t("VIGIL.Page.mustChoose", { name: chooser, kind: kindWord.toLowerCase() })));
        continue;
      }
      controls.push(
        h(
          "form",
          {
            class: "inline-form pending-choice",
            dataset: { command: "dryh.choose", who },
            onsubmit: (ev) => {
              ev.preventDefault();
              run({ type: "dryh.choose", char, who, choice: ev.target.choice.value });
            },
          },
          h("label", { for: `choose-${char}-${who}` }, t("VIGIL.Page.chooses", { name: chooser, kind: kindWord })),
          h("select", { id: `choose-${char}-${who}`, name: "choice", dataset: { key: k(`choice-${who}`) } }, choices.map((c) => h("option", { value: c }, choiceText("dryh.choose", "choice", c)))),
          h("button", { type: "submit", class: "btn primary", dataset: { key: k(`choose-${who}`) } }, t("VIGIL.Page.choose")),
        ),
      );
    }
  }
  const decl = d
    ? [
        t("VIGIL.Page.declared", { n: d.madness }),
        d.exhaustion_up ? t("VIGIL.Page.exhaustionUp") : null,
        d.talent && d.talent !== "none" ? choiceText("dryh.declare", "talent", d.talent) : null,
      ].filter(Boolean).join(", ")
    : null;
  return h(
    "section",
    { class: `roll phase-${roll.phase}`, dataset: { roll: char, phase: roll.phase }, "aria-label": t("VIGIL.Page.rollOf", { name }) },
    h("header", { class: "roll-head" }, h("h3", {}, t("VIGIL.Page.rollOf", { name })), h("span", { class: "muted" }, t("VIGIL.Page.painDice", { n: roll.pain, kind: t(`VIGIL.Choice.kind.${roll.kind}`) })), phaseTrack(roll.phase)),
    decl && roll.phase !== "open" ? h("p", { class: "muted" }, decl) : null,
    roll.helpers?.length ? h("p", { class: "muted" }, t("VIGIL.Page.helpers", { names: roll.helpers.map((x) => page.names[x] ?? x).join(", ") })) : null,
    diceByPool(roll.dice, roll.dominant, page.names, roll.adjustments),
    reading(roll),
    explanation({ params: { explain: roll.explain } }, "dryh"),
    controls,
  );
}

/**
 * With manual dice on, the GM's roll of `char`'s open roll is the
 * catalogue's dryh.roll form with its faces (core/forms.js shows them while
 * the option is on); left empty, the server rolls. Kept across renders like
 * the other built forms (`slots`), so faces being typed survive a patch.
 */
function manualRoll(state, char) {
  const roll = state.game.rolls[char];
  const slot = `roll:${char}`;
  const identity = JSON.stringify([char, roll.opened_at, roll.helpers, Object.keys(state.characters).map((id) => [id, state.characters[id].name])]);
  let form = slots.get(slot)?.identity === identity ? slots.get(slot).form : null;
  if (!form) {
    form = buildForm(CATALOGUE.commands["dryh.roll"], formCtx(state, { char }));
    form.classList.add("action", "manual-roll");
    form.dataset.slot = slot;
    slots.set(slot, { form, identity, data: null });
  }
  return h(
    "div",
    { class: "manual-roll-box" },
    h("p", { class: "note" }, t("VIGIL.Page.manualDice")),
    form,
  );
}
