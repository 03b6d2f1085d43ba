/**
 * The module in every language it ships (module.json `languages`): with
 * Foundry's core language set to en, de, fr or ru (the fake game.i18n loads
 * that file, English as its fallback, as Foundry's Localization does), the
 * overlays, the Token HUD button, the Vigil window, the chat card and the
 * notifications are filled in that language — no `{…}` left, no key shown,
 * no key borrowed from English — with its plural forms and its numbers.
 */
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, tOrNull, t } from "../scripts/settings.js";
import { rollCardHtml } from "../scripts/chat.js";
import { installHud } from "../scripts/controls/hud.js";
import { buildPanel } from "../scripts/controls/panel.js";
import { VigilConnection, errorText } from "../scripts/connection.js";
import { drawOverlay } from "../scripts/overlay/draw.js";
import { overlayModel } from "../scripts/overlay/model.js";
import { PIXI } from "./fakes/pixi.mjs";
import { FakeHooks, FakeUser, FakeNotifications, fakeGame, install, tokenHudHtml, uninstall } from "./fakes/foundry.mjs";
import { i18nFor, languageFile } from "./fakes/languages.mjs";
import { FakeDocument } from "./fakes/dom.mjs";

const module = JSON.parse(readFileSync(new URL("../module.json", import.meta.url)));
const LANGUAGES = module.languages.map((l) => l.lang);
const english = languageFile("en");
afterEach(() => uninstall());

const gm = new FakeUser({ id: "gm1", name: "Gamemaster", isGM: true });
const alice = new FakeUser({ id: "u-alice", name: "Alice" });

/** A GM's browser whose Foundry is set to `language`. */
function browser(language) {
  const env = {
    Hooks: new FakeHooks(),
    game: fakeGame({ user: gm, users: [gm, alice], activeGM: gm, i18n: i18nFor(language) }),
    ui: { notifications: new FakeNotifications() },
    CONFIG: {},
  };
  install(env);
  registerSettings();
  return env;
}

const mettle = () => ({
  table: "demo", system: "mettle",
  clock: { mode: "paused", rate: 1, game: 100, wall: 0, in_combat: false, round: 0 },
  characters: {
    brannoc: {
      name: "Brannoc", kind: "pc", visibility: "full", actor_id: "actB", token_id: null, badges: ["dying"],
      countdowns: [{ kind: "dying", until: 100 + 2 * 86400 + 5, since: 0 }],
      sheet: { mettle: 5, pain: 7, rattle: 2, injuries: [{ id: 1 }], status: "dying" }, derived: { rattle: 2, status: "dying" },
    },
  },
  game: {},
  legal: { table: { "combat.start": 1 }, chars: { brannoc: { "mettle.pain": 1, "mettle.rattle": 1, "mettle.injury_add": 1 } } },
});

const dryhRoll = {
  phase: "rolled", opened_at: 5, dice: { discipline: [1, 2, 5], exhaustion: [3], madness: [6], pain: [2], helpers: {} },
  successes: 4, success: true, dominant: "madness",
  explain: { from_dice: 4, talent: "none", talent_adds: 0, successes: 4, degree: 1, success: true, dominance: { pool: "madness", strength: 6, rival: "pain", rival_strength: 2, by: "strength" } },
};

/** Every text a PIXI container draws. */
const textsOf = (node) => [...(node instanceof PIXI.Text ? [node.text] : []), ...(node.children ?? []).flatMap(textsOf)];

/** What must never reach a reader, in any language. */
function assertWorded(language, texts, where) {
  for (const text of texts) {
    assert.doesNotMatch(text, /\{[A-Za-z0-9_.]+\}/, `${language} ${where}: a placeholder left in ${JSON.stringify(text)}`);
    assert.doesNotMatch(text, /VIGIL\.[A-Z]/, `${language} ${where}: a key shown in ${JSON.stringify(text)}`);
  }
  assert.deepEqual([...game.i18n.served], [], `${language} ${where}: keys borrowed from English`);
}

