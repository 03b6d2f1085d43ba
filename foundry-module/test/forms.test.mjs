/**
 * The command form builder (scripts/core/forms.js) on the module's fake DOM
 * and a small hand-written catalogue (test/fixtures/catalogue.mjs): typed
 * controls for every Field type, accessible names, what readForm sends, and
 * the pure helpers. tests/browser/test_forms.py runs the same builder in
 * Chromium over the whole generated catalogue against a real server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FakeDocument } from "./fakes/dom.mjs";
import { CATALOGUE, trialState } from "./fixtures/catalogue.mjs";
import {
  buildForm, readForm, showErrors, maySend, visibleFields, characterChoices, refChoices,
  correctablePaths, parseText, htmlPattern, textFor, humanize, subjectField, refOwner,
} from "../scripts/core/forms.js";

// The form's own words from lang/en.json (VIGIL.Form*), plus the fixture's
// labels; Foundry's localize answers a missing key with the key itself.
const LANG = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url), "utf8"));
const WORDS = {
  ...Object.fromEntries(Object.entries(LANG).filter(([k]) => k.startsWith("VIGIL.Form"))),
  "VIGIL.Command.trial.pain.label": "Pain",
  "VIGIL.Command.trial.pain.help": "Pain received; tests mettle.",
  "VIGIL.Field.amount": "Amount",
  "VIGIL.Choice.lot.crit": "Crit",
};
const t = (key) => WORDS[key] ?? key;

function form(tag, extra = {}) {
  return buildForm(CATALOGUE.commands[tag], { catalogue: CATALOGUE, state: trialState(), doc: new FakeDocument(), t, role: "gm", char: "brannoc", ...extra });
}
const q = (root, name) => root.querySelector(`[name="${name}"]`);
const change = (el) => el.dispatchEvent({ type: "change" });
const set = (root, name, value) => {
  const c = q(root, name);
  assert.ok(c, `no control named ${name}`);
  if (c.type === "checkbox") c.checked = value;
  else c.value = value;
  change(c);
  return c;
};
const byId = (root, id) => root.querySelector(`[id="${id}"]`);
/** The accessible name as aria-labelledby gives it: the referenced texts. */
const nameOf = (root, el) => el.getAttribute("aria-labelledby").split(" ").map((id) => byId(root, id)?.text ?? "").join(" ");
const options = (select) => select.children.map((o) => [o.value, o.textContent]);
const CONTROLS = ["input", "select", "button", "textarea"];
const controls = (root) => CONTROLS.flatMap((tag) => root.querySelectorAll(tag));

test("every command of the fixture gets typed controls, each with a label and a distinct name", () => {
  const names = new Set();
  for (const [tag, entry] of Object.entries(CATALOGUE.commands)) {
    const role = entry.scope === "operator" ? "operator" : "gm";
    const f = buildForm(entry, { catalogue: CATALOGUE, game: "trial", state: trialState(), doc: new FakeDocument(), t, role, char: "brannoc" });
    assert.equal(f.getAttribute("data-command"), tag);
    assert.equal(f.querySelectorAll("textarea").length, 0, tag);
    for (const c of controls(f)) {
      if (c.tagName === "INPUT") assert.ok(["number", "text", "checkbox", "file"].includes(c.type), `${tag}: input type ${c.type}`);
      if (c.tagName !== "BUTTON") assert.ok(f.querySelector(`[for="${c.getAttribute("id")}"]`), `${tag}: ${c.getAttribute("name")} has no <label for>`);
      const submit = c.getAttribute("type") === "submit";
      assert.ok(submit || c.getAttribute("aria-labelledby"), `${tag}: ${c.getAttribute("name")} without aria-labelledby`);
      const name = submit ? c.textContent : nameOf(f, c);
      assert.ok(name.trim().length > 2, `${tag}: control without a name`);
      assert.ok(!/VIGIL\./.test(name), `${tag}: a raw key in "${name}"`);
      assert.ok(!names.has(name), `two controls named "${name}"`);
      names.add(name);
    }
    const submit = f.querySelector("button.vigil-submit");
    assert.equal(submit.type, "submit");
    assert.ok(nameOf(f, f).length > 0 && submit.textContent === byId(f, f.getAttribute("aria-labelledby")).textContent);
  }
});

