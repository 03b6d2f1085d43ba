/**
 * The spectator page: a read-only, live view of a table's public state,
 * usable as an OBS browser source.
 *
 * Layouts, chosen in the URL fragment (`#token=…&layout=lower-third`; the
 * token leaves the address bar, the rest stays) or the query:
 *   full (default)   the whole table: coins, rolls, a card per character
 *   compact          one line per character
 *   overlay          full on a transparent background (OBS), large type
 *   overlay-compact  compact on a transparent background
 *   lower-third      a transparent band along the bottom: the current roll
 *                    and a chip per character with its key numbers
 *   corner           a transparent card in a corner (`corner=top-right`,
 *                    top-left, bottom-left, bottom-right)
 *   character        one character's name plate (`char=<id>`; without it,
 *                    the first character)
 *   roll             the current roll alone (DRYH: the open roll, pool by
 *                    pool; the other games: the newest check's dice)
 * Other parameters: `char=<id>,<id>` keeps only those characters (any
 * layout); `cycle=<seconds>` pages through the characters that do not fit
 * instead of ending with "+N more". The query forms `?overlay=1` and
 * `?compact=1` of earlier versions still work. The page follows changes to
 * the fragment without a reload (a stream deck can switch layouts).
 *
 * Whatever the layout, the page never scrolls: characters are drawn in
 * order until the next one would not fit, and the rest are counted in a
 * "+N more" marker (or paged through with `cycle`). At widths of 1600 px
 * and more, and in every transparent layout, no text is below 24 px.
 *
 * It draws only what the server sent to this spectator connection (the
 * public view), has no controls, and leaves reconnecting and resuming to
 * the client core; the connection state is a small corner marker that only
 * speaks up when the page is not live. The client is `window.vigil`.
 */

import { VigilClient } from "/client/core/client.js";
import { badgeKey, badgeLetter, badgeLook, badgeShortKey, counterKey, counters, newestOutcome, rattleMeter } from "/client/core/display.js";
import {
  diceFingerprint,
  errorSentence,
  eventSentence,
  explanation,
  followNewLinks,
  forgetToken,
  formatGameTime,
  h,
  keepToken,
  languageAsked,
  loadCatalogue,
  statusWords,
  swap,
  t,
  takeToken,
  verifyUrl,
  wsUrl,
} from "./common.js";
import { characterCard, conditionsOf, countdown, countdownsOf, die, diceByPool, phaseTrack, reading, tick } from "./render.js";

const TOKEN_KEY = "vigil.watch.token";
const $ = (id) => document.getElementById(id);

/** Every layout, with how it draws a character and whether it is transparent. */
const LAYOUTS = Object.freeze({
  full: { draw: "card", overlay: false },
  compact: { draw: "row", overlay: false },
  overlay: { draw: "card", overlay: true },
  "overlay-compact": { draw: "row", overlay: true },
  "lower-third": { draw: "chip", overlay: true },
  corner: { draw: "row", overlay: true },
  character: { draw: "plate", overlay: true },
  roll: { draw: null, overlay: true },
});
const CORNERS = ["top-right", "top-left", "bottom-left", "bottom-right"];
/** How long one pool of a DRYH roll waits for the one before it (seconds). */
const POOL_REVEAL_S = 0.7;

let client = null;
let token = null;
let lastRoll = null; // the newest resolved roll or check from the public history
let historyTimer = null;
let view = readView();
/** The "+N more" marker, kept after the characters (outside what a redraw replaces). */
const more = h("div", { id: "watch-more", class: "watch-more", role: "note", hidden: true });
let pageStart = 0; // the first character shown when paging (`cycle`)
let cycleTimer = null;
const firstSeen = new Map(); // roll dice signature -> performance.now() when first drawn

