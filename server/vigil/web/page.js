/**
 * What every face of the dashboard page shares (operator, GM, player,
 * spectator): the page's connection and names (`page`), notices that
 * fade, sending a command with its refusal in words, and the small
 * controls the faces all use (a confirmation that stays armed until
 * answered, a link with Open and Copy, a select kept in place).
 */

import { errorSentence, h, t } from "./common.js";
import { diceByPool, die } from "./render.js";

/**
 * The page's live parts, set as the connection goes: its client
 * (VigilClient, `window.vigil`), its token (the /verify page it opens
 * reads what it may), the characters' names by id, and how to draw the
 * table again (the table face sets it).
 */
export const page = { client: null, token: null, names: {}, redraw: () => {} };

export const $ = (id) => document.getElementById(id);

const ROLES = ["gm", "player", "spectator", "operator", "server"];
/** Who acted ("<label>#<token id>", or the label alone): the label of the
 * link used (a name a GM typed), or, for a link the server labelled by its
 * role (the GM's "gm") and for the server's own changes (the clock's),
 * that role's word. */
export function actorWords(actor) {
  const label = String(actor ?? "").split("#")[0] || "server";
  return ROLES.includes(label) ? t(`VIGIL.Page.role.${label}`) : label;
}

/** Show a sentence in the corner (vigil.css .messages: clicks pass through
 * to what lies under it); it fades and goes when dismissed or after 6 s
 * (errors) / 4 s. */
export function say(text, tone = "info") {
  const box = $("messages");
  const note = h(
    "div",
    { class: `message tone-${tone}`, role: tone === "error" ? "alert" : "status" },
    h("span", {}, text),
    h("button", { type: "button", class: "btn small", "aria-label": t("VIGIL.Page.dismissNotice"), onclick: () => note.remove() }, "×"),
  );
  box.append(note);
  while (box.children.length > 4) box.firstElementChild.remove();
  const stay = tone === "error" ? 6000 : 4000;
  setTimeout(() => note.classList.add("fading"), stay - 1000);
  setTimeout(() => note.remove(), stay);
}

/** Send a command; a refusal becomes a readable sentence. Resolves to the ack or null. */
export async function run(body, opts = {}) {
  try {
    return await page.client.send(body, opts);
  } catch (err) {
    say(errorSentence(err, page.names), "error");
    return null;
  }
}

/** Save a JSON document as a file download. */
export function download(document_, filename) {
  const blob = new Blob([JSON.stringify(document_, null, 2)], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/**
 * A button that asks once more before it acts (no modal dialog: works by
 * keyboard). Once armed it stays armed until answered: pressed again it
 * acts; "Keep" (or Escape) puts it back. It never re-arms silently, so a
 * leaked link is revoked in two clicks, not three.
 */
export function confirmButton(label, text, action, key = null, command = null) {
  const button = h("button", { type: "button", class: "btn small tone-danger", "aria-label": label, dataset: { ...(key ? { key } : {}), ...(command ? { command } : {}) } }, text);
  const keep = h("button", { type: "button", class: "btn small", hidden: true }, t("VIGIL.Page.keep"));
  let armed = false;
  const disarm = () => {
    armed = false;
    button.textContent = text;
    button.classList.remove("armed");
    keep.hidden = true;
  };
  button.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      button.textContent = t("VIGIL.Page.sure");
      button.classList.add("armed");
      keep.hidden = false;
      return;
    }
    disarm();
    action();
  });
  button.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") disarm();
  });
  keep.addEventListener("click", disarm);
  return h("span", { class: "confirm" }, button, keep);
}

/**
 * Put a link into a visible, selectable field with Open and Copy buttons.
 * With `keep`, each minted link stays (newest first) until dismissed, so a
 * second mint never replaces a link not yet copied; else it replaces what
 * the container showed.
 */
export function showLink(container, url, caption, { keep = false } = {}) {
  const field = h("input", { type: "text", readonly: true, value: url, class: "link-field", "aria-label": caption, onfocus: (ev) => ev.target.select() });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = h("button", {
    type: "button",
    class: "btn small",
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        copied.textContent = t("VIGIL.Page.copied");
      } catch {
        field.select();
        copied.textContent = t("VIGIL.Page.copyByHand");
      }
    },
  }, t("VIGIL.Page.copy"));
  const open = h("a", { class: "btn small", href: url, target: "_blank", rel: "noopener" }, t("VIGIL.Page.open"));
  const box = h("div", { class: "link-out" }, h("div", { class: "caption" }, caption), h("div", { class: "link-row" }, field, open, copy, copied));
  if (keep) {
    box.append(h("button", { type: "button", class: "btn small dismiss", "aria-label": t("VIGIL.Page.dismiss"), onclick: () => box.remove() }, "×"));
    container.prepend(box);
  } else {
    container.replaceChildren(box);
  }
}

export function fillSelect(select, pairs) {
  const current = select.value;
  const same = select.options.length === pairs.length && pairs.every(([v, l], i) => select.options[i].value === v && select.options[i].text === l);
  if (!same) {
    select.replaceChildren(...pairs.map(([value, label]) => h("option", { value }, label)));
    if (pairs.some(([v]) => v === current)) select.value = current;
  }
}

export function charList(state) {
  return Object.entries(state.characters).map(([id, ch]) => [id, ch.name]);
}

/** Dice faces carried by an event: DRYH pools, or plain faces of other games. */
export function eventDice(ev) {
  const p = ev.params ?? {};
  if (p.dice && typeof p.dice === "object") return diceByPool(p.dice, p.dominant, page.names, p.adjustments);
  if (Array.isArray(p.faces)) {
    // DRYH coin spends name their pool (hope always improves discipline); other games' dice are plain.
    const pool = p.pool ?? (ev.code === "hope_improved" ? "discipline" : "plain");
    return h("span", { class: "dice small" }, p.faces.map((f) => die(page.client.state?.system, pool, f)));
  }
  return null;
}