test("an unknown Field type throws, naming the command and the field", () => {
  const entry = { ...CATALOGUE.commands["trial.pain"], fields: [{ name: "blob", type: "json", required: true }] };
  assert.throws(() => buildForm(entry, { doc: new FakeDocument() }), /command "trial.pain" field "blob".*unknown Field type "json"/);
  const nested = { ...CATALOGUE.commands["trial.pain"], fields: [{ name: "x", type: "list", items: { name: "item", type: "any" } }] };
  assert.throws(() => buildForm(nested, { doc: new FakeDocument() }), /field "x.0".*"any"/);
});

test("labels come from t, else from the name: never a raw key", () => {
  const f = form("trial.pain");
  assert.equal(byId(f, f.getAttribute("aria-labelledby")).textContent, "Pain");
  assert.equal(byId(f, f.getAttribute("aria-describedby")).textContent, "Pain received; tests mettle.");
  assert.equal(nameOf(f, q(f, "amount")), "Pain Amount");
  assert.equal(nameOf(f, q(f, "char")), "Pain Char");
  assert.deepEqual(options(q(f, "lot")), [["", "Not set"], ["crit", "Crit"], ["plain", "Plain"], ["fail", "Fail"]]);
  assert.equal(textFor(t, "VIGIL.Missing", humanize("healer_level")), "Healer level");
  assert.equal(textFor(() => undefined, "VIGIL.Form.range", "From {min} to {max}", { min: 1, max: 3 }), "From 1 to 3");
});

test("mettle-like pain: the subject is prefilled, numbers parsed, empty optional fields omitted", () => {
  const f = form("trial.pain");
  const char = q(f, "char");
  assert.deepEqual(options(char), [["alys", "Alys"], ["brannoc", "Brannoc"]]);
  assert.equal(char.value, "brannoc");
  const amount = q(f, "amount");
  assert.equal(amount.type, "number");
  assert.deepEqual([amount.getAttribute("min"), amount.getAttribute("max"), amount.getAttribute("step")], ["1", "1000", "1"]);
  assert.equal(amount.getAttribute("aria-required"), "true");
  assert.ok(amount.hasAttribute("required"));
  set(f, "amount", "7");
  assert.deepEqual(readForm(f), { body: { type: "trial.pain", char: "brannoc", amount: 7 } });
  set(f, "lot", "crit");
  assert.deepEqual(readForm(f).body, { type: "trial.pain", char: "brannoc", amount: 7, lot: "crit" });
});

test("errors: shown in an alert linked to the field, aria-invalid, cleared on the next read", () => {
  const f = form("trial.pain");
  const amount = q(f, "amount");
  const r = readForm(f);
  assert.deepEqual(r.errors.map((e) => [e.field, e.code]), [["amount", "required"]]);
  const alert = byId(f, amount.getAttribute("aria-errormessage"));
  assert.equal(alert.getAttribute("role"), "alert");
  assert.equal(alert.hasAttribute("hidden"), false);
  assert.match(alert.textContent, /Amount: this is required/);
  assert.equal(amount.getAttribute("aria-invalid"), "true");
  assert.ok(amount.getAttribute("aria-describedby").split(" ").includes(alert.getAttribute("id")));
  for (const [text, code] of [["0", "too_small"], ["2.5", "not_an_integer"], ["1001", "too_large"], ["x", "not_a_number"]]) {
    set(f, "amount", text);
    assert.deepEqual(readForm(f).errors.map((e) => e.code), [code], text);
  }
  set(f, "amount", "3");
  assert.ok(readForm(f).body);
  assert.equal(amount.getAttribute("aria-invalid"), null);
  assert.ok(alert.hasAttribute("hidden"));
});

