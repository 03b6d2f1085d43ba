/**
 * One form builder for every command of the command catalogue
 * (schemas/catalogue.json, also core/catalogue.js), shared by the GM
 * dashboard and the Foundry window, so that a command's inputs, bounds and
 * permissions are defined once — in the server's code — and every client
 * shows the same typed, labelled form for it.
 *
 *   const form = buildForm(CATALOGUE.commands["mettle.pain"], ctx);
 *   container.appendChild(form);
 *   const { body, errors } = readForm(form);   // body = {type: "mettle.pain", char, amount, …}
 *
 * ctx (every member optional except where a field needs it):
 *  - catalogue  the whole catalogue (per_game fields read catalogue.games[game])
 *  - game       the table's game; default entry.game, then state.system
 *  - state      the table view the client holds (VigilClient.state):
 *               state.characters[id] = {name, sheet, …}, state.options, state.settings, state.game
 *  - char       the character the form acts on: prefilled into the command's
 *               subject field (char, else patient, else who, else its first character field)
 *  - values     {field name: value}: initial values of top-level fields (they
 *               win over `char`), e.g. a window's character as a stabilize's helper
 *  - choices    {field name: [value, …]}: a top-level enum, character or ref
 *               field offers only these (state-dependent offers such as the
 *               legal moves of the view: state.game.rolls[c].legal); the
 *               server still checks every command
 *  - role       "gm" | "player" | "operator"; a player is not shown gm_only fields
 *               and picks only its own characters in the fields it must own
 *  - own        a player's own character ids (VigilClient.ownCharacters)
 *  - t          key → text (game.i18n.localize, or a lookup in lang/en.json);
 *               a missing key (undefined, null, "" or the key itself) falls back
 *               to readable English derived from the name, never the raw key
 *  - doc        the document to build in; default globalThis.document
 *  - idPrefix   prefix of every element id; default a fresh "vigil-form-<n>"
 *  - onSubmit   (body, form) => any: called on submit with a valid body;
 *               a rejected promise is shown in the form's alert
 *  - errorText  (err) => string: the sentence for such a rejection (default err.message)
 *
 * Every Field type of the catalogue gets a typed control (number, text,
 * checkbox, select, repeated rows, fieldsets); a type this file does not know
 * throws an Error naming the command and the field — there is deliberately no
 * free-JSON fallback. Every control has a <label for> and an accessible name
 * that starts with the command's label (aria-labelledby), so two forms on one
 * page never share a name; a person reads names, never ids.
 *
 * Only DOM calls that every browser (and the module's fake DOM) has are used:
 * createElement, setAttribute, append, textContent, value/checked,
 * addEventListener. Nothing user-supplied is ever parsed as HTML.
 */

import {
  askable,
  characterChoices,
  choiceLabel,
  clockParts,
  clockSeconds,
  commandLabel,
  correctablePaths,
  emptyValue,
  fieldLabel,
  htmlPattern,
  humanize,
  idFrom,
  parseText,
  refChoices,
  sameJson,
  SPAN_UNITS,
  spanParts,
  subjectField,
  textFor,
  UNSET,
  visibleFields,
  word,
} from "./fields.js";


/** The model behind each built form: readForm and showErrors need it. */
const FORMS = new WeakMap();
let formSeq = 0;

/** The value of a ref select's "New…" choice (no id typed by a person has it). */
const NEW_VALUE = "\u0000new";


/** `list` ([value, label, raw]) narrowed to ctx.choices[path] (raw values),
 * when the viewer's context narrows that top-level field; a ref's "New…"
 * entry stays. */
function narrowed(b, path, list) {
  const allowed = b.ctx.choices?.[path];
  if (!Array.isArray(allowed)) return list;
  return list.filter((c) => c[0] === NEW_VALUE || allowed.includes(c[2]));
}

// The form's own words are lang/en.json's VIGIL.Form.<name> and
// VIGIL.FormError.<code> (the module's game.i18n and the pages' loaded
// lang file both give them through `t`); a key `t` lacks reads as its name.

/** The pure half, for those importing the builder (see core/fields.js). */
export * from "./fields.js";

// The form's own words are lang/en.json's VIGIL.Form.<name> and
// VIGIL.FormError.<code> (the module's game.i18n and the pages' loaded
// lang file both give them through `t`); a key `t` lacks reads as its name.

function emptyLabel(b, field) {
  const specific = textFor(b.t, `VIGIL.Command.${b.entry.type}.empty.${field.name}`, "");
  return specific || textFor(b.t, `VIGIL.Empty.${field.name}`, word(b.t, "none"));
}

// ---- DOM building --------------------------------------------------------------

function el(doc, tag, attrs = {}, text) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function option(doc, value, text) {
  return el(doc, "option", { value }, text);
}

/**
 * The build context of one form: document, words, ids, and the chain of
 * labels (command, enclosing fieldsets) that prefixes every accessible name.
 */
class Builder {
  constructor(entry, ctx, doc, prefix) {
    this.entry = entry;
    this.ctx = ctx;
    this.doc = doc;
    this.t = ctx.t;
    this.prefix = prefix;
    this.n = 0;
    this.labelIds = [];
    this.charNodes = {};
    this.gameNode = null;
    // Inside a sheet or a correction's value: refs there define things.
    this.defining = false;
  }

  id(kind = "f") {
    this.n += 1;
    return `${this.prefix}-${kind}${this.n}`;
  }

  /** Run `fn` with `labelId` added to the accessible-name chain. */
  within(labelId, fn) {
    this.labelIds.push(labelId);
    try {
      return fn();
    } finally {
      this.labelIds.pop();
    }
  }

  named(ownId) {
    return [...this.labelIds, ownId].join(" ");
  }

  /** The game whose shapes and refs a field uses: the choice in the field
   * a per_game field names by `game_from` (table.create's system), else the
   * table's. */
  game() {
    if (this.gameNode) return this.gameNode.currentValue();
    return this.ctx.game || this.entry.game || this.ctx.state?.system || null;
  }

  /** The catalogue's entry of that game; null when `optional` (or when the
   * form's game is yet to be chosen), else a missing one is an Error. */
  gameEntry(field, path, optional = false) {
    const game = this.game();
    const entry = game ? this.ctx.catalogue?.games?.[game] : null;
    if (!entry && (optional || this.gameNode)) return null;
    if (!entry) throw new Error(`forms: command "${this.entry.type}" field "${path}" needs the catalogue entry of game "${game ?? "?"}"`);
    return entry;
  }

