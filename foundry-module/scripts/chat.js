/**
 * Roll results in Foundry chat. The active GM's client posts one card per
 * DRYH roll when the server's state shows it rolled, and shows the server's
 * faces with Dice So Nice when that module is active (game.dice3d). The
 * dice are never re-rolled in Foundry: the server's faces are the truth.
 */

import { getSetting, t } from "./settings.js";
import { hasGmDuties } from "./sessions.js";
import { POOL_ORDER, POOLS, poolKey } from "./core/display.js";
import { diceView, htmlElement } from "./core/dice-view.js";
import { explain } from "./core/explain.js";
import { escapeHtml as esc } from "./notify.js";

/**
 * Dice So Nice colour sets, one per DRYH pool, in the pool's own colours
 * (core/display.js POOLS): in DRYH the pool IS the colour. Dice So Nice has
 * no "red" or "blue" set and draws an unknown name as its "custom" set, so
 * the module registers its own when Dice So Nice is ready
 * (`Hooks.once("diceSoNiceReady", (dice3d) => dice3d.addColorset({...}))`,
 * the API of Dice So Nice's README, used the same way in other modules' open
 * code, e.g. rwanoux/SRD-Heros-et-Dragons modules/diceH&D.js).
 */
export const dsnColorsetName = (pool) => `vigil-${pool}`;
const hex = (n) => `#${n.toString(16).padStart(6, "0")}`;
export function dsnColorsets(t) {
  return POOL_ORDER.map((pool) => ({
    name: dsnColorsetName(pool),
    description: t(poolKey(pool)),
    category: "Vigil",
    foreground: hex(POOLS[pool].text),
    background: hex(POOLS[pool].fill),
    outline: hex(POOLS[pool].stroke),
    edge: hex(POOLS[pool].stroke),
    texture: "none",
  }));
}

/** Register the pools' colour sets with Dice So Nice (when it is active). */
export function installDiceColors(Hooks = globalThis.Hooks) {
  Hooks.once("diceSoNiceReady", (dice3d) => {
    for (const set of dsnColorsets(t)) {
      Promise.resolve(dice3d?.addColorset?.(set)).catch((err) => console.warn("vigil | Dice So Nice colour set", err));
    }
  });
}

/** Rolls that became "rolled" since `seen` (char → roll key). Pure. */
export function newlyRolled(state, seen) {
  const out = [];
  for (const [char, roll] of Object.entries(state?.game?.rolls ?? {})) {
    if (!roll?.dice || roll.phase !== "rolled") continue;
    const key = `${roll.opened_at ?? 0}|${JSON.stringify(roll.dice)}`;
    if (seen.get(char) === key) continue;
    seen.set(char, key);
    if (state.characters?.[char]?.visibility === "hidden") continue; // chat is public
    out.push({ char, roll });
  }
  return out;
}

/** The http(s) address of the Vigil server a ws(s) URL names, for links to its rules reference. */
export function serverBase(wsUrl) {
  try {
    const u = new URL(String(wsUrl));
    return `${u.protocol === "wss:" ? "https:" : "http:"}//${u.host}`;
  } catch {
    return null;
  }
}

/** The roll's explanation (core/explain.js: the view's `explain`), one paragraph per reason, the rule linked. */
function explanationHtml(roll, base) {
  if (!roll.explain) return "";
  return explain({ params: { explain: roll.explain } }, { t, game: "dryh", base: base ?? "", lang: globalThis.game?.i18n?.lang })
    .map((l) => {
      const link = base && l.href ? ` <a href="${esc(l.href)}" target="_blank" rel="noopener">${esc(t("VIGIL.Explain.rule", { rule: l.rule }))}</a>` : "";
      return `<p class="vigil-explain">${esc(l.text)}${link}</p>`;
    })
    .join("");
}

/**
 * The card of a roll. `dice` is the table's dice period as the view gives
 * it: the card shows its fingerprint, so that players can later check that
 * the seed a reveal shows is the one committed before this roll
 * (docs/dice.md). `base` is the Vigil server's http(s) address: the
 * explanation links the rule on its rules reference.
 */
export function rollCardHtml(name, roll, { dice = null, base = null, names = {} } = {}) {
  // The pages' dice drawing (core/dice-view.js) as HTML: pools, helpers,
  // success marks and the coins' added or struck dice alike; empty pools left out.
  const pools = String(diceView(htmlElement, t, roll.dice, { dominant: roll.dominant, names, adjustments: roll.adjustments, empty: null }));
  const outcome = roll.success === null || roll.success === undefined ? "" : t(roll.success ? "VIGIL.Chat.Success" : "VIGIL.Chat.Failure");
  const summary = roll.successes === null || roll.successes === undefined ? "" : `<p>${esc(t("VIGIL.Chat.Successes", { n: roll.successes, outcome }))}</p>`;
  const dom = roll.dominant ? `<p>${esc(t("VIGIL.Chat.Dominates", { pool: t(poolKey(roll.dominant)) }))}</p>` : "";
  const proof = dice ? `<p class="vigil-proof" title="${esc(t("VIGIL.Dice.fingerprintTitle", dice))}">${esc(t("VIGIL.Dice.fingerprint", dice))}</p>` : "";
  return `<div class="vigil-card"><h3>${esc(t("VIGIL.Chat.RollTitle", { name }))}</h3>${pools}${summary}${dom}${explanationHtml(roll, base)}${proof}</div>`;
}

export function dsnData(roll) {
  const dice = [];
  for (const p of POOL_ORDER) {
    for (const f of roll.dice[p] ?? []) dice.push({ result: f, resultLabel: f, type: "d6", vectors: [], options: { colorset: dsnColorsetName(p) } });
  }
  return { throws: [{ dice }] };
}

export function installChat(connection, election) {
  const seen = new Map();
  let primed = false;
  connection.addEventListener("state", (e) => {
    const fresh = newlyRolled(e.detail.state, seen);
    // The first snapshot only records what is already on the table.
    if (!primed) { primed = true; return; }
    if (!hasGmDuties(globalThis.game, election) || !getSetting("chatCards")) return;
    for (const { char, roll } of fresh) {
      const name = e.detail.state.characters?.[char]?.name ?? char;
      const game = globalThis.game;
      const names = Object.fromEntries(Object.entries(e.detail.state.characters ?? {}).map(([id, ch]) => [id, ch.name]));
      const card = rollCardHtml(name, roll, { dice: e.detail.state.dice, base: serverBase(getSetting("serverUrl")), names });
      const post = () => Promise.resolve(globalThis.ChatMessage.create({ content: card, speaker: { alias: name } }))
        .catch((err) => console.warn("vigil | could not post the roll card", err));
      if (game.dice3d?.show) {
        // Dice So Nice may reject (no WebGL, a colorset it lacks): the card is posted all the same.
        new Promise((resolve) => resolve(game.dice3d.show(dsnData(roll), game.user, true)))
          .catch((err) => console.warn("vigil | Dice So Nice could not show the roll", err))
          .then(post);
      } else {
        post();
      }
    }
  });
}