test("a number above an exclusive minimum: 0 is refused for a clock rate, defaults omitted", () => {
  const f = form("clock.run");
  assert.equal(q(f, "rate").getAttribute("step"), "any");
  assert.deepEqual(readForm(f).body, { type: "clock.run" });
  set(f, "rate", "0");
  assert.deepEqual(readForm(f).errors.map((e) => e.code), ["not_above"]);
  set(f, "rate", "2.5");
  assert.deepEqual(readForm(f).body, { type: "clock.run", rate: 2.5 });
});

test("booleans: a checkbox; a nullable one a select of not set / yes / no; strings trimmed", () => {
  const f = form("trial.senses");
  assert.equal(q(f, "athlete").type, "checkbox");
  assert.deepEqual(options(q(f, "blind")).map((o) => o[0]), ["", "true", "false"]);
  assert.deepEqual(readForm(f).body, { type: "trial.senses", char: "brannoc" });
  set(f, "blind", "false");
  set(f, "athlete", true);
  set(f, "means", "  herbs ");
  assert.deepEqual(readForm(f).body, { type: "trial.senses", char: "brannoc", blind: false, athlete: true, means: "herbs" });
});

test("a player: gm-only fields hidden, own-only fields offer only own characters", () => {
  const entry = CATALOGUE.commands["trial.stabilize"];
  const ctx = { role: "player", own: ["alys"] };
  assert.deepEqual(visibleFields(entry, ctx).map((f) => f.name), ["char", "helper", "kit"]);
  assert.deepEqual(characterChoices(entry, entry.fields[1], { state: trialState(), ...ctx }), [["alys", "Alys"]]);
  assert.deepEqual(characterChoices(entry, entry.fields[0], { state: trialState(), ...ctx }).map((c) => c[0]), ["alys", "brannoc"]);
  const f = form("trial.stabilize", ctx);
  assert.equal(q(f, "tn"), null);
  assert.equal(q(f, "modifiers"), null);
  assert.equal(q(f, "helper").value, "alys"); // the only own character
  // the kit is the acting character's (the helper a player must own): Alys's kits, by name
  assert.deepEqual(options(q(f, "kit")), [["", "Choose…"], ["herbs", "herbs"], ["rope", "rope"]]);
  set(f, "kit", "rope");
  assert.deepEqual(readForm(f).body, { type: "trial.stabilize", char: "brannoc", helper: "alys", kit: "rope" });
  assert.equal(maySend(entry, ctx), true);
  assert.equal(maySend(CATALOGUE.commands["trial.pain"], ctx), false);
  assert.equal(maySend(CATALOGUE.commands["trial.pain"], { role: "gm" }), true);
  assert.equal(maySend(CATALOGUE.commands["table.create"], { role: "gm" }), false);
});

test("refs: the chosen character's injuries by label, refilled when the character changes", () => {
  const f = form("trial.injury_remove");
  const injury = q(f, "injury");
  assert.deepEqual(options(injury), [["", "Choose…"], ["1", "Broken arm"], ["2", "Injury 2"]]);
  set(f, "injury", "2");
  assert.deepEqual(readForm(f).body, { type: "trial.injury_remove", char: "brannoc", injury: "2" });
  set(f, "char", "alys");
  assert.deepEqual(options(injury), [["", "None available"]]);
  assert.deepEqual(readForm(f).errors.map((e) => [e.field, e.code]), [["injury", "required"]]);
});

