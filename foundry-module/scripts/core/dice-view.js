/**
 * The one drawing of a DRYH roll's dice, for every face: the pages' roll
 * boxes, history and stream (DOM elements) and the Foundry chat card (an
 * HTML string). What is drawn comes from core/display.js (`poolRows`: the
 * pools in the book's order, each die's success and despair/hope mark);
 * how it is built is the caller's element factory `el(tag, attrs,
 * ...children)`: the pages pass their DOM builder, the chat card
 * `htmlElement` below, so the two cannot drift apart.
 *
 * Classes: `dice-pools` > `pool-row pool-<pool>` > `pool-name` + `dice` >
 * `die pool-<pool> [success] [die-added|die-struck by-<source>]`, each die
 * with its face, its pool's letter and, for a marked one, the mark in
 * words for screen readers. Colour is never the only cue: every pool has a
 * letter (docs/design.md "Foundry module").
 */

import { HELPER, POOLS, poolKey, poolLetter, poolRows } from "./display.js";

/**
 * One die. `pool` is a DRYH pool, "helpers" or "plain" (another game's
 * die); `mark` a despair/hope mark of `markedFaces` or null.
 */
export function dieView(el, t, pool, face, { success = false, mark = null } = {}) {
  const look = pool === "helpers" ? HELPER : POOLS[pool];
  const name = look ? t(pool === "helpers" ? "VIGIL.Pool.helper" : poolKey(pool)) : t("VIGIL.Die");
  const said = mark ? t(`VIGIL.Adjust.${mark.op}.${mark.source}`) : "";
  const cls = ["die", `pool-${look ? pool : "plain"}`];
  if (success) cls.push("success");
  if (mark) cls.push(`die-${mark.op}`, `by-${mark.source}`);
  return el(
    "span",
    {
      class: cls.join(" "),
      dataset: { face: String(face), ...(mark ? { mark: `${mark.op}:${mark.source}` } : {}) },
      title: said ? `${name} ${face}: ${said}` : `${name} ${face}`,
    },
    el("span", { class: "die-face" }, String(face)),
    look ? el("span", { class: "die-pool", "aria-hidden": "true" }, poolLetter(pool, t)) : null,
    mark ? el("span", { class: "sr-only" }, ` (${said})`) : null,
  );
}

/**
 * A roll's dice by pool. `dice` is {discipline, exhaustion, madness, pain,
 * helpers: {id: faces}}; `names` maps helper ids to names; `empty`: what an
 * empty pool shows ("—" on the pages; null leaves the row out, as the chat
 * card does).
 */
export function diceView(el, t, dice, { dominant = null, names = {}, adjustments = [], empty = "—" } = {}) {
  const rows = poolRows(dice, { dominant, adjustments })
    .filter((row) => !row.empty || empty !== null)
    .map((row) => {
      const word = row.helper !== undefined ? t("VIGIL.Dice.helps", { name: names[row.helper] ?? row.helper }) : t(poolKey(row.pool));
      return el(
        "div",
        { class: `pool-row pool-${row.pool}${row.dominant ? " dominant" : ""}`, dataset: { pool: row.helper !== undefined ? `helper:${row.helper}` : row.pool } },
        el(
          "span",
          { class: "pool-name" },
          el("span", { class: "pool-letter" }, poolLetter(row.helper !== undefined ? "helpers" : row.pool, t)),
          el("span", { class: "pool-word" }, word),
          row.dominant ? el("strong", { class: "dominates" }, ` ★ ${t("VIGIL.Dice.dominates")}`) : null,
        ),
        el(
          "span",
          { class: "dice" },
          row.faces.length ? row.faces.map((f) => dieView(el, t, row.pool, f.face, f)) : el("span", { class: "none" }, empty),
        ),
      );
    });
  return el("div", { class: "dice-pools" }, rows);
}

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const kebab = (s) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * An element factory that builds an HTML string (the chat card's), every
 * text and attribute escaped: `dataset` becomes data-* attributes, null and
 * false children and attributes are left out.
 */
export function htmlElement(tag, attrs = {}, ...children) {
  const parts = [];
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) parts.push(` data-${kebab(k)}="${escapeHtml(v)}"`);
    } else {
      parts.push(value === true ? ` ${key}` : ` ${key}="${escapeHtml(value)}"`);
    }
  }
  const inner = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof HtmlString ? c.html : escapeHtml(c))).join("");
  return new HtmlString(`<${tag}${parts.join("")}>${inner}</${tag}>`);
}

/** Built HTML (htmlElement's result): kept apart from text, which is escaped. */
export class HtmlString {
  constructor(html) {
    this.html = html;
  }

  toString() {
    return this.html;
  }
}