  fail(path, what) {
    return new Error(`forms: command "${this.entry.type}" field "${path}": ${what}`);
  }
}

/**
 * A node of the form's tree: one Field's element and how to read it.
 * read(errors, path) → a value, null, or UNSET; errors get {field, code, params, node}.
 */
class Node {
  constructor(field, el, label) {
    this.field = field;
    this.el = el;
    this.label = label;
    this.control = null;
    this.alert = null;
  }

  read() {
    return UNSET;
  }

  /** The node at `parts` below this one, for errors named by path. */
  find(parts) {
    return parts.length === 0 ? this : null;
  }

  showError(message) {
    if (!this.alert) return;
    this.alert.textContent = message;
    this.alert.removeAttribute("hidden");
    if (this.control) {
      this.control.setAttribute("aria-invalid", "true");
      this.control.setAttribute("aria-errormessage", this.alert.getAttribute("id"));
      const described = (this.control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
      if (!described.includes(this.alert.getAttribute("id"))) described.push(this.alert.getAttribute("id"));
      this.control.setAttribute("aria-describedby", described.join(" "));
    }
  }

  clearError() {
    if (!this.alert) return;
    this.alert.textContent = "";
    this.alert.setAttribute("hidden", "");
    if (this.control) {
      this.control.removeAttribute("aria-invalid");
      this.control.removeAttribute("aria-errormessage");
      const alertId = this.alert.getAttribute("id");
      const described = (this.control.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && x !== alertId);
      if (described.length) this.control.setAttribute("aria-describedby", described.join(" "));
      else this.control.removeAttribute("aria-describedby");
    }
  }

  /** Every node of this subtree (for clearing errors). */
  *all() {
    yield this;
  }
}

function pushError(errors, node, path, code, params = {}) {
  errors.push({ field: path, code, params: { label: node.label, ...params }, node });
}

/** The hint under a number/list: its bounds in words, or null. */
function boundsHint(t, min, max, kind, minExclusive = false) {
  const has = (v) => v !== undefined && v !== null;
  if (minExclusive && has(min)) return has(max) ? word(t, "aboveAtMost", { min, max }) : word(t, "above", { min });
  if (kind === "length") {
    if (has(min) && min > 0 && has(max)) return word(t, "lengthRange", { min, max });
    return has(max) ? word(t, "upTo", { max }) : null;
  }
  if (has(min) && has(max)) return word(t, "range", { min, max });
  if (has(min)) return word(t, "atLeast", { min });
  if (has(max)) return word(t, "atMost", { max });
  return null;
}

/**
 * The wrapper of one control: <div><label for>…</label>control hint alert</div>,
 * with the control's required/aria attributes. Returns {wrap, labelEl, alert}.
 */
function frame(b, field, path, control, label, { hint = null, checkbox = false } = {}) {
  const id = control.getAttribute("id");
  const labelId = `${id}-label`;
  const labelEl = el(b.doc, "label", { for: id, id: labelId }, label);
  const wrap = el(b.doc, "div", { class: `vigil-field vigil-field-${field.type}`, "data-field": path });
  control.setAttribute("aria-labelledby", b.named(labelId));
  if (field.required && !checkbox) {
    control.setAttribute("required", "");
    control.setAttribute("aria-required", "true");
  }
  if (checkbox) wrap.append(control, labelEl);
  else wrap.append(labelEl, control);
  const described = [];
  if (hint) {
    const hintEl = el(b.doc, "span", { class: "vigil-hint", id: `${id}-hint` }, hint);
    described.push(hintEl.getAttribute("id"));
    wrap.appendChild(hintEl);
  }
  const about = aboutText(b, field);
  if (about) {
    wrap.appendChild(el(b.doc, "span", { class: "vigil-hint vigil-about", id: `${id}-about` }, about));
    described.push(`${id}-about`);
  }
  if (described.length) control.setAttribute("aria-describedby", described.join(" "));
  const alert = el(b.doc, "span", { class: "vigil-error", role: "alert", id: `${id}-error`, hidden: true });
  wrap.appendChild(alert);
  return { wrap, labelEl, alert };
}

function makeNode(field, control, parts, readFn) {
  const node = new Node(field, parts.wrap, parts.labelEl.textContent);
  node.control = control;
  node.alert = parts.alert;
  node.labelEl = parts.labelEl;
  node.read = readFn;
  return node;
}

/** integer / number / string: a typed <input>. */
function textNode(b, field, path, init, label) {
  const numeric = field.type === "integer" || field.type === "number";
  const id = b.id();
  const input = numeric
    ? el(b.doc, "input", {
      id, name: path, type: "number",
      min: field.min, max: field.max,
      step: field.type === "integer" ? 1 : "any",
      inputmode: field.type === "integer" ? "numeric" : "decimal",
    })
    : el(b.doc, "input", {
      id, name: path, type: "text",
      minlength: field.min_length, maxlength: field.max_length,
      pattern: htmlPattern(field.pattern),
      autocomplete: "off", spellcheck: "false",
    });
  input.value = init === undefined || init === null ? "" : String(init);
  const hint = numeric ? boundsHint(b.t, field.min, field.max, "value", field.min_exclusive) : field.from ? word(b.t, "idHint", { from: fieldLabel({ name: field.from }, b.t) }) : null;
  const parts = frame(b, field, path, input, label, { hint });
  const node = makeNode(field, input, parts, (errors, p) => {
    if (input.validity?.badInput) {
      pushError(errors, node, p, "not_a_number");
      return UNSET;
    }
    const text = String(input.value ?? "").trim();
    const r = text === "" ? emptyValue(field) : parseText(field, text);
    if (r.error) {
      pushError(errors, node, p, r.error, r.params);
      return UNSET;
    }
    return r.value;
  });
  return node;
}

/**
 * A game time ("clock": a day and a time of day) or a span of game time
 * ("duration": an amount and a unit of minutes, hours or days), read into
 * the seconds the server keeps; no person types seconds.
 */
function timeNode(b, field, path, init, label) {
  const id = b.id();
  const labelId = `${id}-label`;
  const wrap = el(b.doc, "div", { class: `vigil-field vigil-field-time vigil-time-${field.time}`, "data-field": path });
  const labelEl = el(b.doc, "label", { for: id, id: labelId }, label);
  const row = el(b.doc, "div", { class: "vigil-time-row" });
  const subLabel = (ctl, text) => {
    const sub = el(b.doc, "label", { class: "vigil-time-part", for: ctl.getAttribute("id"), id: `${ctl.getAttribute("id")}-label` }, text);
    ctl.setAttribute("aria-labelledby", b.named(`${labelId} ${sub.getAttribute("id")}`));
    return sub;
  };
  const has = init !== undefined && init !== null;
  let read;
  let first;
  if (field.time === "clock") {
    const parts = has ? clockParts(init) : { day: "", time: "" };
    const day = el(b.doc, "input", { id, name: `${path}.day`, type: "number", min: 1, step: 1, inputmode: "numeric", class: "vigil-day" });
    // A text box rather than type=time: the browser's picker speaks 12-hour
    // AM/PM in some locales, and a table reads game times as 24-hour clocks.
    const time = el(b.doc, "input", { id: `${id}-t`, name: `${path}.time`, type: "text", inputmode: "numeric", pattern: "([01]?[0-9]|2[0-3]):[0-5][0-9]", placeholder: "07:00", class: "vigil-clock", autocomplete: "off" });
    day.value = String(parts.day);
    time.value = parts.time;
    row.append(subLabel(day, word(b.t, "day")), day, subLabel(time, word(b.t, "timeOfDay")), time);
    first = day;
    read = (errors, p) => {
      if (String(day.value).trim() === "" && !time.value) {
        const r = emptyValue(field);
        if (r.error) pushError(errors, node, p, r.error);
        return r.error ? UNSET : r.value;
      }
      const v = clockSeconds(day.value, time.value.trim() || "00:00");
      if (v === null) {
        pushError(errors, node, p, "not_a_time");
        return UNSET;
      }
      const r = parseText(field, String(v));
      if (r.error) pushError(errors, node, p, r.error, { ...r.params, min: clockLabel(b, r.params?.min), max: clockLabel(b, r.params?.max) });
      return r.error ? UNSET : r.value;
    };
  } else {
    const parts = has ? spanParts(init) : { amount: "", unit: "minutes" };
    const amount = el(b.doc, "input", { id, name: `${path}.amount`, type: "number", min: 0, step: "any", inputmode: "decimal" });
    const unit = el(b.doc, "select", { id: `${id}-u`, name: `${path}.unit` });
    unit.replaceChildren(...[...SPAN_UNITS].reverse().map(([, key]) => option(b.doc, key, word(b.t, key))));
    amount.value = String(parts.amount);
    unit.value = parts.unit;
    row.append(amount, subLabel(unit, word(b.t, "unit")), unit);
    amount.setAttribute("aria-labelledby", b.named(labelId));
    first = amount;
    read = (errors, p) => {
      const text = String(amount.value ?? "").trim();
      if (text === "") {
        const r = emptyValue(field);
        if (r.error) pushError(errors, node, p, r.error);
        return r.error ? UNSET : r.value;
      }
      const size = SPAN_UNITS.find(([, key]) => key === unit.value)?.[0] ?? 60;
      const n = Number(text);
      if (!Number.isFinite(n)) {
        pushError(errors, node, p, "not_a_number");
        return UNSET;
      }
      const seconds = field.type === "integer" ? Math.round(n * size) : n * size;
      const r = parseText(field, String(seconds));
      if (r.error) pushError(errors, node, p, r.error, { min: spanLabel(b, field.min), max: spanLabel(b, field.max) });
      return r.error ? UNSET : r.value;
    };
  }
  if (field.required) first.setAttribute("aria-required", "true");
  wrap.append(labelEl, row);
  const alert = el(b.doc, "span", { class: "vigil-error", role: "alert", id: `${id}-error`, hidden: true });
  wrap.appendChild(alert);
  const node = makeNode(field, first, { wrap, labelEl, alert }, (errors, p) => read(errors, p));
  return node;
}

/** A game time in words for a bound ("day 2, 07:00"). */
function clockLabel(b, seconds) {
  if (seconds === undefined || seconds === null) return seconds;
  const { day, time } = clockParts(seconds);
  return word(b.t, "clockAt", { day, time });
}

/** A span in words for a bound ("2 hours"). */
function spanLabel(b, seconds) {
  if (seconds === undefined || seconds === null) return seconds;
  const { amount, unit } = spanParts(seconds);
  return `${amount} ${word(b.t, unit)}`;
}

/** boolean: a checkbox; a nullable boolean: a select of unset / yes / no. */
function booleanNode(b, field, path, init, label) {
  if (field.nullable) {
    const choices = [["true", word(b.t, "yes"), true], ["false", word(b.t, "no"), false]];
    return selectNode(b, field, path, init === null || init === undefined ? "" : String(init), label, choices, { empty: emptyLabel(b, field) });
  }
  const id = b.id();
  const input = el(b.doc, "input", { id, name: path, type: "checkbox" });
  input.checked = Boolean(init);
  const parts = frame(b, field, path, input, label, { checkbox: true });
  return makeNode(field, input, parts, () => Boolean(input.checked));
}

/**
 * A <select> of [value, label, raw] choices; `empty` labels a leading
 * empty choice (a nullable or optional field), else a required field without
 * a current value gets a "Choose…" placeholder.
 */
function selectNode(b, field, path, init, label, choices, { empty = null } = {}) {
  const id = b.id();
  const select = el(b.doc, "select", { id, name: path });
  const parts = frame(b, field, path, select, label);
  const node = makeNode(field, select, parts, (errors, p) => {
    const v = select.value;
    if (v === "" || v === undefined || v === null) {
      const r = emptyValue(field);
      if (r.error) pushError(errors, node, p, r.error);
      return r.error ? UNSET : r.value;
    }
    const hit = node.choices.find((c) => c[0] === v);
    if (!hit) {
      pushError(errors, node, p, "bad_choice");
      return UNSET;
    }
    return hit[2];
  });
  node.choices = [];
  node.currentValue = () => {
    const hit = node.choices.find((c) => c[0] === select.value);
    return hit ? hit[2] : null;
  };
  /** Refill the options, keeping the current choice when it is still offered. */
  node.setChoices = (list, want = select.value) => {
    node.choices = list;
    const opts = [];
    const known = list.some((c) => c[0] === want);
    if (empty !== null) opts.push(option(b.doc, "", empty));
    else if (!known || list.length === 0) opts.push(option(b.doc, "", list.length ? word(b.t, "choose") : word(b.t, "noChoices")));
    for (const [value, text] of list) opts.push(option(b.doc, value, text));
    select.replaceChildren(...opts);
    select.value = known ? want : "";
  };
  node.setChoices(choices, init === undefined || init === null ? "" : String(init));
  return node;
}

function enumNode(b, field, path, init, label) {
  const choices = narrowed(b, path, (field.choices ?? []).map((v) => [String(v), choiceLabel(field, v, b.t), v]));
  const hasDefault = field.default !== undefined && field.default !== null && (field.choices ?? []).includes(field.default);
  const empty = field.nullable || (!field.required && !hasDefault) ? emptyLabel(b, field) : null;
  const start = init !== undefined ? init : field.default;
  return selectNode(b, field, path, start === undefined || start === null ? "" : String(start), label, choices, { empty });
}

function characterNode(b, field, path, init, label) {
  const choices = narrowed(b, path, characterChoices(b.entry, field, b.ctx).map(([id, name]) => [id, name, id]));
  const empty = field.nullable || !field.required ? emptyLabel(b, field) : null;
  // A player who may name only one character names it without choosing.
  const only = choices.length === 1 && field.required ? choices[0][0] : "";
  const node = selectNode(b, field, path, init ?? only, label, choices, { empty });
  return node;
}

/**
 * The character field whose things a ref field names: `field.of` when the
 * catalogue says; else the character a player must act through
 * (senders.player.own: mettle.stabilize uses the helper's kit), else the
 * command's subject.
 */
export function refOwner(entry, field) {
  if (field.of) return field.of;
  const chars = new Set((entry.fields ?? []).filter((f) => f.type === "character").map((f) => f.name));
  const acting = (entry.senders?.player?.own ?? []).find((name) => chars.has(name));
  return acting ?? subjectField(entry)?.name ?? null;
}

/**
 * ref: the existing things of the owner character (refOwner), by name;
 * refilled when that character changes.
 */
function refNode(b, field, path, init, label) {
  // Inside a sheet (a new character's, a correction's value) a ref is where
  // the thing is defined: its id is typed, not chosen.
  if (b.defining) return textNode(b, { ...field, type: "string" }, path, init ?? field.default, label);
  const ownerName = refOwner(b.entry, field);
  const owner = () => (b.charNodes[ownerName] ? b.charNodes[ownerName].currentValue() : b.ctx.char ?? null);
  const where = b.gameEntry(field, path, true)?.refs?.[field.ref] ?? null;
  // A key with no name of its own that the game defines (a Hursagmu trait,
  // "athlete") reads in the reader's words (VIGIL.Param.<ref>.<key>); a key
  // people typed (a kit's name) is itself.
  const known = (k, text) => {
    const key = `VIGIL.Param.${field.ref}.${k}`;
    const said = text === k ? b.t(key) : text;
    return typeof said === "string" && said !== key ? said : text;
  };
  const choicesFor = (id) => refChoices(field.ref, b.ctx.state?.characters?.[id]?.sheet, where).map(([k, text]) => [k, known(k, text), k]);
  const empty = field.nullable || !field.required ? emptyLabel(b, field) : null;
  const node = selectNode(b, field, path, init, label, [], { empty });
  let fresh = null;
  if (field.ref_new) {
    // A command that may name a new one (a kit's uses): "New…" reveals a
    // text input with the field's own bounds.
    const box = el(b.doc, "div", { class: "vigil-ref-new" });
    fresh = b.within(node.labelEl.getAttribute("id"), () => textNode(b, { ...field, type: "string", required: true, nullable: false }, `${path}.new`, "", word(b.t, "newNamed", { label })));
    box.appendChild(fresh.el);
    node.el.appendChild(box);
    const sync = () => {
      if (node.control.value === NEW_VALUE) box.removeAttribute("hidden");
      else box.setAttribute("hidden", "");
    };
    node.control.addEventListener("change", sync);
    node.sync = sync;
  }
  const choose = node.read;
  node.read = (errors, p) => (fresh && node.control.value === NEW_VALUE ? fresh.read(errors, p) : choose(errors, p));
  const all = node.all;
  node.all = function* nodes() {
    yield* all.call(node);
    if (fresh) yield* fresh.all();
  };
  node.refresh = () => {
    const list = narrowed(b, path, choicesFor(owner()));
    const want = node.control.value;
    if (fresh) list.push([NEW_VALUE, word(b.t, "newEntry"), NEW_VALUE]);
    node.setChoices(list, fresh && list.length === 1 && want === "" ? NEW_VALUE : want);
    node.sync?.();
  };
  b.afterBuild.push(() => {
    node.refresh();
    b.charNodes[ownerName]?.control.addEventListener("change", node.refresh);
  });
  return node;
}

/**
 * What a field does, in the reader's language, or "": a table option's
 * description (the catalogue names its key, the language files word it), so
 * that the GM reads what an option changes where the GM sets it.
 */
function aboutText(b, field) {
  return field.description ? textFor(b.t, field.description, "") : "";
}

/** A fieldset with a legend (and what it does, if said); its children's names include the legend. */
function fieldset(b, field, path, label, cls) {
  const legendId = b.id("l");
  const set = el(b.doc, "fieldset", { class: `vigil-fieldset ${cls}`, "data-field": path, "aria-labelledby": b.named(legendId) });
  const legend = el(b.doc, "legend", { id: legendId }, label);
  set.appendChild(legend);
  const about = aboutText(b, field);
  if (about) {
    set.appendChild(el(b.doc, "p", { class: "vigil-help vigil-about", id: `${legendId}-about` }, about));
    set.setAttribute("aria-describedby", `${legendId}-about`);
  }
  return { set, legend, legendId };
}

/** An alert at the end of a fieldset, for errors of the whole (too few…). */
function groupAlert(b, node, set) {
  node.alert = el(b.doc, "span", { class: "vigil-error", role: "alert", id: b.id("e"), hidden: true });
  set.appendChild(node.alert);
}

/**
 * Read `children` ([name, node, required]) into an object: UNSET members
 * are left out, and so is an optional member equal to its baseline (the
 * default, or for per_game shapes the current value) — the server keeps it.
 */
function readMembers(children, errors, path, baseline) {
  const out = {};
  for (const { name, node } of children) {
    const p = path ? `${path}.${name}` : name;
    const v = node.read(errors, p);
    if (v === UNSET) continue;
    if (node.merge) {
      Object.assign(out, v);
      continue;
    }
    if (baseline && !node.field.required && baseline(name, node) !== undefined && sameJson(v, baseline(name, node))) continue;
    out[name] = v;
  }
  return out;
}

class GroupNode extends Node {
  constructor(field, el, label) {
    super(field, el, label);
    this.children = [];
  }