for (const language of LANGUAGES) {
  test(`${language}: the module reads Foundry's language (game.i18n.lang) and its file has every English key`, () => {
    browser(language);
    assert.equal(game.i18n.lang, language);
    assert.deepEqual(Object.keys(english).filter((k) => !game.i18n.has(k, false) && !/\.(one|other|none)$/.test(k)), []);
  });

  test(`${language}: overlays say the countdown, successes and dominance in the language`, () => {
    browser(language);
    const tr = (k, p) => tOrNull(k, p);
    const dying = drawOverlay(PIXI, overlayModel(mettle(), "brannoc", 100), { width: 100, height: 100, now: 100, t: tr });
    const texts = textsOf(dying);
    // Two days and more read as days, in the language's plural (Russian "2 дня", German "2 Tage").
    assert.ok(texts.includes(t("VIGIL.Duration.days", { n: 2 })), `${language}: ${texts.join(" | ")}`);
    const state = { table: "d", system: "dryh", clock: { mode: "paused", rate: 1, game: 0, wall: 0 }, characters: { mina: { name: "Mina", actor_id: "a", badges: ["snapped"], countdowns: [], sheet: { discipline: 3, exhaustion: 1, madness: 0 } } }, game: { rolls: { mina: dryhRoll } } };
    const rolled = textsOf(drawOverlay(PIXI, overlayModel(state, "mina", 0), { width: 100, height: 100, now: 0, t: tr }));
    assert.ok(rolled.length >= 2);
    assertWorded(language, [...texts, ...rolled], "overlay");
  });

  test(`${language}: the HUD button, the Vigil window and the chat card are in the language`, () => {
    const env = browser(language);
    const doc = new FakeDocument();
    const { html, right } = tokenHudHtml(doc);
    const conn = new EventTarget();
    Object.assign(conn, { state: mettle(), client: { role: "gm", ownCharacters: [], status: "connected" }, send: async () => ({ result: null, rev: 1 }) });
    installHud(conn, env.Hooks, () => {});
    env.Hooks.callAll("renderTokenHUD", { object: { document: { id: "t1", actorId: "actB" } } }, html, {});
    const button = right.querySelector("[data-action=\"vigil\"]");
    assert.equal(button.title, game.i18n.localize("VIGIL.Hud.Open"));
    const panel = buildPanel(doc, { connection: conn, tokenDoc: { id: "t1", actorId: "actB" } });
    const card = rollCardHtml("Mina", dryhRoll, { base: "https://vigil.example" });
    // The card counts successes in the language's plural ("4 успеха", "4 Erfolge").
    assert.ok(card.includes(t("VIGIL.Chat.Successes", { n: 4, outcome: t("VIGIL.Chat.Success") })));
    if (language === "ru") assert.match(card, /4 успеха/);
    assertWorded(language, [button.title, panel.text, card], "HUD, window and chat card");
  });

  test(`${language}: notifications and refusals are sentences in the language`, async () => {
    const env = browser(language);
    const conn = new VigilConnection({ document: new FakeDocument() });
    await assert.rejects(conn.send({ type: "clock.pause" }));
    const names = { juk: "Juk" };
    const sentences = [
      ...env.ui.notifications.messages.map(([, m]) => m),
      errorText({ code: "helper_busy", params: { char: "juk", until: 3 * 86400 + 130 } }, names),
      errorText({ code: "response_full", params: { char: "juk", response: "flight" } }, names),
      errorText({ code: "sense_lost", params: { sense: "sight", reason: "blind" } }, names),
    ];
    conn._showStatus("reconnecting");
    sentences.push(conn.indicator.textContent);
    assert.equal(sentences.length, 5);
    // A clock reading past the first day is worded by the language ("день 4, 00:02:10").
    assert.ok(sentences[1].includes(game.i18n.localize("VIGIL.Time.reading").replace("{day}", "4").replace("{time}", "00:02:10")), sentences[1]);
    if (language !== "en") {
      for (const word of ["flight", "sight"]) assert.ok(!sentences.join(" ").includes(word), `${language}: English "${word}" in ${sentences.join(" | ")}`);
    }
    assertWorded(language, sentences, "notifications");
  });
}

test("numbers are the language's: a fraction is written with its decimal sign", () => {
  browser("de");
  assert.equal(t("VIGIL.Overlay.Successes", { n: 2.5 }), languageFile("de")["VIGIL.Overlay.Successes"].replace("{n}", "2,5"));
  browser("en");
  assert.equal(t("VIGIL.Overlay.Successes", { n: 2.5 }), "2.5 succ.");
});

test("a key the language lacks falls back to English (Foundry's fallback), never to the key", () => {
  const env = browser("ru");
  delete env.game.i18n.translations["VIGIL.Status.reconnecting"];
  assert.equal(t("VIGIL.Status.reconnecting"), english["VIGIL.Status.reconnecting"]);
  assert.deepEqual([...game.i18n.served], ["VIGIL.Status.reconnecting"]);
});
