/**
 * The GM's and a player's forms: the "Act on" panel for the selected
 * character and (GM) the table's commands, each built from the command
 * catalogue by the client core's form builder and offered as
 * core/offers.js says (the moves the server's view says are legal now),
 * kept across renders so that a half-filled form survives a patch.
 */

import { CATALOGUE } from "/client/core/catalogue.js";
import { maySend } from "/client/core/fields.js";
import { buildForm } from "/client/core/forms.js";
import { characterOffers, commandsOf, waitsOn } from "/client/core/offers.js";
import { errorSentence, eventSentence, explanation, h, localize, swap, t } from "./common.js";
import { $, download, eventDice, page } from "./page.js";

/**
 * Commands this page sends through its own controls rather than a built
 * form (the clock bar, the cards, the DRYH roll panel, the invites, the
 * operator's page). Every other command of the catalogue for the table's
 * game gets a form, so nothing the server offers is out of reach; the
 * controls of these carry data-command too (tests check the union).
 */
const BESPOKE = new Set([
  "clock.pause", "clock.run", "clock.set", "combat.start", "combat.next_round", "combat.end", "undo",
  "token.mint", "token.list", "token.revoke", "character.remove",
  "dryh.open", "dryh.declare", "dryh.help", "dryh.roll", "dryh.cancel", "dryh.despair_spend", "dryh.hope_improve", "dryh.resolve", "dryh.choose",
  "table.create", "table.import", "table.list", "table.delete",
]);

/** What waits on character `char` for its player's answer (core/offers.js
 * waitsOn), in words from lang/en.json VIGIL.Wait.<field> (or ""). */
function waitingSentence(state, char) {
  const ch = state.characters[char];
  return waitsOn(CATALOGUE, state, char)
    .map((w) => t(`VIGIL.Wait.${w.field}`, { name: ch.name, value: ch.sheet[w.field] }))
    .join(" ");
}

/** Built forms by slot ("act:<tag>", "table:<tag>"), kept across renders. */
export const slots = new Map();

/** The catalogue commands of this table's game (its own and the generic
 * ones) in the catalogue's order of play, less those only a Foundry page.client
 * can fill (Foundry's world time). */
function tableCommands(system) {
  return commandsOf(CATALOGUE, system).filter((e) => !e.foundry_only);
}

/** May this page's viewer send `entry` (the catalogue's senders)? */
function mayUse(entry) {
  return maySend(entry, { role: page.client.role, own: page.client.ownCharacters ?? [] });
}

export function formCtx(state, extra = {}) {
  return {
    catalogue: CATALOGUE,
    game: state.system,
    state,
    role: page.client.role,
    own: page.client.ownCharacters ?? [],
    t: localize,
    errorText: (err) => errorSentence(err, page.names),
    onSubmit: (body, form) => submitForm(body, form),
    ...extra,
  };
}

/**
 * Send a built form's body; on the ack, the outcome is drawn by the form
 * (the history entry of that revision: sentences and dice), so a check's
 * pass or fail, TN and dice are read where the button was pressed. A
 * refusal is shown in the form's own alert (by the form builder).
 */
async function submitForm(body, sent) {
  delete sent.dataset.dirty;
  const ack = await page.client.send(body);
  // The patch may have rebuilt the form meanwhile: draw into the one shown.
  const form = slots.get(sent.dataset.slot)?.form ?? sent;
  form.dataset.result = "ack";
  form.dataset.actedFor = $("act-char").value;
  if (body.type === "table.export") download(ack.result, `vigil-${page.client.tableId ?? "table"}.json`);
  const out = form.querySelector(".form-result") ?? form.appendChild(h("div", { class: "form-result", role: "status", "aria-live": "polite" }));
  let lines = [h("p", { class: "muted" }, t("VIGIL.Page.done"))];
  if (ack.rev !== null && ack.rev !== undefined) {
    try {
      const got = await page.client.history({ before: ack.rev + 1, limit: 1 });
      const entry = got.entries.find((e) => e.rev === ack.rev);
      if (entry) lines = entry.events.map((ev) => h("p", { class: `result-line code-${ev.code}`, dataset: { code: ev.code } }, eventSentence(ev, page.names), eventDice(ev), explanation(ev, page.client.state?.system)));
    } catch {
      /* the history shows it anyway */
    }
  }
  swap(slots.get(sent.dataset.slot)?.form.querySelector(".form-result") ?? out, lines);
  return ack;
}

/**
 * Place one built form per tag into `container`, reusing the form already
 * there while neither its identity (the character it acts on, the
 * characters' page.names) nor the data it shows changed. A form the person has
 * typed into is rebuilt only when its identity changes, so an unrelated
 * patch never wipes a half-filled form.
 */
