/**
 * The small Vigil window (ApplicationV2, present in Foundry v12 and v13):
 * commands for one character, the table clock and combat for the GM, and
 * linking an unlinked token. Built with DOM calls rather than a template so
 * that nothing user-supplied is ever parsed as HTML.
 */

import { offeredFor, tableActionsFor, fieldsOf, optionsOf } from "./actions.js";
import { characterForToken } from "../overlay/model.js";
import { t } from "../settings.js";

/** A Vigil character id from a Foundry name: lowercase, [a-z0-9_-], ≤ 48. */
export function slugId(name, taken = {}) {
  const base = String(name).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\w-]+/g, "_").replace(/^_+|_+$/g, "").toLowerCase().slice(0, 40) || "character";
  let id = base;
  for (let n = 2; id in taken; n++) id = `${base}_${n}`;
  return id;
}

/** Link commands for a token: to an existing character, or a new one. */
export function linkCommand(char, tokenDoc) {
  return { type: "character.meta", char, actor_id: tokenDoc.actorId ?? null, token_id: tokenDoc.actorLink ? null : tokenDoc.id };
}

export function createCommand(state, tokenDoc, actor) {
  const name = actor?.name ?? tokenDoc.name;
  return {
    type: "character.create",
    id: slugId(name, state?.characters ?? {}),
    name: String(name).slice(0, 64),
    kind: actor?.hasPlayerOwner ? "pc" : "npc",
    actor_id: tokenDoc.actorId ?? null,
    token_id: tokenDoc.actorLink ? null : tokenDoc.id,
  };
}

function el(doc, tag, attrs = {}, text = null) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  return e;
}

/**
 * One input of an action's field, inside its label (so screen readers and
 * clicks on the text find it). `data-key` names it across re-renders.
 */
function fieldInput(doc, actionId, f, ctx) {
  const label = el(doc, "label", { class: "vigil-field" }, t(`VIGIL.Field.${f.name}`));
  const key = `${actionId}.${f.name}`;
  let input;
  if (f.kind === "select" || f.kind === "pick") {
    input = el(doc, "select", { name: f.name, "data-key": key });
    if (f.empty) input.appendChild(el(doc, "option", { value: "" }, t(f.empty)));
    const options = f.kind === "pick" ? f.choices(ctx) : optionsOf(f, ctx).map(([value, k]) => [value, t(k)]);
    for (const [value, text] of options) input.appendChild(el(doc, "option", { value }, text));
  } else if (f.kind === "check") {
    input = el(doc, "input", { type: "checkbox", name: f.name, "data-key": key });
  } else if (f.kind === "text") {
    input = el(doc, "input", { type: "text", name: f.name, "data-key": key, maxlength: String(f.maxlength ?? 64) });
  } else {
    input = el(doc, "input", { type: "number", name: f.name, "data-key": key, step: f.step ?? "1" });
    if (f.min !== undefined) input.setAttribute("min", String(f.min));
    if (f.max !== undefined) input.setAttribute("max", String(f.max));
    if (f.value !== undefined) input.setAttribute("value", String(f.value));
  }
  label.appendChild(input);
  return { f, label, input };
}

/** A field's value as the action's body expects it (null when empty). */
function readField({ f, input }) {
  if (f.kind === "check") return Boolean(input.checked);
  if (f.kind === "text") return String(input.value ?? "").trim();
  if (f.kind === "number") {
    const n = input.value === "" ? NaN : Number(input.value);
    return Number.isFinite(n) ? n : null;
  }
  return input.value || null;
}

const isRequired = (f) => f.required || (f.kind === "pick" && !f.empty);