test("a ref that may be new: existing kits plus New…, which reveals a typed name", () => {
  const f = form("trial.kit_set");
  const kit = q(f, "kit");
  assert.deepEqual(options(kit).map((o) => o[1]), ["Choose…", "medicine", "New…"]);
  const fresh = q(f, "kit.new");
  assert.equal(fresh.type, "text");
  assert.equal(fresh.getAttribute("maxlength"), "64");
  set(f, "uses", "2");
  set(f, "kit", "medicine");
  assert.deepEqual(readForm(f).body, { type: "trial.kit_set", char: "brannoc", kit: "medicine", uses: 2 });
  set(f, "kit", options(kit)[2][0]);
  assert.deepEqual(readForm(f).errors.map((e) => e.field), ["kit"]);
  set(f, "kit.new", "bandages");
  assert.deepEqual(readForm(f).body, { type: "trial.kit_set", char: "brannoc", kit: "bandages", uses: 2 });
  // a character without kits starts on New…, the name box shown
  const state = trialState();
  state.characters.alys.sheet.kits = {};
  const g = form("trial.kit_set", { char: "alys", state });
  assert.deepEqual(options(q(g, "kit")).map((o) => o[1]), ["New…"]);
  assert.equal(g.querySelector(".vigil-ref-new").hasAttribute("hidden"), false);
  set(g, "uses", "1");
  set(g, "kit.new", "chalk");
  assert.deepEqual(readForm(g).body, { type: "trial.kit_set", char: "alys", kit: "chalk", uses: 1 });
});

test("lists: add and remove rows within max_length, items parsed and renumbered", () => {
  const f = form("trial.pain");
  set(f, "amount", "1");
  const list = f.querySelector('[data-field="faces"]');
  const add = list.querySelector("button.vigil-add");
  for (let i = 0; i < 4; i++) add.click();
  assert.equal(list.querySelectorAll(".vigil-row").length, 3, "max_length 3");
  assert.ok(add.hasAttribute("disabled"));
  set(f, "faces.0", "6");
  set(f, "faces.1", "2");
  set(f, "faces.2", "5");
  assert.deepEqual(readForm(f).body.faces, [6, 2, 5]);
  list.querySelectorAll("button.vigil-remove")[1].click();
  assert.deepEqual(readForm(f).body.faces, [6, 5]);
  assert.equal(add.hasAttribute("disabled"), false);
  const labels = list.querySelectorAll("label").map((l) => l.textContent);
  assert.deepEqual(labels, ["Faces 1", "Faces 2"]);
  set(f, "faces.2", "30");
  assert.deepEqual(readForm(f).errors.map((e) => [e.field, e.code]), [["faces.1", "too_large"]]);
  for (const b of list.querySelectorAll("button.vigil-remove")) b.click();
  assert.equal(readForm(f).body.faces, undefined, "an empty nullable list is left out");
});

test("a list of characters: by name, for a token's characters", () => {
  const f = form("token.mint");
  f.querySelector("button.vigil-add").click();
  assert.deepEqual(options(q(f, "chars.0")), [["", "Choose…"], ["alys", "Alys"], ["brannoc", "Brannoc"]]);
  set(f, "role", "player");
  set(f, "chars.0", "alys");
  assert.deepEqual(readForm(f).body, { type: "token.mint", role: "player", chars: ["alys"] });
});

test("a map keyed by characters: rows of a character and a typed value; duplicates refused", () => {
  const f = form("trial.morning", { char: null });
  assert.equal(q(f, "char").value, "");
  assert.deepEqual(readForm(f).body, { type: "trial.morning" });
  const add = f.querySelector('[data-field="rest"] button.vigil-add');
  add.click();
  set(f, "rest.0.key", "alys");
  set(f, "rest.0.value.spoiled", true);
  assert.deepEqual(readForm(f).body, { type: "trial.morning", rest: { alys: { spoiled: true } } });
  add.click();
  set(f, "rest.1.key", "alys");
  assert.deepEqual(readForm(f).errors.map((e) => e.code), ["duplicate_key"]);
});

