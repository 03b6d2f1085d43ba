/**
 * The small Vigil window (ApplicationV2, present in Foundry v12 and v13):
 * for one character, every command of the command catalogue this user may
 * send for it now, each as the typed form of the shared form builder
 * (core/forms.js), chosen by core/offers.js (the catalogue's senders, and
 * what the state allows: an open roll to join, a pending choice with the
 * legal moves the server lists); for the GM, the table's commands too; and
 * linking an unlinked token. Built with DOM calls rather than a template so
 * that nothing user-supplied is ever parsed as HTML.
 */

import { CATALOGUE } from "../core/catalogue.js";
import { buildForm } from "../core/forms.js";
import { characterOffers, tableOffers } from "../core/offers.js";
import { characterForToken } from "../overlay/model.js";
import { errorText, namesOf } from "../connection.js";
import { t, tOrNull } from "../settings.js";

/**
 * Table commands the window leaves to other places: tokens are minted and
 * revoked by the module's token delivery (token-delivery.js); a character
 * is created from a token's actor below; exporting (a download) and
 * rotating the key belong to the dashboard, next to the table's links.
 */
export const ELSEWHERE = ["token.mint", "token.list", "token.revoke", "character.create", "table.export", "table.rotate_key"];

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

/** The form of one offer, its ids stable across re-renders (carryInputs);
 * `scope` tells apart the same command offered for several characters. */
function offerForm(doc, connection, offer, scope = "") {
  const client = connection.client;
  return buildForm(offer.entry, {
    catalogue: CATALOGUE,
    game: connection.state?.system,
    state: connection.state,
    role: client?.role,
    own: client?.ownCharacters ?? [],
    char: offer.char,
    values: offer.values,
    choices: offer.choices,
    t: (key, params) => tOrNull(key, params),
    doc,
    idPrefix: `vigil-panel-${scope}${offer.entry.type.replace(/\W+/g, "-")}`,
    // A refusal is shown in the form (and as a notification by connection.send).
    onSubmit: (body) => connection.send(body),
    errorText: (err) => errorText(err, namesOf(connection.state)),
  });
}

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

  const viewer = { role, own: client?.ownCharacters ?? [] };
  if (charId) {
    // The character's name inside the window too, not only in its title:
    // the forms act on this character.
    root.appendChild(el(doc, "h3", { class: "vigil-who" }, state.characters[charId].name));
    const box = el(doc, "section", { class: "vigil-actions", "aria-label": state.characters[charId].name });
    for (const offer of characterOffers(CATALOGUE, state, charId, viewer)) box.appendChild(offerForm(doc, connection, offer));
    root.appendChild(box);
  }

  // DRYH-09: any player may spend hope on another protagonist's roll. Foundry
  // opens the Token HUD only for a token's owners and GMs
  // (foundryvtt/foundryvtt#12440), so a player never reaches another's token
  // from it: the window opened from the player's own token lists the other
  // characters' rolls it may act on, by name.
  if (role !== "gm" && charId && viewer.own.includes(charId)) {
    const others = Object.keys(state.characters ?? {})
      .filter((id) => !viewer.own.includes(id))
      .map((id) => [id, characterOffers(CATALOGUE, state, id, viewer)])
      .filter(([, offers]) => offers.length);
    if (others.length) {
      const box = el(doc, "section", { class: "vigil-actions vigil-others", "aria-label": t("VIGIL.Panel.OtherRolls") });
      box.appendChild(el(doc, "h4", {}, t("VIGIL.Panel.OtherRolls")));
      for (const [id, offers] of others) {
        box.appendChild(el(doc, "h5", { class: "vigil-who" }, state.characters[id].name));
        for (const offer of offers) box.appendChild(offerForm(doc, connection, offer, `${id}-`));
      }
      root.appendChild(box);
    }
  }

  if (role === "gm") {
    const box = el(doc, "section", { class: "vigil-actions vigil-table", "aria-label": t("VIGIL.Panel.Table") });
    box.appendChild(el(doc, "h4", {}, t("VIGIL.Panel.Table")));
    const values = { "clock.follow": { world_time: globalThis.game?.time?.worldTime ?? 0 } };
    for (const offer of tableOffers(CATALOGUE, state, viewer, { skip: ELSEWHERE, values })) box.appendChild(offerForm(doc, connection, offer));
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
  const controls = (root) => ["input", "select"].flatMap((tag) => [...root.querySelectorAll(`${tag}[id]`)]);
  const fresh = new Map(controls(to).map((i) => [i.getAttribute("id"), i]));
  let focus = null;
  for (const old of controls(from)) {
    const input = fresh.get(old.getAttribute("id"));
    if (!input || input.tagName !== old.tagName) continue;
    if (old === active) focus = input;
    if (input.tagName === "SELECT" && ![...input.querySelectorAll("option")].some((o) => o.getAttribute("value") === old.value)) continue;
    input.value = old.value;
    if (old.type === "checkbox") input.checked = old.checked;
  }
  return focus;
}