function placeForms(container, prefix, entries, identity, data, extraFor = () => ({})) {
  const state = page.client.state;
  const wanted = [];
  for (const entry of entries) {
    const slot = `${prefix}:${entry.type}`;
    const id = `${identity}|${JSON.stringify(extraFor(entry))}`;
    const have = slots.get(slot);
    let form = have?.form;
    if (!have || have.identity !== id || (have.data !== data && !have.form.dataset.dirty)) {
      form = buildForm(entry, formCtx(state, extraFor(entry)));
      form.classList.add("action");
      form.dataset.slot = slot;
      // An answered form stays answered, for the character it acted on (see answered).
      for (const key of ["result", "actedFor"]) if (have?.form.dataset[key]) form.dataset[key] = have.form.dataset[key];
      form.addEventListener("input", () => {
        form.dataset.dirty = "1";
      });
      const result = have?.form.querySelector(".form-result");
      if (result) form.append(result);
      slots.set(slot, { form, identity: id, data });
    }
    wanted.push(form);
  }
  const same = wanted.length === container.children.length && wanted.every((f, i) => container.children[i] === f);
  if (!same) container.replaceChildren(...wanted);
}

/** This page's viewer, as core/offers.js takes it. */
const viewer = () => ({ role: page.client.role, own: page.client.ownCharacters ?? [] });

let offersMemo = { key: null, byChar: new Map() };
/**
 * What this viewer may send now for character `char` (core/offers.js
 * characterOffers: the same offers as the Foundry window, with the state's
 * legal moves, pending choices and waits), memoized per drawn rev and the
 * rev of the legal moves drawn with it (they come after the state: the
 * client asks for them once the table is quiet).
 */
function offersFor(state, char) {
  const key = `${page.client.rev}/${page.client.legalRev}`;
  if (offersMemo.key !== key) offersMemo = { key, byChar: new Map() };
  if (!offersMemo.byChar.has(char)) offersMemo.byChar.set(char, char && state.characters[char] ? characterOffers(CATALOGUE, state, char, viewer()) : []);
  return offersMemo.byChar.get(char);
}

/** The offer of command `tag` for character `char`, or null. */
export const offerFor = (state, char, tag) => offersFor(state, char).find((o) => o.entry.type === tag) ?? null;

/**
 * The "Act on" forms for character `selected`: what core/offers.js offers
 * this viewer now (as in the Foundry window: the moves the server's view
 * says are legal, prefilled and narrowed by them), what waits on the
 * character first. A player's answered form stays (see answered).
 */
function actingForms(state, selected) {
  const offers = new Map(offersFor(state, selected).map((o) => [o.entry.type, o]));
  const waiting = waitsOn(CATALOGUE, state, selected);
  const answers = (e) => waiting.some((w) => w.answers.includes(e.type));
  const acting = tableCommands(state.system)
    .filter((e) => e.scope === "character" && !BESPOKE.has(e.type) && mayUse(e))
    .filter((e) => offers.has(e.type) || answered(e, selected));
  acting.sort((a, b) => Number(answers(b)) - Number(answers(a)));
  const ctxFor = (entry) => {
    const offer = offers.get(entry.type);
    if (!offer) return { char: selected };
    return { ...(offer.char ? { char: offer.char } : {}), values: offer.values, choices: offer.choices };
  };
  // An answered form whose offer is gone stays in view with its button off.
  const live = (e) => offers.has(e.type);
  return { entries: acting.map((e) => offers.get(e.type)?.entry ?? e), ctxFor, live };
}

/**
 * A form just sent keeps its place, its button off, with the outcome under
 * it, when the move it made is no longer legal (a fall taken, a helper now
 * busy): the outcome should not vanish with the form. Until another
 * character is picked or the form is offered again.
 */
function answered(entry, selected) {
  const form = slots.get(`act:${entry.type}`)?.form;
  return Boolean(form?.isConnected && form.dataset.result === "ack" && form.dataset.actedFor === selected);
}

/** The forms of the "Act on" panel and (GM) the table panel. */
export function renderForms(state, selected) {
  const commands = tableCommands(state.system).filter((e) => !BESPOKE.has(e.type) && mayUse(e));
  const sheet = state.characters[selected] ?? null;
  const waiting = waitingSentence(state, selected);
  $("act-waiting").hidden = !waiting;
  $("act-waiting").textContent = waiting;
  // Manual dice adds fields to the rolling forms (core/forms.js visibleFields): a new shape, a new form.
  const identity = JSON.stringify([selected, Object.keys(state.characters).map((id) => [id, state.characters[id].name]), Boolean(state.options?.manual_dice)]);
  const { entries, ctxFor, live } = actingForms(state, selected);
  placeForms($("action-forms"), "act", entries, identity, JSON.stringify(sheet), ctxFor);
  for (const e of entries) slots.get(`act:${e.type}`).form.querySelector("button[type=submit]").disabled = !live(e);
  if (page.client.role !== "gm") return;
  const data = JSON.stringify([state.options, state.settings, Object.values(state.characters).map((c) => c.sheet)]);
  const legalNow = (e) => !e.legal || state.legal?.table?.[e.type] !== undefined;
  placeForms($("table-forms"), "table", commands.filter((e) => e.scope !== "character" && legalNow(e)), identity, data, () => ({}));
  $("manual-dice-note").hidden = !state.options?.manual_dice;
}