test("character.create: the game's sheet as typed fields; defaults left out, lists and maps assembled", () => {
  const f = form("character.create", { char: null });
  assert.equal(q(f, "sheet.mettle").type, "number");
  assert.equal(q(f, "sheet.status").value, "active");
  // a ref inside a sheet is where the thing is defined: typed, not chosen
  f.querySelector('[data-field="sheet.injuries"] button.vigil-add').click();
  assert.equal(q(f, "sheet.injuries.0.id").type, "text");
  f.querySelector('[data-field="sheet.kits"] button.vigil-add').click();
  assert.equal(q(f, "sheet.kits.0.key").type, "text");
  set(f, "id", "cora");
  set(f, "name", "Cora");
  set(f, "sheet.mettle", "6");
  set(f, "sheet.injuries.0.id", "1");
  set(f, "sheet.injuries.0.penalty", "2");
  set(f, "sheet.kits.0.key", "rope");
  set(f, "sheet.kits.0.value", "3");
  assert.deepEqual(readForm(f).body, {
    type: "character.create", id: "cora", name: "Cora",
    sheet: { mettle: 6, injuries: [{ id: "1", penalty: 2 }], kits: { rope: 3 } },
  });
  set(f, "id", "no spaces");
  assert.deepEqual(readForm(f).errors.map((e) => [e.field, e.code]), [["id", "bad_pattern"]]);
  assert.equal(q(f, "id").getAttribute("pattern"), "^[A-Za-z0-9_.:\\-]+$");
});

test("table.options: current values shown, only changes sent; a nullable object behind a checkbox", () => {
  const f = form("table.options");
  assert.equal(q(f, "options.stabilize_tn").value, "3");
  assert.equal(q(f, "options.pause_without_gm").checked, true, "a setting's current value");
  assert.equal(q(f, "options.lot_weights.__set").checked, false);
  assert.deepEqual(readForm(f).body, { type: "table.options", options: {} });
  set(f, "options.stabilize_tn", "");
  set(f, "options.pause_without_gm", false);
  set(f, "options.lot_weights.__set", true);
  set(f, "options.lot_weights.crit", "2");
  assert.deepEqual(readForm(f).body, {
    type: "table.options",
    options: { lot_weights: { crit: 2, plain: 10 }, stabilize_tn: null, pause_without_gm: false },
  });
});

test("correct: paths with * resolved to the character's items by name, a typed value for each", () => {
  const f = form("correct");
  const path = q(f, "field");
  assert.deepEqual(options(path).map((o) => o[1]), [
    "Choose…", "Pain", "Injuries › Broken arm › Penalty", "Injuries › #2 › Penalty", "Kits › medicine", "Kits › New entry…",
  ]);
  set(f, "field", "injuries.0.penalty");
  const value = q(f, "value");
  assert.equal(value.type, "number");
  assert.equal(value.value, "2", "the current value");
  assert.equal(nameOf(f, value), "Correct What to correct Injuries › Broken arm › Penalty");
  set(f, "value", "1");
  assert.deepEqual(readForm(f).body, { type: "correct", char: "brannoc", field: "injuries.0.penalty", value: 1 });
  set(f, "field", "kits.*");
  set(f, "field.__key", "splints");
  set(f, "value", "4");
  assert.deepEqual(readForm(f).body, { type: "correct", char: "brannoc", field: "kits.splints", value: 4 });
  // no character: the table's own fields
  set(f, "char", "");
  assert.deepEqual(options(path).map((o) => o[0]), ["", "hope"]);
  set(f, "field", "hope");
  assert.equal(q(f, "value").value, "2");
  set(f, "value", "5");
  assert.deepEqual(readForm(f).body, { type: "correct", field: "hope", value: 5 });
});

test("revive: the character's sheet, only what the GM changes", () => {
  const f = form("revive", { char: "alys" });
  assert.equal(q(f, "fields.status").value, "dying");
  assert.equal(q(f, "fields.mettle").hasAttribute("required"), false);
  set(f, "fields.status", "active");
  assert.deepEqual(readForm(f).body, { type: "revive", char: "alys", fields: { status: "active" } });
  set(f, "char", "brannoc");
  assert.equal(q(f, "fields.pain").value, "2", "refilled for the other character");
});