/** The layout and its parameters from the fragment and the query. */
function readView() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const query = new URLSearchParams(location.search);
  const get = (key) => params.get(key) ?? query.get(key);
  let layout = get("layout") ?? "full";
  if (query.get("overlay") === "1" && !layout.startsWith("overlay")) layout = layout === "compact" ? "overlay-compact" : "overlay";
  if (query.get("compact") === "1" && !layout.endsWith("compact")) layout = layout === "overlay" ? "overlay-compact" : "compact";
  if (!(layout in LAYOUTS)) layout = "full";
  const chars = (get("char") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const cycle = Number(get("cycle") ?? 0);
  const corner = CORNERS.includes(get("corner")) ? get("corner") : "top-right";
  return { layout, ...LAYOUTS[layout], chars, cycle: Number.isFinite(cycle) && cycle > 0 ? cycle : 0, corner };
}

function applyView() {
  const body = document.body;
  for (const name of Object.keys(LAYOUTS)) body.classList.toggle(`layout-${name}`, view.layout === name);
  for (const c of CORNERS) body.classList.toggle(`corner-${c}`, view.layout === "corner" && view.corner === c);
  body.classList.toggle("overlay", view.overlay);
  body.classList.toggle("compact", view.draw === "row");
  body.dataset.layout = view.layout;
  bigType();
  clearInterval(cycleTimer);
  cycleTimer = null;
  pageStart = 0;
  if (view.cycle) cycleTimer = setInterval(nextPage, view.cycle * 1000);
}

/** Large type (every text ≥ 24 px) on wide screens and in every overlay. */
function bigType() {
  document.body.classList.toggle("big", view.overlay || window.innerWidth >= 1600);
}

function showStatus(status) {
  const box = $("watch-conn");
  box.dataset.status = status;
  $("watch-conn-text").textContent = statusWords(status);
}

function names(state) {
  return Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
}

/** A badge with its short word (never a letter alone): the compact layouts' badge. */
function shortBadge(name) {
  const b = badgeLook(name);
  return h(
    "span",
    { class: `badge tone-${b.tone}`, title: t(badgeKey(name)), dataset: { badge: name } },
    h("span", { class: `shape shape-${b.shape}`, "aria-hidden": "true" }, h("span", { class: "letter" }, badgeLetter(name, t))),
    h("span", { class: "badge-label" }, t(badgeShortKey(name))),
  );
}

/**
 * A character's key numbers in words, for the compact layouts: the game's
 * counters (core/display.js), Pain & Mettle's rattle falling with the clock,
 * DRYH's fight/flight responses checked. Nothing when the sheet is withheld.
 */
function keyNumbers(system, ch) {
  if (!ch.sheet) return null;
  const items = counters(system, ch.sheet).map((c) => keyNumber(c.key, c.value));
  const rattle = rattleMeter(system, ch);
  if (rattle) {
    const el = keyNumber("rattle", rattle.value);
    const zero = ch.derived?.rattle_zero_at;
    if (zero !== null && zero !== undefined) el.dataset.zeroAt = String(zero);
    items.push(el);
  }
  if (system === "mettle") items[0]?.querySelector(".key-value").append(` / ${ch.sheet.mettle}`);
  return items.length ? h("span", { class: "key-numbers" }, items) : null;
}

function keyNumber(key, value) {
  return h(
    "span",
    { class: "key-number", dataset: { stat: key } },
    h("span", { class: "key-word" }, t(counterKey(key))),
    " ",
    h("span", { class: "stat-value key-value" }, String(value)),
  );
}

/** The conditions that matter, short (a row or a chip): "Poisoned" with the poison's name as its title. */
function shortConditions(system, ch) {
  return conditionsOf(system, ch).map((c) => h(
    "span",
    { class: `condition condition-${c.key}`, title: t(`VIGIL.Condition.${c.key}`, { names: c.names.join(", ") }), dataset: { condition: c.key } },
    t(`VIGIL.ConditionShort.${c.key}`),
  ));
}

