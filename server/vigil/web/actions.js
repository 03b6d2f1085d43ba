/**
 * The GM's per-character commands of each game, as form specs, and the one
 * function that turns a spec into a labelled, keyboard-usable <form>.
 *
 * Field names and bounds mirror the command Structs in
 * server/vigil/rules/<game>/commands.py (the server validates anyway: these
 * forms only spare the GM a round trip for obvious mistakes). A field that
 * is left empty and is `optional` is not sent, so the server's default
 * applies.
 */

import { h } from "./common.js";

const LOT = { name: "lot", label: "Cast Lot", kind: "select", optional: true, options: [["", "server decides"], ["crit", "crit"], ["plain", "plain"], ["fail", "fail"]] };
const amount = (label = "Amount") => ({ name: "amount", label, kind: "number", min: 1, max: 1000, value: 1 });

export const ACTIONS = {
  mettle: [
    { type: "mettle.pain", label: "Pain", fields: [amount("Pain"), LOT], tone: "danger" },
    { type: "mettle.heal", label: "Heal (esoteric)", fields: [amount("Pain healed")], tone: "good" },
    { type: "mettle.rattle", label: "Rattle", fields: [amount("Rattle")], tone: "danger" },
    { type: "mettle.relieve", label: "Relieve rattle", fields: [amount("Rattle relieved")], tone: "good" },
    { type: "mettle.shake_off", label: "Shake off rattle", fields: [{ name: "effort", label: "Effort", kind: "number", min: 1, max: 1000, value: 4 }] },
    { type: "mettle.effort", label: "Effort on other activity", fields: [{ name: "effort", label: "Effort", kind: "number", min: 1, max: 1000, value: 4 }] },
    { type: "mettle.injury_add", label: "Add injury", fields: [{ name: "label", label: "Injury", kind: "text", value: "" }, { name: "penalty", label: "Penalty", kind: "number", min: 1, max: 1000, value: 1 }], tone: "danger" },
    { type: "mettle.injury_reduce", label: "Ease injury", fields: [{ name: "injury", label: "Injury", kind: "injury" }, amount("Eased by")], tone: "good" },
    { type: "mettle.injury_remove", label: "Remove injury", fields: [{ name: "injury", label: "Injury", kind: "injury" }], tone: "good" },
    {
      type: "mettle.check",
      label: "Check",
      fields: [
        { name: "stat", label: "Stat", kind: "number", min: -1000, max: 1000, value: 3 },
        { name: "modifiers", label: "Modifiers", kind: "number", min: -1000, max: 1000, value: 0 },
        { name: "tn", label: "TN", kind: "number", min: -1000, max: 1000, value: 3 },
        { name: "kind", label: "Kind", kind: "select", options: ["check", "tym", "offensive", "defensive", "passive"] },
        LOT,
      ],
    },
    {
      type: "mettle.stabilize",
      label: "Stabilize attempt",
      fields: [
        { name: "helper", label: "Helper", kind: "char" },
        { name: "discipline", label: "Discipline", kind: "select", options: ["survival", "ingenuity", "lore", "intuition"] },
        { name: "kit", label: "Kit", kind: "text", value: "medicine" },
        { name: "tn", label: "TN", kind: "number", min: -1000, max: 1000, value: 3 },
        { name: "modifiers", label: "Modifiers", kind: "number", min: -1000, max: 1000, value: 0 },
        LOT,
      ],
      tone: "good",
    },
    { type: "mettle.stabilize_by_fiat", label: "Stabilize by fiat", fields: [{ name: "means", label: "Means", kind: "text", value: "" }], tone: "good" },
    { type: "mettle.rest_start", label: "Start resting", fields: [] },
    { type: "mettle.rest_stop", label: "Stop resting", fields: [] },
    { type: "mettle.strenuous", label: "Strenuous while resting", fields: [{ name: "reason", label: "Reason", kind: "select", options: ["other", "hindrance", "faster_than_stride"] }] },
    { type: "mettle.kit_set", label: "Set kit uses", fields: [{ name: "kit", label: "Kit", kind: "text", value: "medicine" }, { name: "uses", label: "Uses", kind: "number", min: 0, max: 1000, value: 3 }] },
    { type: "mettle.discipline_set", label: "Set discipline", fields: [{ name: "discipline", label: "Discipline", kind: "text", value: "survival" }, { name: "level", label: "Level", kind: "number", min: -1000, max: 1000, value: 1 }] },
  ],
  dryh: [
    { type: "dryh.hope_spend", label: "Spend hope", fields: [{ name: "what", label: "Remove one", kind: "select", options: ["exhaustion", "fight", "flight"] }], tone: "good" },
    { type: "dryh.recover_discipline", label: "Recover discipline (hope)", fields: [], tone: "good" },
    { type: "dryh.wake", label: "Wake (crashed)", fields: [] },
    { type: "dryh.clear_snap", label: "End snap", fields: [] },
  ],
  hursagmu: [
    {
      type: "hursagmu.harm",
      label: "Harm",
      fields: [
        { name: "stuns", label: "Stuns", kind: "number", min: 0, max: 100, value: 0 },
        { name: "wounds", label: "Wounds", kind: "number", min: 0, max: 100, value: 0 },
        { name: "shocks", label: "Shocks", kind: "number", min: 0, max: 100, value: 0 },
      ],
      tone: "danger",
    },
    { type: "hursagmu.damage", label: "Damage (resisted)", fields: [{ name: "amount", label: "Damage", kind: "number", min: 1, max: 100, value: 1 }, { name: "bonus", label: "Bonus", kind: "number", min: -50, max: 50, value: 0 }], tone: "danger" },
    {
      type: "hursagmu.trait_roll",
      label: "Trait roll",
      fields: [
        { name: "trait", label: "Trait", kind: "text", value: "athlete" },
        { name: "target", label: "Target", kind: "number", min: -50, max: 200, value: 10 },
        { name: "kind", label: "Kind", kind: "select", options: ["physical", "mental", "perception", "recovery"] },
        { name: "modifiers", label: "Modifiers", kind: "number", min: -50, max: 50, value: 0 },
        { name: "needs_sight", label: "Needs sight", kind: "bool" },
        { name: "needs_hearing", label: "Needs hearing", kind: "bool" },
        { name: "darkness", label: "Darkness", kind: "bool" },
      ],
    },
    { type: "hursagmu.see_dim", label: "See in dim light", fields: [{ name: "challenge", label: "Challenge", kind: "number", min: 0, max: 100, value: 5 }, { name: "modifiers", label: "Modifiers", kind: "number", min: -50, max: 50, value: 0 }] },
    { type: "hursagmu.rest", label: "Rest an action", fields: [], tone: "good" },
    {
      type: "hursagmu.rest_terms",
      label: "Tonight's rest",
      fields: [
        { name: "wound_difficulty", label: "Wound difficulty +", kind: "number", min: 0, max: 50, value: 0 },
        { name: "shock_difficulty", label: "Shock difficulty +", kind: "number", min: 0, max: 50, value: 0 },
        { name: "spoiled", label: "Spoiled", kind: "bool" },
      ],
    },
    { type: "hursagmu.morning", label: "Morning (this character)", fields: [], tone: "good" },
    {
      type: "hursagmu.heal",
      label: "Healer's roll",
      charField: "patient",
      fields: [
        { name: "healer", label: "Healer", kind: "char", optional: true },
        { name: "healer_level", label: "or healer level", kind: "number", min: -20, max: 100, optional: true },
      ],
      tone: "good",
    },
    {
      type: "hursagmu.poison",
      label: "Poison",
      fields: [
        { name: "damage", label: "Damage", kind: "number", min: 1, max: 100, value: 1 },
        { name: "interval", label: "Every (s)", kind: "number", min: 1, max: 3153600000, value: 60 },
        { name: "duration", label: "For (s)", kind: "number", min: 1, max: 3153600000, value: 600 },
        { name: "kind", label: "Kind", kind: "select", options: ["poison", "drug"] },
        { name: "name", label: "Name", kind: "text", value: "" },
      ],
      tone: "danger",
    },
    { type: "hursagmu.fall", label: "Fall", fields: [{ name: "spaces", label: "Spaces", kind: "number", min: 0, max: 10000, value: 1 }, { name: "athlete", label: "Athlete roll", kind: "bool" }], tone: "danger" },
    {
      type: "hursagmu.senses",
      label: "Senses",
      fields: [
        { name: "blind", label: "Blind", kind: "tri" },
        { name: "deaf", label: "Deaf", kind: "tri" },
      ],
    },
  ],
};