test("table.create: the options follow the chosen game; table.import reads a document", () => {
  const f = form("table.create", { role: "operator", char: null, state: null });
  assert.equal(q(f, "options.manual_dice"), null);
  set(f, "system", "other");
  assert.equal(q(f, "options.wake_hour").type, "number");
  set(f, "name", "Friday");
  set(f, "options.wake_hour", "7");
  assert.deepEqual(readForm(f).body, { type: "table.create", system: "other", name: "Friday", options: { wake_hour: 7 } });
  set(f, "system", "trial");
  assert.ok(q(f, "options.manual_dice"));

  const g = form("table.import", { role: "operator", state: null });
  const file = q(g, "document");
  assert.equal(file.type, "file");
  assert.deepEqual(readForm(g).errors.map((e) => e.code), ["required"]);
});

test("onSubmit gets the body; a refusal naming a field is shown on it", async () => {
  const sent = [];
  const f = form("trial.pain", { onSubmit: (body) => { sent.push(body); return Promise.reject(Object.assign(new Error("too much"), { params: { field: "amount" } })); } });
  f.dispatchEvent({ type: "submit", preventDefault() {} });
  assert.deepEqual(sent, [], "an invalid form is not sent");
  set(f, "amount", "4");
  f.dispatchEvent({ type: "submit", preventDefault() {} });
  assert.deepEqual(sent, [{ type: "trial.pain", char: "brannoc", amount: 4 }]);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(q(f, "amount").getAttribute("aria-invalid"), "true");
  showErrors(f, [{ field: null, message: "The server is gone." }]);
  assert.equal(q(f, "amount").getAttribute("aria-invalid"), null);
  assert.equal(f.querySelector(".vigil-form-error").textContent, "The server is gone.");
});

test("pure helpers: subject, refs, correctable paths, parsing, HTML patterns", () => {
  assert.equal(subjectField(CATALOGUE.commands["trial.stabilize"]).name, "char");
  assert.equal(subjectField(CATALOGUE.commands["clock.run"]), null);
  const stabilize = CATALOGUE.commands["trial.stabilize"];
  assert.equal(refOwner(stabilize, stabilize.fields[2]), "helper");
  assert.equal(refOwner(stabilize, { ...stabilize.fields[2], of: "char" }), "char");
  const remove = CATALOGUE.commands["trial.injury_remove"];
  assert.equal(refOwner(remove, remove.fields[1]), "char");
  const sheet = trialState().characters.brannoc.sheet;
  assert.deepEqual(refChoices("injury", sheet, { path: "injuries", id: "id" }), [["1", "Broken arm"], ["2", "Injury 2"]]);
  assert.deepEqual(refChoices("kit", sheet, { path: "kits" }), [["medicine", "medicine"]]);
  assert.deepEqual(refChoices("kit", sheet), []);
  assert.deepEqual(refChoices("poison", { poisons: { p1: { name: "Asp venom" }, p2: { name: "" } } }, { path: "poisons" }), [["p1", "Asp venom"], ["p2", "p2"]]);
  const paths = correctablePaths(CATALOGUE.games.trial, { state: trialState(), t }, "alys").map((p) => [p.path, p.label]);
  assert.deepEqual(paths, [["pain", "Pain"], ["kits.herbs", "Kits › herbs"], ["kits.rope", "Kits › rope"], ["kits.*", "Kits › New entry…"]]);
  assert.deepEqual(parseText({ type: "integer", min: 1 }, " 4 "), { value: 4 });
  assert.deepEqual(parseText({ type: "string", max_length: 2 }, "abc"), { error: "too_long", params: { max: 2 } });
  assert.deepEqual(parseText({ type: "string", pattern: "^[a-z]+$" }, "Ab"), { error: "bad_pattern" });
  assert.equal(htmlPattern("^[a-z][a-z0-9_]*$"), "^[a-z][a-z0-9_]*$");
  assert.equal(htmlPattern("abc"), null, "an unanchored pattern means something else in HTML");
});

// The generated catalogue, once `vigil schema` has written it (the browser
// test walks it in Chromium too, against a real server).
const generated = await import("../scripts/core/catalogue.js").then((m) => m.CATALOGUE, () => null);