/** One line per character (compact, overlay-compact, corner). */
function characterRow(system, id, ch) {
  return h(
    "div",
    { class: `row-char ${ch.badges?.length ? `has-${ch.badges[0]}` : ""}`, dataset: { char: id } },
    h("span", { class: "row-name" }, ch.name),
    keyNumbers(system, ch),
    h("span", { class: "badges" }, (ch.badges ?? []).map(shortBadge), shortConditions(system, ch)),
    countdownsOf(system, ch).map(countdown),
  );
}

/** A character chip for the lower third: name, key numbers, badges, countdowns. */
function characterChip(system, id, ch) {
  return h(
    "div",
    { class: `chip ${ch.badges?.length ? `has-${ch.badges[0]}` : ""}`, dataset: { char: id } },
    h("span", { class: "chip-name" }, ch.name),
    keyNumbers(system, ch),
    ch.badges?.length || conditionsOf(system, ch).length ? h("span", { class: "badges" }, (ch.badges ?? []).map(shortBadge), shortConditions(system, ch)) : null,
    countdownsOf(system, ch).map(countdown),
  );
}

/** One character's name plate: the full card in large type. */
function characterPlate(system, id, ch) {
  const card = characterCard(system, id, ch);
  card.classList.add("plate");
  return card;
}

const DRAW = { card: characterCard, row: characterRow, chip: characterChip, plate: characterPlate };

/**
 * A DRYH roll's pools, revealed one by one the first time its dice are
 * drawn (a pre/roll/post reveal as OBS overlays do it). A redraw in the
 * middle of the reveal continues it (negative delays), it never restarts.
 */
function revealed(pools, signature) {
  if (!pools) return pools;
  const now = performance.now();
  if (!firstSeen.has(signature)) firstSeen.set(signature, now);
  const elapsed = (now - firstSeen.get(signature)) / 1000;
  const rows = [...pools.querySelectorAll(".pool-row")];
  if (elapsed > rows.length * POOL_REVEAL_S + 1) return pools;
  rows.forEach((row, i) => {
    row.classList.add("reveal");
    row.style.animationDelay = `${i * POOL_REVEAL_S - elapsed}s`;
  });
  return pools;
}

/**
 * The dice fingerprint beside a roll, in the layouts that show a roll
 * without the page's header (which carries it in the others).
 */
function rollProof(state) {
  return view.layout === "roll" || view.layout === "lower-third" ? diceFingerprint(state) : null;
}

function rollView(state, char, roll) {
  const who = names(state);
  const pools = roll.dice ? revealed(diceByPool(roll.dice, roll.dominant, who, roll.adjustments), `${char}|${JSON.stringify(roll.dice)}`) : null;
  return h(
    "section",
    { class: `roll phase-${roll.phase}`, dataset: { roll: char, phase: roll.phase } },
    h("header", { class: "roll-head" }, h("h2", {}, t("VIGIL.Watch.roll", { name: who[char] ?? char })), phaseTrack(roll.phase), rollProof(state)),
    roll.helpers?.length ? h("p", { class: "muted" }, t("VIGIL.Watch.helpedBy", { names: roll.helpers.map((x) => who[x] ?? x).join(", ") })) : null,
    pools,
    reading(roll),
    explanation({ params: { explain: roll.explain } }, "dryh"),
  );
}

/** The newest resolved roll or check, after it closed: viewers still see it. */
function lastRollView(state) {
  if (!lastRoll) return null;
  const who = names(state);
  if (lastRoll.kind === "dryh") {
    const roll = lastRoll.params;
    return h(
      "section",
      { class: "roll last-roll", dataset: { roll: roll.protagonist, phase: "done" } },
      h("header", { class: "roll-head" }, h("h2", {}, t("VIGIL.Watch.lastRoll", { name: who[roll.protagonist] ?? roll.protagonist })), rollProof(state)),
      revealed(diceByPool(roll.dice, roll.dominant, who, roll.adjustments), `${roll.protagonist}|${JSON.stringify(roll.dice)}`),
      reading(roll),
      explanation({ params: { explain: roll.explain } }, "dryh"),
    );
  }
  const ev = lastRoll.event;
  const faces = Array.isArray(ev.params?.faces) ? ev.params.faces : [];
  return h(
    "section",
    { class: "roll last-roll check", dataset: { roll: ev.char ?? "", phase: "done" } },
    // Whose roll it is, as a DRYH roll's head says it; the sentence and its explanation below.
    ev.char ? h("header", { class: "roll-head" }, h("h2", {}, t("VIGIL.Watch.lastRoll", { name: who[ev.char] ?? ev.char }))) : null,
    faces.length ? h("span", { class: "dice" }, faces.map((f) => die(state.system, "plain", f))) : null,
    h("p", { class: "reading" }, eventSentence(ev, who)),
    explanation(ev, client.state?.system),
    rollProof(state),
  );
}