/** Table-level commands without a character, per game. */
export const TABLE_ACTIONS = {
  mettle: [],
  dryh: [
    { type: "dryh.session_start", label: "Start session" },
    { type: "dryh.session_end", label: "End session" },
  ],
  hursagmu: [{ type: "hursagmu.morning", label: "Morning for everyone" }],
};

let formSeq = 0;

/**
 * A form for one command spec. `ctx.char()` gives the selected character,
 * `ctx.chars()` the [id, name] list, `ctx.injuries()` the selected
 * character's injuries, `ctx.send(body)` sends.
 */
export function actionForm(spec, ctx) {
  formSeq += 1;
  const inputs = [];
  const rows = spec.fields.map((f) => {
    const id = `f${formSeq}-${f.name}`;
    let input;
    if (f.kind === "select") {
      input = h("select", { id, name: f.name }, f.options.map((o) => (Array.isArray(o) ? h("option", { value: o[0] }, o[1]) : h("option", { value: o }, o))));
    } else if (f.kind === "tri") {
      input = h("select", { id, name: f.name }, h("option", { value: "" }, "unchanged"), h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
    } else if (f.kind === "char" || f.kind === "injury") {
      input = h("select", { id, name: f.name, dataset: { dynamic: f.kind, optional: f.optional ? "1" : "" } });
    } else if (f.kind === "bool") {
      input = h("input", { id, name: f.name, type: "checkbox" });
    } else if (f.kind === "number") {
      input = h("input", { id, name: f.name, type: "number", inputmode: "numeric", min: f.min, max: f.max, step: 1, value: f.value ?? "", required: !f.optional, class: "num" });
    } else {
      input = h("input", { id, name: f.name, type: "text", maxlength: 64, value: f.value ?? "" });
    }
    inputs.push([f, input]);
    return h("div", { class: `field field-${f.kind}` }, h("label", { for: id }, f.label), input);
  });
  const form = h(
    "form",
    { class: `action tone-${spec.tone ?? "plain"}`, dataset: { command: spec.type } },
    h("fieldset", {}, h("legend", {}, spec.label), rows, h("button", { type: "submit", class: `btn tone-${spec.tone ?? "plain"}` }, spec.button ?? spec.label)),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = { type: spec.type, [spec.charField ?? "char"]: ctx.char() };
    for (const [f, input] of inputs) {
      if (f.kind === "bool") body[f.name] = input.checked;
      else if (f.kind === "tri") {
        if (input.value !== "") body[f.name] = input.value === "true";
      } else if (input.value === "") {
        if (!f.optional) body[f.name] = f.kind === "number" ? 0 : "";
      } else body[f.name] = f.kind === "number" ? Number(input.value) : input.value;
    }
    ctx.send(body, form);
  });
  return form;
}

/** Refill the character and injury selects of forms under `root`, keeping choices. */
export function refreshDynamic(root, chars, injuries) {
  for (const select of root.querySelectorAll("select[data-dynamic]")) {
    const current = select.value;
    const list = select.dataset.dynamic === "char" ? chars : injuries;
    const options = list.map(([value, label]) => h("option", { value }, label));
    if (select.dataset.optional) options.unshift(h("option", { value: "" }, "—"));
    select.replaceChildren(...options);
    if ([...select.options].some((o) => o.value === current)) select.value = current;
  }
}