  find(parts) {
    if (parts.length === 0) return this;
    const child = this.children.find((c) => c.name === parts[0]);
    if (child) return child.node.find(parts.slice(1));
    const merged = this.children.filter((c) => c.node.merge).map((c) => c.node.find(parts)).find(Boolean);
    return merged ?? null;
  }

  *all() {
    yield this;
    for (const c of this.children) yield* c.node.all();
  }
}

/** object: a fieldset of its fields; nullable: a "Set …" checkbox enables it. */
function objectNode(b, field, path, init, label) {
  const { set, legend, legendId } = fieldset(b, field, path, label, "vigil-object");
  const node = new GroupNode(field, set, label);
  node.labelEl = legend;
  const values = init && typeof init === "object" ? init : field.default && typeof field.default === "object" ? field.default : {};
  let toggle = null;
  if (field.nullable) {
    const id = b.id();
    toggle = el(b.doc, "input", { id, type: "checkbox", name: `${path}.__set` });
    toggle.checked = init !== undefined ? init !== null : field.default !== null && field.default !== undefined;
    const toggleLabelId = `${id}-label`;
    const toggleLabel = el(b.doc, "label", { for: id, id: toggleLabelId }, word(b.t, "use", { label }));
    b.within(legendId, () => toggle.setAttribute("aria-labelledby", b.named(toggleLabelId)));
    const row = el(b.doc, "div", { class: "vigil-field vigil-field-boolean" });
    row.append(toggle, toggleLabel);
    set.appendChild(row);
  }
  const inner = el(b.doc, "div", { class: "vigil-members" });
  // Bookkeeping is not asked; an object that had some keeps it as it was.
  const kept = Object.fromEntries((field.fields ?? []).filter((f) => !askable(f) && values[f.name] !== undefined).map((f) => [f.name, values[f.name]]));
  b.within(legendId, () => {
    for (const f of (field.fields ?? []).filter(askable)) {
      const child = buildField(b, f, `${path}.${f.name}`, values[f.name]);
      node.children.push({ name: f.name, node: child });
      inner.appendChild(child.el);
    }
  });
  set.appendChild(inner);
  groupAlert(b, node, set);
  const sync = () => {
    if (toggle?.checked === false) inner.setAttribute("hidden", "");
    else inner.removeAttribute("hidden");
  };
  toggle?.addEventListener("change", sync);
  sync();
  node.read = (errors, p) => {
    if (toggle && !toggle.checked) return null;
    return { ...kept, ...readMembers(node.children, errors, p, null) };
  };
  return node;
}

/**
 * list / map: repeated rows with add and remove buttons, within the bounds
 * (min_length / max_length). A list item is labelled "<list> <n>"; a map row
 * "<map> <n>" with a key ("Name") and a value (map Fields may give `keys`,
 * a Field for the keys; else they are free text).
 */
function rowsNode(b, field, path, init, label, isMap) {
  const itemField = isMap ? field.values : field.items;
  if (!itemField) throw b.fail(path, `a ${field.type} without its ${isMap ? "values" : "items"} Field`);
  const { set, legend, legendId } = fieldset(b, field, path, label, isMap ? "vigil-map" : "vigil-list");
  const node = new GroupNode(field, set, label);
  node.labelEl = legend;
  const rowsEl = el(b.doc, "div", { class: "vigil-rows" });
  const addId = b.id("add");
  const add = el(b.doc, "button", { type: "button", id: addId, class: "vigil-add" }, word(b.t, "add"));
  b.within(legendId, () => add.setAttribute("aria-labelledby", b.named(addId)));
  set.append(rowsEl, add);
  const hint = boundsHint(b.t, field.min_length, field.max_length, "length");
  if (hint) {
    const hintEl = el(b.doc, "span", { class: "vigil-hint", id: `${addId}-hint` }, hint);
    add.setAttribute("aria-describedby", hintEl.getAttribute("id"));
    set.appendChild(hintEl);
  }
  groupAlert(b, node, set);
  const rows = [];
  const outerIds = [...b.labelIds];
  const defining = b.defining;
  let serial = 0;

  /** Number the rows and enable add/remove within the bounds. */
  const update = () => {
    rows.forEach((row, i) => {
      const text = word(b.t, "item", { label, n: i + 1 });
      row.labelEl.textContent = text;
      if (!isMap) row.value.label = text;
    });
    const n = rows.length;
    if (field.max_length !== undefined && n >= field.max_length) add.setAttribute("disabled", "");
    else add.removeAttribute("disabled");
    const atMin = field.min_length !== undefined && n <= field.min_length;
    for (const row of rows) {
      if (atMin) row.remove.setAttribute("disabled", "");
      else row.remove.removeAttribute("disabled");
    }
  };

  const addRow = (key, value) => {
    const saved = [b.labelIds, b.defining];
    b.labelIds = [...outerIds];
    b.defining = defining;
    try {
      const k = serial++;
      const rowEl = el(b.doc, "div", { class: "vigil-row" });
      const row = { el: rowEl };
      if (isMap) {
        const rowLabelId = b.id("i");
        row.labelEl = el(b.doc, "span", { class: "vigil-row-label", id: rowLabelId }, "");
        rowEl.appendChild(row.labelEl);
        b.labelIds.push(rowLabelId);
        // Keys naming characters are chosen by name; any other key (a kit's
        // name in a sheet's kits) is where the thing is defined: typed.
        const keys = field.keys ?? { type: "string", min_length: 1, max_length: 64 };
        const keyField = { ...keys, name: "key", type: keys.type === "character" ? "character" : "string", required: true, nullable: false };
        row.key = buildField(b, keyField, `${path}.${k}.key`, key, word(b.t, keyField.type === "character" ? "character" : "key"));
        row.value = buildField(b, { name: "value", ...itemField }, `${path}.${k}.value`, value, word(b.t, "value"));
        rowEl.append(row.key.el, row.value.el);
      } else {
        row.value = buildField(b, { name: "item", ...itemField }, `${path}.${k}`, value, word(b.t, "item", { label, n: rows.length + 1 }));
        row.labelEl = row.value.labelEl;
        rowEl.appendChild(row.value.el);
        b.labelIds.push(row.labelEl.getAttribute("id"));
      }
      const removeId = b.id("rm");
      row.remove = el(b.doc, "button", { type: "button", id: removeId, class: "vigil-remove" }, word(b.t, "remove"));
      row.remove.setAttribute("aria-labelledby", b.named(removeId));
      row.remove.addEventListener("click", () => {
        const i = rows.indexOf(row);
        if (i < 0 || (field.min_length !== undefined && rows.length <= field.min_length)) return;
        rows.splice(i, 1);
        rowEl.remove();
        update();
      });
      rowEl.appendChild(row.remove);
      rows.push(row);
      rowsEl.appendChild(rowEl);
      update();
      return row;
    } finally {
      [b.labelIds, b.defining] = saved;
    }
  };
  node.addRow = addRow;
  node.rows = rows;
  add.addEventListener("click", () => {
    if (field.max_length === undefined || rows.length < field.max_length) addRow(undefined, itemField.default);
  });

  const start = init !== undefined && init !== null ? init : field.default;
  if (isMap && start && typeof start === "object") for (const [k, v] of Object.entries(start)) addRow(k, v);
  else if (!isMap && Array.isArray(start)) for (const v of start) addRow(undefined, v);
  while (field.min_length !== undefined && rows.length < field.min_length) addRow(undefined, itemField.default);
  update();

  node.find = (parts) => {
    if (parts.length === 0) return node;
    const row = isMap ? rows.find((r) => String(r.key.control?.value ?? "") === parts[0]) : rows[Number(parts[0])];
    return row?.value.find(parts.slice(1)) ?? null;
  };
  node.all = function* all() {
    yield node;
    for (const r of rows) {
      if (r.key) yield* r.key.all();
      yield* r.value.all();
    }
  };
  node.read = (errors, p) => {
    const n = rows.length;
    if (field.min_length !== undefined && n < field.min_length) pushError(errors, node, p, "too_few", { min: field.min_length });
    if (field.max_length !== undefined && n > field.max_length) pushError(errors, node, p, "too_many", { max: field.max_length });
    if (n === 0 && field.nullable) return null;
    if (!isMap) {
      const out = [];
      rows.forEach((r, i) => {
        const v = r.value.read(errors, `${p}.${i}`);
        if (v !== UNSET) out.push(v);
      });
      return out;
    }
    const out = {};
    for (const r of rows) {
      const k = r.key.read(errors, p);
      if (k === UNSET || k === null) continue;
      if (Object.hasOwn(out, k)) pushError(errors, r.key, p, "duplicate_key", { key: k });
      const v = r.value.read(errors, `${p}.${k}`);
      if (v !== UNSET) out[k] = v;
    }
    return out;
  };
  return node;
}

/**
 * per_game: the game's own typed shape. "sheet" (character.create) and
 * "revive" are fieldsets of the game's sheet fields, "options" of its table
 * options; only members that differ from the baseline are sent (the
 * defaults for a new sheet; the character's current sheet for revive; the
 * table's current options). "correctable" is a path select plus a typed
 * input for the chosen path (see correctableNode).
 */
function perGameNode(b, field, path, init, label) {
  if (field.shape === "correctable") return correctableNode(b, field, path, label);
  const shapes = { sheet: "sheet", revive: "sheet", options: "options" };
  if (!shapes[field.shape]) throw b.fail(path, `unknown per_game shape "${field.shape}"`);
  const { set, legend, legendId } = fieldset(b, field, path, label, `vigil-per-game vigil-${field.shape}`);
  const node = new GroupNode(field, set, label);
  node.labelEl = legend;
  const inner = el(b.doc, "div", { class: "vigil-members" });
  set.appendChild(inner);
  groupAlert(b, node, set);
  const labelIds = [...b.labelIds, legendId];
  const current = (f) => {
    const s = b.ctx.state;
    if (field.shape === "options") return s?.options?.[f.name] ?? s?.settings?.[f.name] ?? f.default;
    if (field.shape === "revive") {
      const owner = b.charNodes[subjectField(b.entry)?.name]?.currentValue() ?? b.ctx.char;
      return s?.characters?.[owner]?.sheet?.[f.name];
    }
    return f.default;
  };
  const build = () => {
    const saved = b.labelIds;
    const wasDefining = b.defining;
    b.labelIds = [...labelIds];
    b.defining = true;
    try {
      const fields = (b.gameEntry(field, path)?.[shapes[field.shape]] ?? []).filter(askable);
      node.children = fields.map((f) => {
        // Revive sets only what the GM changes: nothing there is required.
        const sub = field.shape === "revive" ? { ...f, required: false } : f;
        const child = buildField(b, sub, `${path}.${f.name}`, current(f));
        return { name: f.name, node: child, base: current(f) };
      });
      inner.replaceChildren(...node.children.map((c) => c.node.el));
    } finally {
      b.labelIds = saved;
      b.defining = wasDefining;
    }
  };
  build();
  node.rebuild = build;
  if (field.shape === "revive") b.afterBuild.push(() => b.charNodes[subjectField(b.entry)?.name]?.control.addEventListener("change", build));
  if (field.game_from) b.afterBuild.push(() => b.gameNode?.control.addEventListener("change", build));
  node.read = (errors, p) => {
    const base = (name) => node.children.find((c) => c.name === name)?.base;
    const out = readMembers(node.children, errors, p, base);
    return out;
  };
  return node;
}

/**
 * correct: which path (the game's correctables, "*" resolved to the
 * character's existing items by name, or the table's own fields when no
 * character is chosen) and a typed input for that path's Field, rebuilt when
 * the path or the character changes. It writes both the path field ("field")
 * and the value field of the command, so it merges into the body.
 */
function correctableNode(b, field, path, label) {
  const pathName = (b.entry.fields ?? []).some((f) => f.name === "field" && f !== field) ? "field" : field.name;
  const valueName = pathName === field.name ? "value" : field.name;
  const wrap = el(b.doc, "div", { class: "vigil-correctable", "data-field": path });
  const ownerName = subjectField(b.entry)?.name;
  const ownerNow = () => b.charNodes[ownerName]?.currentValue() ?? null;
  const labelIds = [...b.labelIds];
  const pathField = { name: pathName, type: "string", required: true };
  const pathNode = selectNode(b, pathField, pathName, "", word(b.t, "path"), []);
  const keyBox = el(b.doc, "div", { class: "vigil-correct-key" });
  const valueBox = el(b.doc, "div", { class: "vigil-correct-value" });
  wrap.append(pathNode.el, keyBox, valueBox);
  const node = new GroupNode(field, wrap, label);
  node.merge = true;
  let paths = [];
  let keyNode = null;
  let valueNode = null;
  const chosen = () => paths.find((c) => c.path === pathNode.control.value) ?? null;
  const buildValue = () => {
    const c = chosen();
    keyNode = null;
    valueNode = null;
    keyBox.replaceChildren();
    valueBox.replaceChildren();
    if (c) {
      const saved = [b.labelIds, b.defining];
      b.labelIds = [...labelIds, pathNode.labelEl.getAttribute("id")];
      b.defining = true;
      try {
        if (c.newKey) {
          keyNode = buildField(b, { name: "key", type: "string", required: true, min_length: 1, max_length: 64 }, `${pathName}.__key`, "", word(b.t, "key"));
          keyBox.appendChild(keyNode.el);
        }
        const valueField = { ...c.field, name: valueName, required: true };
        valueNode = buildField(b, valueField, valueName, c.current, c.newKey ? word(b.t, "newValue") : c.label);
        valueBox.appendChild(valueNode.el);
      } finally {
        [b.labelIds, b.defining] = saved;
      }
    }
    node.children = [{ name: pathName, node: pathNode }, ...(valueNode ? [{ name: valueName, node: valueNode }] : [])];
  };
  const refresh = () => {
    paths = correctablePaths(b.gameEntry(field, path) ?? {}, b.ctx, ownerNow());
    pathNode.setChoices(paths.map((c) => [c.path, c.label, c.path]));
    buildValue();
  };
  pathNode.control.addEventListener("change", buildValue);
  for (const c of b.gameEntry(field, path, true)?.correctable ?? []) checkField(b, c.field, `${path}(${c.path})`);
  b.afterBuild.push(() => {
    refresh();
    b.charNodes[ownerName]?.control.addEventListener("change", refresh);
  });
  node.paths = () => paths;
  node.all = function* all() {
    yield pathNode;
    if (keyNode) yield* keyNode.all();
    if (valueNode) yield* valueNode.all();
  };
  node.read = (errors) => {
    const c = chosen();
    if (!c) {
      pushError(errors, pathNode, pathName, "required");
      return UNSET;
    }
    let where = c.path;
    if (c.newKey) {
      const k = keyNode.read(errors, pathName);
      if (k === UNSET) return UNSET;
      where = `${c.path.slice(0, -1)}${k}`;
    }
    const v = valueNode.read(errors, valueName);
    if (v === UNSET) return UNSET;
    return { [pathName]: where, [valueName]: v };
  };
  return node;
}

/**
 * document: a whole JSON document (a table export for table.import), read
 * from a file the person picks — never typed into a box. The file is read
 * when chosen; readForm sends the parsed object.
 */
function documentNode(b, field, path, label) {
  const id = b.id();
  const input = el(b.doc, "input", { id, name: path, type: "file", accept: "application/json,.json" });
  const parts = frame(b, field, path, input, label);
  let loaded = UNSET;
  let failed = false;
  input.addEventListener("change", async () => {
    loaded = UNSET;
    failed = false;
    const file = input.files?.[0];
    if (!file) return;
    try {
      const value = JSON.parse(await file.text());
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
      loaded = value;
    } catch {
      failed = true;
    }
  });
  const node = makeNode(field, input, parts, (errors, p) => {
    if (failed) pushError(errors, node, p, "bad_document");
    else if (loaded === UNSET && field.required) pushError(errors, node, p, "required");
    return failed ? UNSET : loaded;
  });
  /** Give the document directly (a page that got it another way, tests). */
  node.setDocument = (value) => {
    loaded = value;
    failed = false;
  };
  return node;
}

const TYPES = new Set(["integer", "number", "string", "boolean", "enum", "character", "ref", "object", "list", "map", "per_game", "document"]);

/**
 * Throw for a Field type this file has no input for, anywhere in `field`
 * (list items and map values are built only when a row is added, a
 * correction's value only when its path is chosen: the check must not wait).
 */
function checkField(b, field, path) {
  if (!TYPES.has(field?.type)) throw b.fail(path, `unknown Field type "${field?.type}" (no input for it)`);
  if (field.type === "list") checkField(b, field.items, `${path}.0`);
  if (field.type === "map") {
    checkField(b, field.values, `${path}.*`);
    if (field.keys) checkField(b, field.keys, `${path}.key`);
  }
  for (const f of field.type === "object" ? field.fields ?? [] : []) checkField(b, f, `${path}.${f.name}`);
}

/** Build the node of one Field (throws for a type this file does not know). */
function buildField(b, field, path, init, label = fieldLabel(field, b.t)) {
  checkField(b, field, path);
  if (field.time && (field.type === "integer" || field.type === "number")) return timeNode(b, field, path, init !== undefined ? init : field.default, label);
  switch (field.type) {
    case "integer":
    case "number":
    case "string":
      return textNode(b, field, path, init !== undefined ? init : field.default, label);
    case "boolean":
      return booleanNode(b, field, path, init !== undefined ? init : field.default, label);
    case "enum":
      return enumNode(b, field, path, init, label);
    case "character":
      return characterNode(b, field, path, init, label);
    case "ref":
      return refNode(b, field, path, init, label);
    case "object":
      return objectNode(b, field, path, init, label);
    case "list":
      return rowsNode(b, field, path, init, label, false);
    case "map":
      return rowsNode(b, field, path, init, label, true);
    case "per_game":
      return perGameNode(b, field, path, init, label);
    case "document":
      return documentNode(b, field, path, label);
    default:
      throw b.fail(path, `Field type "${field.type}" has no builder`);
  }
}

// ---- the API ---------------------------------------------------------------------

/**
 * Build the form of one catalogue command entry for one viewer (see the
 * file's comment for ctx). The form has data-command="<tag>", a legend with
 * the command's label, its help text (aria-describedby), one typed control
 * per visible field, an alert for form-level errors and a submit button
 * labelled with the command's label.
 * @returns {HTMLFormElement}
 */
export function buildForm(entry, ctx = {}) {
  if (!entry || typeof entry.type !== "string") throw new Error("forms: buildForm needs a catalogue command entry");
  const doc = ctx.doc ?? globalThis.document;
  if (!doc) throw new Error(`forms: command "${entry.type}": no document to build in (pass ctx.doc)`);
  formSeq += 1;
  const b = new Builder(entry, ctx, doc, ctx.idPrefix ?? `vigil-form-${formSeq}`);
  b.afterBuild = [];
  const label = commandLabel(entry, ctx.t);
  const form = el(doc, "form", { class: "vigil-form", "data-command": entry.type, novalidate: true, id: b.prefix });
  const titleId = `${b.prefix}-title`;
  const set = el(doc, "fieldset", { class: "vigil-command" });
  set.appendChild(el(doc, "legend", { id: titleId }, label));
  form.setAttribute("aria-labelledby", titleId);
  const helpText = textFor(ctx.t, entry.help, "");
  if (helpText) {
    const help = el(doc, "p", { class: "vigil-help", id: `${b.prefix}-help` }, helpText);
    set.appendChild(help);
    form.setAttribute("aria-describedby", help.getAttribute("id"));
  }
  const root = new GroupNode({ name: "", type: "object", fields: entry.fields }, set, label);
  const subject = subjectField(entry);
  b.within(titleId, () => {
    const fields = visibleFields(entry, ctx);
    const gameFrom = fields.find((f) => f.type === "per_game" && f.game_from)?.game_from;
    // The correctable widget writes the path and the value field itself.
    const claimed = new Set(fields.filter((g) => g.type === "per_game" && g.shape === "correctable").map((g) => (g.name === "field" ? "value" : "field")));
    for (const f of fields) {
      if (claimed.has(f.name)) continue;
      let init = ctx.values && Object.hasOwn(ctx.values, f.name) ? ctx.values[f.name] : f === subject && ctx.char ? ctx.char : undefined;
      // An edit starts from what the character has now (catalogue edits_current).
      const now = entry.edits_current && f !== subject ? ctx.state?.characters?.[ctx.values?.[subject?.name] ?? ctx.char]?.[f.name] : undefined;
      if (init === undefined && now !== undefined) init = now;
      const node = buildField(b, f, f.name, init);
      if (f.type === "character") b.charNodes[f.name] = node;
      if (f.name === gameFrom) b.gameNode = node;
      root.children.push({ name: f.name, node });
      set.appendChild(node.el);
    }
  });
  for (const fn of b.afterBuild) fn();
  wireDerived(root, ctx);
  const alert = el(doc, "p", { class: "vigil-error vigil-form-error", role: "alert", id: `${b.prefix}-error`, hidden: true });
  root.alert = alert;
  const submit = el(doc, "button", { type: "submit", class: "vigil-submit", id: `${b.prefix}-submit` }, label);
  if (helpText) submit.setAttribute("aria-describedby", `${b.prefix}-help`);
  set.append(alert, submit);
  form.appendChild(set);
  const defaults = (name, node) => node.field.default;
  const model = { entry, ctx, root, defaults, submit };
  root.read = (errors) => readMembers(root.children, errors, "", defaults);
  FORMS.set(form, model);
  if (typeof ctx.onSubmit === "function") {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault?.();
      const r = readForm(form);
      if (!r.body) return;
      const refused = (err) => showErrors(form, [{ field: err?.params?.field ?? null, message: ctx.errorText ? ctx.errorText(err) : String(err?.message ?? err) }]);
      try {
        Promise.resolve(ctx.onSubmit(r.body, form)).catch(refused);
      } catch (err) {
        refused(err);
      }
    });
  }
  return form;
}