/** The rolls to draw: DRYH's open rolls (or the last one), else the newest check. */
function rollsOf(state) {
  const rolls = Object.entries(state.game?.rolls ?? {})
    .filter(([char]) => !view.chars.length || view.chars.includes(char))
    .map(([char, roll]) => rollView(state, char, roll));
  if (!rolls.length) {
    const last = lastRollView(state);
    if (last) rolls.push(last);
  }
  return view.layout === "roll" || view.layout === "lower-third" ? rolls.slice(0, 1) : rolls;
}

/** The characters this layout shows, in the table's order. */
function shownCharacters(state) {
  const all = Object.entries(state.characters);
  if (view.chars.length) return all.filter(([id]) => view.chars.includes(id));
  if (view.layout === "character") return all.slice(0, 1);
  return all;
}

function render() {
  const state = client?.state;
  if (!state) return;
  document.title = `${state.name} — Vigil`;
  $("watch-title").textContent = state.name;
  const c = state.clock;
  $("watch-combat").textContent = c.in_combat ? t("VIGIL.Watch.round", { round: c.round }) : "";
  const proof = diceFingerprint(state);
  swap($("watch-dice"), proof ? [h("a", { href: verifyUrl(token), target: "_blank", rel: "noopener" }, proof)] : []);
  const dryh = state.system === "dryh";
  const coins = dryh && view.layout !== "roll" && view.layout !== "character";
  $("watch-coins").hidden = !coins;
  if (dryh) {
    $("watch-hope").textContent = String(state.game.hope ?? 0);
    $("watch-despair").textContent = String(state.game.despair ?? 0);
  }
  swap($("watch-rolls"), view.layout === "character" || view.layout === "corner" ? [] : rollsOf(state));
  // A roll on screen shares the band with the characters (watch.css: the lower third's chips get smaller).
  $("watch-frame").classList.toggle("has-roll", $("watch-rolls").childElementCount > 0);
  tighten($("watch-rolls"));
  const draw = view.draw ? DRAW[view.draw] : null;
  const shown = draw ? shownCharacters(state) : [];
  const box = $("watch-characters");
  swap(box, shown.map(([id, ch]) => draw(state.system, id, ch)));
  if (view.layout === "character" && !shown.length) {
    box.append(h("p", { class: "watch-note" }, t("VIGIL.Watch.noCharacter", { id: view.chars.join(", ") })));
  }
  box.append(more);
  tick(document.body, client.gameNow());
  fit(box, more);
  document.body.dataset.rev = String(client.rev); // drawn up to this rev (tests wait on it)
}

/**
 * Show characters from `pageStart` on while they fit in their box and the
 * screen; count the rest in the "+N more" marker (or, with `cycle`, say
 * which of them this page shows). Measured after drawing, so it holds for
 * any names, any number of badges and any screen.
 */