/** What a built window shows, to tell whether a new state changes it. */
const signature = (node) => node?.outerHTML ?? null;

/** Whether a select inside `root` has focus (its list may be open): a
 * re-render would close it under the user's hand. */
function holdsOpenList(root, doc = globalThis.document) {
  const active = doc?.activeElement;
  if (!active || active.tagName !== "SELECT") return false;
  for (let n = active; n; n = n.parentNode) if (n === root) return true;
  return false;
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
      this._next = null; // content built for a state, not shown yet
      this._shown = null; // the markup of what is shown
      this._pending = false; // a change held back while a list is open
      // One window for the whole session (openPanel), so one listener: it
      // re-renders only while the window is shown.
      this._onState = () => { if (this.rendered) this.refresh(); };
      connection.addEventListener("state", this._onState);
      // The moves it offers come after the state (core/client.js followLegal).
      connection.addEventListener("legal", this._onState);
    }

    get title() {
      const charId = this.tokenDoc ? characterForToken(this.connection.state, this.tokenDoc) : null;
      const name = charId ? this.connection.state.characters[charId].name : null;
      return name ? t("VIGIL.Panel.Title", { name }) : t("VIGIL.Panel.TitleTable");
    }

    /** Show this window (again), its frame's title naming the character
     * shown: ApplicationV2 draws the title when the frame is made and
     * changes it later only when a render asks (`{window: {title}}`). */
    show(force = false) {
      return this.render({ force, window: { title: this.title } });
    }

    /**
     * After a patch: re-render only when what the window shows changed (a
     * patch elsewhere leaves it alone), and never under the user's hand —
     * while a list of the window is open (a select has focus), the change
     * waits until it closes.
     */
    refresh() {
      const next = this._build();
      if (signature(next) === this._shown) return;
      this._next = next;
      if (this._content && holdsOpenList(this._content)) {
        this._pending = true;
        return;
      }
      this.show().catch?.((err) => console.warn("vigil | window render", err));
    }

    _build() {
      return buildPanel(globalThis.document, { connection: this.connection, tokenDoc: this.tokenDoc });
    }

    async _renderHTML() {
      const result = this._next ?? this._build();
      this._next = null;
      this._shown = signature(result);
      return result;
    }

    _replaceHTML(result, content) {
      const focus = carryInputs(content, result);
      content.replaceChildren(result);
      focus?.focus();
      if (this._content !== content) {
        this._content = content;
        // A held-back change is shown once the open list closes.
        content.addEventListener?.("focusout", () => {
          if (!this._pending) return;
          this._pending = false;
          setTimeout(() => this.refresh(), 0);
        });
      }
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
  current._next = null;
  Promise.resolve(current.show(true)).catch((err) => console.warn("vigil | cannot open the window", err));
  return current;
}

/** Forget the window (tests; a new connection). */
export function resetPanel() {
  current = null;
  PanelClass = null;
}