/**
 * Fields made from another (catalogue `from`: a character's id from its
 * name) follow it until a person edits them; an id already taken on the
 * table gets a suffix.
 */
function wireDerived(root, ctx) {
  for (const { node } of root.children) {
    const from = node.field?.from;
    const source = from ? root.children.find((c) => c.name === from)?.node.control : null;
    if (!source || !node.control) continue;
    const taken = Object.keys(ctx.state?.characters ?? {});
    let edited = node.control.value !== "";
    node.control.addEventListener("input", () => {
      edited = node.control.value !== "";
    });
    source.addEventListener("input", () => {
      if (!edited) node.control.value = idFrom(source.value, taken, node.field.max_length ?? 64);
    });
  }
}

/** The form's model, or an Error for a form that buildForm did not make. */
function modelOf(form) {
  const model = FORMS.get(form);
  if (!model) throw new Error("forms: not a form made by buildForm");
  return model;
}

function clearErrors(model) {
  for (const n of model.root.all()) n.clearError();
}

/**
 * The command body of a built form, or its errors (also shown in the
 * form: each field's alert, aria-invalid, focus on the first). Numbers are
 * parsed, empty optional fields and fields left at their default are
 * omitted, lists, maps and objects assembled.
 * @returns {{body: object} | {errors: {field: string, code: string, message: string}[]}}
 */