/** Build the window's content for a token (pure DOM, testable with a fake document). */
export function buildPanel(doc, { connection, tokenDoc }) {
  const root = el(doc, "div", { class: "vigil-panel" });
  const client = connection.client;
  const state = connection.state;
  const role = client?.role;
  const charId = tokenDoc ? characterForToken(state, tokenDoc) : null;
  // Refusals are already shown, localized, by connection.send (errorText).
  const run = (body) => connection.send(body).catch(() => {});

  if (tokenDoc && !charId) {
    root.appendChild(el(doc, "p", {}, t("VIGIL.Panel.Unlinked")));
    if (role === "gm") {
      const select = el(doc, "select", { name: "link", "aria-label": t("VIGIL.Panel.LinkTo") });
      for (const [id, ch] of Object.entries(state?.characters ?? {})) select.appendChild(el(doc, "option", { value: id }, ch.name));
      const link = el(doc, "button", { type: "button", "data-action": "link" }, t("VIGIL.Panel.LinkTo"));
      link.addEventListener("click", () => select.value && run(linkCommand(select.value, tokenDoc)));
      const create = el(doc, "button", { type: "button", "data-action": "create" }, t("VIGIL.Panel.CreateFromActor"));
      create.addEventListener("click", () => run(createCommand(state, tokenDoc, tokenDoc.actor)));
      root.append(select, link, create);
    }
  }

  if (charId) {
    const ownCharacters = client?.ownCharacters ?? [];
    const ctx = { state, char: charId, role, own: ownCharacters.includes(charId) };
    const actions = offeredFor(state, charId, { role, ownCharacters });
    const amount = el(doc, "input", { type: "number", name: "amount", "data-key": "amount", value: "1", min: "0", max: "30" });
    const label = el(doc, "label", {}, t("VIGIL.Panel.Amount"));
    label.appendChild(amount);
    if (actions.some((a) => a.amount)) root.appendChild(label);
    const box = el(doc, "div", { class: "vigil-actions" });
    for (const a of actions) {
      const text = t(`VIGIL.Action.${a.id}`);
      const b = el(doc, "button", { type: "button", "data-action": a.id }, text);
      const inputs = fieldsOf(a, ctx).map((f) => fieldInput(doc, a.id, f, ctx));
      b.addEventListener("click", () => {
        const values = {};
        for (const i of inputs) {
          values[i.f.name] = readField(i);
          const missing = isRequired(i.f) && (values[i.f.name] === null || values[i.f.name] === "");
          i.input.setAttribute("aria-invalid", String(missing));
          if (missing) {
            globalThis.ui?.notifications?.warn(t("VIGIL.Panel.Missing", { field: t(`VIGIL.Field.${i.f.name}`) }));
            i.input.focus?.();
            return;
          }
        }
        run(a.body(charId, Math.max(0, Number(amount.value) || 0), values, ctx));
      });
      if (!inputs.length) {
        box.appendChild(b);
        continue;
      }
      const form = el(doc, "div", { class: "vigil-form", role: "group", "aria-label": text, "data-form": a.id });
      for (const i of inputs) form.appendChild(i.label);
      form.appendChild(b);
      box.appendChild(form);
    }
    root.appendChild(box);
  }

  if (role === "gm") {
    const box = el(doc, "div", { class: "vigil-actions vigil-table" });
    box.appendChild(el(doc, "h4", {}, `${t("VIGIL.Panel.Clock")} / ${t("VIGIL.Panel.Combat")}`));
    let heading = false;
    for (const a of tableActionsFor(state?.system)) {
      if (a.system && !heading) {
        box.appendChild(el(doc, "h4", {}, t("VIGIL.Panel.Table")));
        heading = true;
      }
      const b = el(doc, "button", { type: "button", "data-action": a.id }, t(`VIGIL.Action.${a.id}`));
      b.addEventListener("click", () => run(a.body()));
      box.appendChild(b);
    }
    root.appendChild(box);
  }
  return root;
}

/**
 * Keep what the user typed or picked when the window is rebuilt for a new
 * state (which happens on every patch). Returns the input in `to` that
 * stands for `active` (to be focused once `to` is in the document).
 */
export function carryInputs(from, to, active = globalThis.document?.activeElement) {
  const fresh = new Map([...to.querySelectorAll("[data-key]")].map((i) => [i.getAttribute("data-key"), i]));
  let focus = null;
  for (const old of from.querySelectorAll("[data-key]")) {
    const input = fresh.get(old.getAttribute("data-key"));
    if (!input || input.tagName !== old.tagName) continue;
    if (old === active) focus = input;
    if (input.tagName === "SELECT" && ![...input.querySelectorAll("option")].some((o) => o.getAttribute("value") === old.value)) continue;
    input.value = old.value;
    if (old.type === "checkbox") input.checked = old.checked;
  }
  return focus;
}

/** The window class, created lazily because ApplicationV2 exists only inside Foundry. */
let PanelClass = null;
export function panelClass() {
  if (PanelClass) return PanelClass;
  const { ApplicationV2 } = globalThis.foundry.applications.api;
  PanelClass = class VigilPanel extends ApplicationV2 {
    static DEFAULT_OPTIONS = {
      id: "vigil-panel",
      classes: ["vigil"],
      window: { title: "VIGIL.Panel.TitleTable", resizable: true },
      position: { width: 320, height: "auto" },
    };

    constructor({ connection, tokenDoc = null, ...options } = {}) {
      super(options);
      this.connection = connection;
      this.tokenDoc = tokenDoc;
      // One window for the whole session (openPanel), so one listener: it
      // re-renders only while the window is shown.
      this._onState = () => { if (this.rendered) this.render().catch?.((err) => console.warn("vigil | window render", err)); };
      connection.addEventListener("state", this._onState);
    }

    get title() {
      const charId = this.tokenDoc ? characterForToken(this.connection.state, this.tokenDoc) : null;
      const name = charId ? this.connection.state.characters[charId].name : null;
      return name ? t("VIGIL.Panel.Title", { name }) : t("VIGIL.Panel.TitleTable");
    }

    async _renderHTML() {
      return buildPanel(globalThis.document, { connection: this.connection, tokenDoc: this.tokenDoc });
    }

    _replaceHTML(result, content) {
      const focus = carryInputs(content, result);
      content.replaceChildren(result);
      focus?.focus();
    }

  };
  return PanelClass;
}

/** The one window of this session: opening it again (from another token's
 * HUD) shows that token in the same window rather than making a copy of an
 * ApplicationV2 with the same fixed id. */
let current = null;
export function openPanel(connection, tokenDoc = null) {
  const Panel = panelClass();
  if (!current || current.connection !== connection) current = new Panel({ connection, tokenDoc });
  else current.tokenDoc = tokenDoc;
  Promise.resolve(current.render({ force: true })).catch((err) => console.warn("vigil | cannot open the window", err));
  return current;
}

/** Forget the window (tests; a new connection). */
export function resetPanel() {
  current = null;
  PanelClass = null;
}