function fit(box, more) {
  const items = [...box.children].filter((el) => el.dataset.char);
  more.hidden = true;
  delete box.dataset.shownTo;
  // Only a screen that is watched, not read, is fitted; a phone scrolls.
  if (!items.length || !document.body.classList.contains("big")) return;
  if (pageStart >= items.length) pageStart = 0;
  items.forEach((el, i) => {
    el.hidden = i < pageStart;
  });
  const fits = (el) => {
    const r = el.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    const inside = (lo, x, hi) => x >= lo - 0.5 && x <= hi + 0.5;
    return (
      inside(Math.max(b.top, 0), r.top, Math.min(b.bottom, window.innerHeight)) &&
      inside(Math.max(b.top, 0), r.bottom, Math.min(b.bottom, window.innerHeight)) &&
      inside(Math.max(b.left, 0), r.left, Math.min(b.right, window.innerWidth)) &&
      inside(Math.max(b.left, 0), r.right, Math.min(b.right, window.innerWidth))
    );
  };
  let last = items.length;
  for (let i = pageStart; i < items.length; i += 1) {
    if (!fits(items[i])) {
      last = i;
      break;
    }
  }
  for (let i = last; i < items.length; i += 1) items[i].hidden = true;
  if (last === items.length && pageStart === 0) return;
  more.hidden = false;
  // The marker takes room too: give it the place of the last shown ones until it fits.
  for (;;) {
    more.textContent = view.cycle
      ? t("VIGIL.Watch.page", { from: pageStart + 1, to: last, total: items.length })
      : t("VIGIL.Watch.more", { n: items.length - last + pageStart });
    if (fits(more) || last <= pageStart + 1) break;
    last -= 1;
    items[last].hidden = true;
  }
  box.dataset.shownTo = String(last);
}

/**
 * A roll taller than its place (the lower third, a short screen) drops its
 * words for the pools' letters, the phase track and the helpers line,
 * rather than being cut off.
 */
function tighten(rolls) {
  if (!document.body.classList.contains("big")) return;
  for (const roll of rolls.querySelectorAll(".roll")) {
    if (rolls.scrollHeight > rolls.clientHeight + 1 || roll.scrollWidth > roll.clientWidth + 1) roll.classList.add("tight");
  }
}

/** With `cycle`: the next page starts at the first character not shown. */
function nextPage() {
  const box = $("watch-characters");
  const to = Number(box.dataset.shownTo ?? 0);
  const total = [...box.children].filter((el) => el.dataset.char).length;
  pageStart = to && to < total ? to : 0;
  render();
}

/** The newest resolved roll (DRYH) or check (the others) in the public history (core/display.js newestOutcome). */
async function refreshLastRoll() {
  if (!client?.state || client.status !== "connected") return;
  try {
    const page = await client.history({ before: null, limit: 50 });
    // The newest, also when one change holds several (the clock firing three poison doses).
    const newest = newestOutcome(page.entries);
    lastRoll = null;
    if (newest?.kind === "dryh") {
      const ev = newest.event;
      lastRoll = { kind: "dryh", params: { ...ev.params, protagonist: ev.params.protagonist ?? ev.char } };
    } else if (newest) {
      lastRoll = { kind: "check", event: newest.event };
    }
    render();
  } catch {
    /* the next state change tries again */
  }
}

async function main() {
  await loadCatalogue();
  const asked = languageAsked(); // the language the link asked for when the words were loaded
  followNewLinks();
  ({ token } = takeToken(TOKEN_KEY));
  view = readView();
  applyView();
  window.addEventListener("hashchange", () => {
    // Another language (a stream deck switching `lang=`): the words load anew.
    if (languageAsked() !== asked) return location.reload();
    view = readView();
    applyView();
    render();
  });
  window.addEventListener("resize", () => {
    bigType();
    render();
  });
  if (!token) {
    $("watch-problem").hidden = false;
    $("watch-problem").textContent = t("VIGIL.Watch.needsLink");
    showStatus("idle");
    return;
  }
  client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-web" });
  window.vigil = client;
  client.addEventListener("status", (ev) => showStatus(ev.detail.status));
  client.addEventListener("welcome", (ev) => keepToken(TOKEN_KEY, token, ev.detail.role));
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
    forgetToken(TOKEN_KEY);
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
    tick(document.body, now); // countdowns and falling rattle, cards and key numbers alike
  }, 250);
}

main();
