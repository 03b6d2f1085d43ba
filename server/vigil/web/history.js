/**
 * The history of the GM's and a player's page: the newest entries (what
 * this viewer may read), older ones on demand, a filter by character and
 * kind, each entry in game time with its sentences, dice and explanation;
 * and the last resolved DRYH roll it holds, which the roll panel keeps in
 * view once no roll is open.
 */

import { CATALOGUE } from "/client/core/catalogue.js";
import { errorSentence, eventSentence, explanation, formatGameTime, h, locale, swap, t } from "./common.js";
import { $, actorWords, charList, eventDice, fillSelect, page, say } from "./page.js";

let historyEntries = new Map();
let historyOldest = null;
let historyTimer = null;
/** The last resolved roll (from the history), kept in view after it closes. */
let lastRoll = null;

/** The newest resolved DRYH roll the history holds (null when none). */
export const lastResolvedRoll = () => lastRoll;

/**
 * A new rev means new history: refetch the newest page shortly after.
 * Throttled, not debounced, so a busy table still sees its history move.
 */
export function historyChanged() {
  if (historyTimer) return;
  historyTimer = setTimeout(() => {
    historyTimer = null;
    refreshHistory(false);
  }, 200);
}

/** The newest resolved DRYH roll of the history (null when none). */
function newestResolved(entries) {
  for (const e of entries) {
    if (e.undone) continue;
    const ev = e.events.find((x) => x.code === "roll_resolved" && x.params?.dice);
    if (ev) return { ...ev.params, protagonist: ev.params.protagonist ?? ev.char };
  }
  return null;
}

export async function refreshHistory(reset) {
  if (!page.client || page.client.status !== "connected" || page.client.role === "operator") return;
  try {
    const got = await page.client.history({ before: null, limit: 25 });
    if (reset) {
      historyEntries = new Map();
      historyOldest = null;
    }
    for (const e of got.entries) historyEntries.set(e.rev, e);
    if (historyOldest === null) historyOldest = got.next_before;
    const newest = newestResolved([...historyEntries.values()].sort((a, b) => b.rev - a.rev));
    if (JSON.stringify(newest) !== JSON.stringify(lastRoll)) {
      lastRoll = newest;
      page.redraw();
    }
    renderHistory();
  } catch (err) {
    console.warn("history refresh failed", err); // the next state change tries again
  }
}

export async function loadOlderHistory() {
  if (historyOldest === null) return;
  try {
    const got = await page.client.history({ before: historyOldest, limit: 25 });
    for (const e of got.entries) historyEntries.set(e.rev, e);
    historyOldest = got.next_before;
    renderHistory();
  } catch (err) {
    say(errorSentence(err, page.names), "error");
  }
}



/**
 * The kinds of history entry a page filters by, in words. The history
 * (history_view.py) gives each entry its kind: a command, the clock's own
 * change (timed effects that fell due, a pause for want of a GM) or an
 * undo; a GM's correction or revive is told by its event, which players
 * read too (they are not sent the command). Refusals change nothing and
 * are not in the history.
 */
const HISTORY_KINDS = () => ({
  command: [t("VIGIL.History.commands"), t("VIGIL.History.command")],
  clock: [t("VIGIL.History.clockKind"), t("VIGIL.History.clock")],
  correction: [t("VIGIL.History.corrections"), t("VIGIL.History.correction")],
  undo: [t("VIGIL.History.undo"), t("VIGIL.History.undo")],
});
const CORRECTION_EVENTS = new Set(["corrected", "revived"]);

function historyKind(entry) {
  if (entry.kind === "undo" || entry.kind === "clock") return entry.kind;
  return entry.events.some((ev) => CORRECTION_EVENTS.has(ev.code)) ? "correction" : "command";
}

/** Does `entry` concern character `char`: an event of its own, or one naming it (a helper, a healer, a roll's owner)? */
function historyMentions(entry, char) {
  const mentions = (v) => v === char || (Array.isArray(v) ? v.some(mentions) : v !== null && typeof v === "object" && Object.entries(v).some(([k, x]) => k === char || mentions(x)));
  return entry.events.some((ev) => ev.char === char || mentions(ev.params ?? null)) || mentions(entry.command?.char ?? null);
}

/** What the entry's head says it was: the command's name for the GM (who is sent it), else its kind. */
function entryLabel(entry) {
  const command = entry.command?.type ? CATALOGUE.commands[entry.command.type] : null;
  return command ? t(command.label) : HISTORY_KINDS()[historyKind(entry)][1];
}

/** The filter's controls: the kinds once, the characters of this viewer's view as they come and go. */
export function wireHistoryFilter() {
  fillSelect($("history-kind"), [["", t("VIGIL.History.everything")], ...Object.entries(HISTORY_KINDS()).map(([k, [words]]) => [k, words])]);
  for (const id of ["history-char", "history-kind"]) $(id).addEventListener("change", () => renderHistory());
  $("history-filter").addEventListener("submit", (ev) => ev.preventDefault());
}

function filteredHistory(entries) {
  if (page.client?.state) fillSelect($("history-char"), [["", t("VIGIL.History.everyone")], ...charList(page.client.state)]);
  const char = $("history-char").value;
  const kind = $("history-kind").value;
  const shown = entries.filter((e) => (!char || historyMentions(e, char)) && (!kind || historyKind(e) === kind));
  $("history-shown").textContent = char || kind ? t("VIGIL.History.shown", { shown: shown.length, loaded: entries.length }) : "";
  return shown;
}

function renderHistory() {
  const loaded = [...historyEntries.values()].sort((a, b) => b.rev - a.rev);
  const entries = filteredHistory(loaded);
  swap(
    $("history"),
    loaded.length && !entries.length ? h("li", { class: "history-none" }, t("VIGIL.History.noMatch")) : entries.map((e) =>
      h(
        "li",
        { class: `entry ${e.undone ? "undone" : ""}`, dataset: { rev: String(e.rev), kind: historyKind(e) } },
        h(
          "div",
          { class: "entry-head" },
          h("span", { class: "rev" }, `#${e.rev}`),
          // The table thinks in game time; the wall clock is a tooltip.
          h("time", { class: "game-time", datetime: new Date(e.wall * 1000).toISOString(), title: new Date(e.wall * 1000).toLocaleString(locale) }, formatGameTime(e.at)),
          h("span", { class: "actor" }, actorWords(e.actor)),
          h("span", { class: "muted entry-kind" }, entryLabel(e)),
          e.undone ? h("span", { class: "undone-tag" }, t("VIGIL.History.undone")) : null,
        ),
        h("ul", { class: "events" }, e.events.map((ev) => h("li", {}, eventSentence(ev, page.names), eventDice(ev), explanation(ev, page.client.state?.system)))),
      ),
    ),
  );
  $("history-older").hidden = historyOldest === null;
}