test("every command of every game of the generated catalogue builds for the GM and a player", { skip: generated ? false : "no scripts/core/catalogue.js yet" }, () => {
  let built = 0;
  for (const [game, entry] of Object.entries(generated.games)) {
    const state = { system: game, characters: { a: { name: "Ann", sheet: {} }, b: { name: "Bo", sheet: {} } }, game: {}, options: {}, settings: {} };
    for (const tag of entry.commands) {
      const command = generated.commands[tag];
      for (const viewer of [{ role: "gm" }, { role: "player", own: ["a"] }]) {
        if (!maySend(command, viewer)) continue;
        const f = buildForm(command, { catalogue: generated, state, doc: new FakeDocument(), char: "a", ...viewer });
        assert.equal(f.querySelectorAll("textarea").length, 0, tag);
        const shown = visibleFields(command, viewer).filter((fld) => !(fld.name === "field" && tag === "correct"));
        for (const fld of shown) assert.ok(f.querySelector(`[data-field="${fld.name}"]`), `${game} ${tag}: ${fld.name}`);
        const r = readForm(f);
        assert.ok(r.body || r.errors.length > 0);
        built += 1;
      }
    }
  }
  assert.ok(built > 100, `${built} forms`);
});

test("ctx.values prefills fields and ctx.choices narrows enum, character and ref fields (state-dependent offers)", () => {
  // The window's character as the helper, the patient among the dying only,
  // kits with uses left only (core/offers.js computes such lists).
  const f = form("trial.stabilize", { char: null, values: { helper: "alys" }, choices: { char: ["alys"], kit: ["rope"] } });
  assert.deepEqual(options(q(f, "char")).map(([v]) => v).filter(Boolean), ["alys"]);
  assert.equal(q(f, "helper").value, "alys", "values win over the subject prefill");
  assert.deepEqual(options(q(f, "kit")).map(([v]) => v).filter(Boolean), ["rope"], "herbs narrowed away");
  set(f, "char", "alys");
  set(f, "kit", "rope");
  assert.deepEqual(readForm(f).body, { type: "trial.stabilize", char: "alys", helper: "alys", kit: "rope" });
  // An enum narrowed: only the listed choices, in the catalogue's order.
  const p = form("trial.pain", { choices: { lot: ["fail", "crit"] } });
  assert.deepEqual(options(q(p, "lot")).map(([v]) => v), ["", "crit", "fail"]);
  // A ref that may name a new thing keeps "New…".
  const k = form("trial.kit_set", { choices: { kit: [] } });
  assert.equal(options(q(k, "kit")).length, 1);
});

test("a Hursagmu trait is chosen by its words in the reader's language; a kit people named stays its name", { skip: generated ? false : "no scripts/core/catalogue.js yet" }, () => {
  const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
  const tDe = (key) => de[key] ?? key; // Foundry's localize: a missing key is itself
  const state = { system: "hursagmu", characters: { a: { name: "Ann", sheet: { traits: { athlete: 2, constitution: 3 }, kits: { medkit: 1 } } } }, game: {}, options: {}, settings: {} };
  const f = buildForm(generated.commands["hursagmu.trait_roll"], { catalogue: generated, state, doc: new FakeDocument(), t: tDe, role: "gm", char: "a" });
  const texts = [...q(f, "trait").querySelectorAll("option")].map((o) => [o.getAttribute("value"), o.textContent]).filter(([v]) => v);
  assert.deepEqual(texts, [["athlete", de["VIGIL.Param.trait.athlete"]], ["constitution", de["VIGIL.Param.trait.constitution"]]]);
  set(f, "trait", "constitution");
  const kind = [...q(f, "kind").querySelectorAll("option")].map((o) => o.getAttribute("value")).find(Boolean);
  set(f, "kind", kind);
  set(f, "target", "3");
  const r = readForm(f);
  assert.equal(r.body?.trait, "constitution", `the value sent is the trait's key (${JSON.stringify(r.errors)})`);
});
