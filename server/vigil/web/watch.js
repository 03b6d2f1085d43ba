/**
 * The spectator page: a read-only, live view of a table's public state,
 * usable as an OBS browser source.
 *
 * Layouts (fragment `layout=…` or query `?overlay=1&compact=1`):
 *   full (default) · compact · overlay (transparent, large type) · overlay-compact.
 *
 * It draws only what the server sent to this spectator connection (the
 * public view), has no controls, and leaves reconnecting and resuming to
 * the client core; the connection state is a small corner marker that only
 * speaks up when the page is not live. The client is `window.vigil`.
 */

import { VigilClient } from "/client/core/client.js";
import { STATUS_WORDS, errorSentence, formatGameTime, h, loadCatalogue, swap, takeToken, wsUrl } from "./common.js";
import { badge, characterCard, countdown, diceByPool, phaseTrack, reading, tick } from "./render.js";

const TOKEN_KEY = "vigil.watch.token";
const $ = (id) => document.getElementById(id);

let client = null;
let lastRoll = null; // the newest resolved roll from the public history (DRYH)
let historyTimer = null;

function layoutOf(params, query) {
  let layout = params.get("layout") ?? query.get("layout") ?? "full";
  if (query.get("overlay") === "1" && !layout.startsWith("overlay")) layout = layout === "compact" ? "overlay-compact" : "overlay";
  if (query.get("compact") === "1" && !layout.endsWith("compact")) layout = layout === "overlay" ? "overlay-compact" : "compact";
  return {
    overlay: layout.startsWith("overlay"),
    compact: layout.endsWith("compact"),
  };
}

function showStatus(status) {
  const box = $("watch-conn");
  box.dataset.status = status;
  $("watch-conn-text").textContent = STATUS_WORDS[status] ?? status;
}

function names(state) {
  return Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
}

/** A one-line character for the compact layouts: name, badges, countdowns. */
function characterRow(id, ch) {
  return h(
    "div",
    { class: `row-char ${ch.badges?.length ? `has-${ch.badges[0]}` : ""}`, dataset: { char: id } },
    h("span", { class: "row-name" }, ch.name),
    h("span", { class: "badges" }, (ch.badges ?? []).map(badge)),
    (ch.countdowns ?? []).map(countdown),
  );
}

function rollView(state, char, roll) {
  const who = names(state);
  return h(
    "section",
    { class: `roll phase-${roll.phase}`, dataset: { roll: char, phase: roll.phase } },
    h("header", { class: "roll-head" }, h("h2", {}, `${who[char] ?? char}'s roll`), phaseTrack(roll.phase)),
    roll.helpers?.length ? h("p", { class: "muted" }, `Helped by ${roll.helpers.map((x) => who[x] ?? x).join(", ")}`) : null,
    diceByPool(roll.dice, roll.dominant, who),
    reading(roll),
  );
}

function render() {
  const state = client?.state;
  if (!state) return;
  document.title = `${state.name} — Vigil`;
  $("watch-title").textContent = state.name;
  const c = state.clock;
  $("watch-combat").textContent = c.in_combat ? `⚔ Round ${c.round}` : "";
  const dryh = state.system === "dryh";
  $("watch-coins").hidden = !dryh;
  if (dryh) {
    $("watch-hope").textContent = String(state.game.hope ?? 0);
    $("watch-despair").textContent = String(state.game.despair ?? 0);
    const rolls = Object.entries(state.game.rolls ?? {}).map(([char, roll]) => rollView(state, char, roll));
    if (!rolls.length && lastRoll) {
      rolls.push(
        h(
          "section",
          { class: "roll last-roll", dataset: { roll: lastRoll.protagonist, phase: "done" } },
          h("header", { class: "roll-head" }, h("h2", {}, `Last roll: ${names(state)[lastRoll.protagonist] ?? lastRoll.protagonist}`)),
          diceByPool(lastRoll.dice, lastRoll.dominant, names(state)),
          reading(lastRoll),
        ),
      );
    }
    swap($("watch-rolls"), rolls);
  }
  const compact = document.body.classList.contains("compact");
  const chars = Object.entries(state.characters).map(([id, ch]) => (compact ? characterRow(id, ch) : characterCard(state.system, id, ch)));
  swap($("watch-characters"), chars);
  tick(document.body, client.gameNow());
  document.body.dataset.rev = String(client.rev); // drawn up to this rev (tests wait on it)
}

/** The newest resolved roll in the public history, so viewers still see it after it closes. */
async function refreshLastRoll() {
  if (client?.state?.system !== "dryh" || client.status !== "connected") return;
  try {
    const page = await client.history({ before: null, limit: 20 });
    for (const entry of page.entries) {
      if (entry.undone) continue;
      const ev = entry.events.find((e) => e.code === "roll_resolved" && e.params?.dice);
      if (ev) {
        lastRoll = { ...ev.params, protagonist: ev.params.protagonist ?? ev.char };
        break;
      }
    }
    render();
  } catch {
    /* the next state change tries again */
  }
}

async function main() {
  await loadCatalogue();
  const { token, params, query } = takeToken(TOKEN_KEY);
  const layout = layoutOf(params, query);
  document.body.classList.toggle("overlay", layout.overlay);
  document.body.classList.toggle("compact", layout.compact);
  if (!token) {
    $("watch-problem").hidden = false;
    $("watch-problem").textContent = "This view needs a spectator link from the GM (it carries the access token).";
    showStatus("idle");
    return;
  }
  client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-web" });
  window.vigil = client;
  client.addEventListener("status", (ev) => showStatus(ev.detail.status));
  client.addEventListener("state", () => {
    requestAnimationFrame(render);
    if (!historyTimer) {
      // Throttled (not debounced) so that a busy table still updates it.
      historyTimer = setTimeout(() => {
        historyTimer = null;
        refreshLastRoll();
      }, 300);
    }
  });
  client.addEventListener("refused", (ev) => {
    // A revoked link shows nothing of the table any more (issue 13, item 13).
    $("watch-characters").replaceChildren();
    $("watch-rolls").replaceChildren();
    $("watch-coins").hidden = true;
    $("watch-problem").hidden = false;
    $("watch-problem").textContent = errorSentence(ev.detail);
  });
  client.connect();
  setInterval(() => {
    if (!client.state) return;
    const now = client.gameNow();
    const text = formatGameTime(now);
    if ($("watch-now").textContent !== text) $("watch-now").textContent = text;
    tick(document.body, now);
  }, 250);
}

main();