export function readForm(form) {
  const model = modelOf(form);
  clearErrors(model);
  const errors = [];
  const members = model.root.read(errors);
  if (errors.length) {
    const t = model.ctx.t;
    const out = errors.map((e) => ({
      field: e.field,
      code: e.code,
      message: textFor(t, `VIGIL.FormError.${e.code}`, `{label}: ${humanize(e.code)}`, e.params),
      node: e.node,
    }));
    const shown = new Set();
    for (const e of out) {
      if (shown.has(e.node)) continue;
      shown.add(e.node);
      e.node.showError(e.message);
    }
    model.root.showError(word(t, "invalid"));
    out[0].node.control?.focus?.();
    return { errors: out.map(({ field, code, message }) => ({ field, code, message })) };
  }
  return { body: { type: model.entry.type, ...members } };
}

/**
 * Show errors in a built form, e.g. a server refusal: [{field, message}];
 * a field path the form has (such as "amount" or "sheet.mettle") marks that
 * field, anything else goes to the form's own alert.
 */
export function showErrors(form, errors) {
  const model = modelOf(form);
  clearErrors(model);
  const loose = [];
  for (const e of errors) {
    const node = e.field ? model.root.find(String(e.field).split(".")) : null;
    if (node && node !== model.root && node.alert) node.showError(e.message);
    else loose.push(e.message);
  }
  if (loose.length) model.root.showError(loose.join(" "));
}
