/**
 * The small Vigil window (ApplicationV2, present in Foundry v12 and v13):
 * commands for one character, the table clock and combat for the GM, and
 * linking an unlinked token. Built with DOM calls rather than a template so
 * that nothing user-supplied is ever parsed as HTML.
 */

import { actionsFor, TABLE_ACTIONS } from "./actions.js";
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

/** Build the window's content for a token (pure DOM, testable with a fake document). */
export function buildPanel(doc, { connection, tokenDoc }) {
  const root = el(doc, "div", { class: "vigil-panel" });
  const client = connection.client;
  const state = connection.state;
  const role = client?.role;
  const charId = tokenDoc ? characterForToken(state, tokenDoc) : null;
  const run = (body) => connection.send(body).catch(() => {});

  if (tokenDoc && !charId) {
    root.appendChild(el(doc, "p", {}, t("VIGIL.Panel.Unlinked")));
    if (role === "gm") {
      const select = el(doc, "select", { name: "link" });
      for (const [id, ch] of Object.entries(state?.characters ?? {})) select.appendChild(el(doc, "option", { value: id }, ch.name));
      const link = el(doc, "button", { type: "button", "data-action": "link" }, t("VIGIL.Panel.LinkTo"));
      link.addEventListener("click", () => select.value && run(linkCommand(select.value, tokenDoc)));
      const create = el(doc, "button", { type: "button", "data-action": "create" }, t("VIGIL.Panel.CreateFromActor"));
      create.addEventListener("click", () => run(createCommand(state, tokenDoc, tokenDoc.actor)));
      root.append(select, link, create);
    }
  }

  if (charId) {
    const own = (client?.ownCharacters ?? []).includes(charId);
    const actions = actionsFor(state.system, { role, own });
    const amount = el(doc, "input", { type: "number", name: "amount", value: "1", min: "0", max: "30" });
    const label = el(doc, "label", {}, t("VIGIL.Panel.Amount"));
    label.appendChild(amount);
    if (actions.some((a) => a.amount)) root.appendChild(label);
    const box = el(doc, "div", { class: "vigil-actions" });
    for (const a of actions) {
      const b = el(doc, "button", { type: "button", "data-action": a.id }, t(`VIGIL.Action.${a.id}`));
      b.addEventListener("click", () => run(a.body(charId, Math.max(0, Number(amount.value) || 0))));
      box.appendChild(b);
    }
    root.appendChild(box);
  }

  if (role === "gm") {
    const box = el(doc, "div", { class: "vigil-actions vigil-table" });
    box.appendChild(el(doc, "h4", {}, `${t("VIGIL.Panel.Clock")} / ${t("VIGIL.Panel.Combat")}`));
    for (const a of TABLE_ACTIONS) {
      const b = el(doc, "button", { type: "button", "data-action": a.id }, t(`VIGIL.Action.${a.id}`));
      b.addEventListener("click", () => run(a.body()));
      box.appendChild(b);
    }
    root.appendChild(box);
  }
  return root;
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
      this._onState = () => this.rendered && this.render();
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
      content.replaceChildren(result);
    }

    async close(options) {
      this.connection.removeEventListener("state", this._onState);
      return super.close(options);
    }
  };
  return PanelClass;
}

export function openPanel(connection, tokenDoc = null) {
  const Panel = panelClass();
  const app = new Panel({ connection, tokenDoc });
  app.render({ force: true });
  return app;
}
