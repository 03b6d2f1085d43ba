/**
 * Overlay logic without a browser: the model from real-shaped states, the
 * geometry promises (text ≥ 12 px on screen at zoom 0.5–2, ≤ 25% of the
 * token covered), the drawing's structure with a fake PIXI, and the manager
 * against fake Hooks/canvas/Token.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { overlayModel, characterForToken, touchedCharacters } from "../scripts/overlay/model.js";
import { readDie } from "../scripts/core/display.js";
import { uiScale, screenFontPx, ringThickness, ringCover, rectCover, maxRingThickness } from "../scripts/overlay/layout.js";
import { drawOverlay, updateOverlay, isAnimated } from "../scripts/overlay/draw.js";
import { OverlayManager } from "../scripts/overlay/manager.js";
import { PIXI } from "./fakes/pixi.mjs";
import { FakeHooks, FakeToken, fakeCanvas, dragPreview, fakeI18n } from "./fakes/foundry.mjs";
import { readFileSync } from "node:fs";

const i18n = fakeI18n(JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url))));
/** The module's translator over en.json (settings.js tOrNull). */
const tr = (key, params) => (i18n.has(key) ? i18n.format(key, params) : null);

/** A Pain & Mettle view like the server's (see the demo table). */
function mettleState({ dying = false, departed = false } = {}) {
  return {
    table: "demo", system: "mettle",
    clock: { mode: "running", rate: 1, game: 10, wall: Date.now() / 1000, in_combat: false, round: 0 },
    characters: {
      brannoc: {
        name: "Brannoc", kind: "pc", visibility: "full", actor_id: "actB", token_id: null,
        badges: departed ? ["departed"] : dying ? ["dying"] : [],
        countdowns: dying && !departed ? [{ kind: "dying", until: 300, since: 0 }] : [],
        sheet: { mettle: 5, pain: 7, rattle: 2, injuries: [{ id: 1 }], status: departed ? "departed" : dying ? "dying" : "active" },
        derived: { rattle: 2, status: departed ? "departed" : "active" },
      },
      raider: { name: "Raider", kind: "npc", visibility: "status", actor_id: "actR", token_id: "tokR", badges: ["unconscious"], countdowns: [] },
    },
    game: {},
  };
}

function dryhState() {
  return {
    table: "dreams", system: "dryh", clock: { mode: "paused", rate: 1, game: 0, wall: 0 },
    characters: { mina: { name: "Mina", actor_id: "actM", token_id: null, badges: ["snapped"], countdowns: [], sheet: { discipline: 3, exhaustion: 1, madness: 0 } } },
    game: { rolls: { mina: { phase: "rolled", dice: { discipline: [5, 1, 2], exhaustion: [6], madness: [2, 6], pain: [5, 1, 2, 4], helpers: {} }, successes: 4, success: true, dominant: "madness" } } },
  };
}

test("model: Pain & Mettle counters, Rattle meter, dying countdown from game time", () => {
  const m = overlayModel(mettleState({ dying: true }), "brannoc", 100);
  assert.deepEqual(m.counters.map((c) => [c.key, c.value]), [["pain", 7], ["injuries", 1]]);
  assert.equal(m.rattle.value, 2);
  assert.equal(m.rattle.max, 5);
  assert.equal(m.dying.remaining, 200);
  assert.ok(Math.abs(m.dying.fraction - 200 / 300) < 1e-9);
  assert.deepEqual(m.badges.map((b) => b.code), ["dying"]);
  assert.equal(overlayModel(mettleState({ departed: true }), "brannoc", 400).dying.departed, true);
  assert.equal(overlayModel(mettleState(), "nobody", 0), null);
});

test("model: a status-visibility character has badges but no numbers", () => {
  const m = overlayModel(mettleState(), "raider", 0);
  assert.deepEqual(m.counters, []);
  assert.equal(m.rattle, null);
  assert.deepEqual(m.badges.map((b) => [b.code, b.letter, b.shape]), [["unconscious", "U", "circle"]]);
});

test("model: DRYH dice by pool with successes (1-3) and the dominant pool", () => {
  const m = overlayModel(dryhState(), "mina", 0);
  assert.deepEqual(m.roll.pools.map((p) => [p.pool, p.letter, p.faces.length]), [["discipline", "D", 3], ["exhaustion", "E", 1], ["madness", "M", 2], ["pain", "P", 4]]);
  assert.deepEqual(m.roll.pools[0].faces.map((f) => f.success), [false, true, true]);
  assert.equal(m.roll.dominant, "madness");
  assert.equal(m.roll.successes, 4);
  assert.ok([1, 2, 3].every((f) => readDie("dryh", f).success) && ![4, 5, 6].some((f) => readDie("dryh", f).success));
  // Hursagmu sums 2d6 (HUR-01): no single die is a success or a failure.
  assert.ok([1, 2, 3, 6].every((f) => readDie("hursagmu", f).success === null));
});

test("characterForToken: token id wins, else the actor for actor-linked characters", () => {
  const s = mettleState();
  assert.equal(characterForToken(s, { id: "tokR", actorId: "other" }), "raider");
  assert.equal(characterForToken(s, { id: "t1", actorId: "actB" }), "brannoc");
  assert.equal(characterForToken(s, { id: "t2", actorId: "actR" }), null, "raider is bound to one token");
  assert.equal(characterForToken(s, { id: "t3", actorId: "nobody" }), null);
});

test("text is at least 12 px on screen for every zoom in 0.5–2", () => {
  for (let z = 0.5; z <= 2.0001; z += 0.05) {
    assert.ok(screenFontPx(z) >= 12, `zoom ${z}: ${screenFontPx(z)}`);
  }
  assert.equal(uiScale(4), 0.5, "outside the bounds, overlays scale with the map");
  assert.equal(uiScale(0.1), 2);
});

test("the dying ring covers at most 25% of the token at any size and zoom", () => {
  for (const [w, h] of [[50, 50], [100, 100], [200, 100], [400, 400], [30, 30]]) {
    for (const z of [0.25, 0.5, 1, 2, 3]) {
      const t = ringThickness(w, h, z);
      assert.ok(ringCover(w, h, t) <= 0.25 + 1e-9, `${w}x${h}@${z}`);
    }
    assert.ok(Math.abs(ringCover(w, h, maxRingThickness(w, h)) - 0.25) < 1e-9);
  }
});

test("drawn overlay: everything but the ring lies outside the token; ≤ 25% covered", () => {
  for (const zoom of [0.5, 1, 2]) {
    for (const size of [50, 100, 200]) {
      for (const state of [mettleState({ dying: true }), dryhState()]) {
        const id = Object.keys(state.characters)[0];
        const token = new FakeToken({ id: "t", actorId: "x", w: size, h: size });
        const root = drawOverlay(PIXI, overlayModel(state, id, 50), { width: size, height: size, zoom, now: 50 });
        token.addChild(root);
        const furniture = [root.vigil.above, root.vigil.left].flatMap((c) => c.boundsIn(token));
        assert.ok(furniture.length > 0);
        assert.equal(rectCover(size, size, furniture), 0, `zoom ${zoom} size ${size}`);
        const ring = root.getChildByName("vigil-ring");
        if (ring) {
          const lw = ring.ops.find((o) => o[0] === "lineStyle")[1];
          assert.ok(ringCover(size, size, lw) <= 0.25);
        }
        // Text: every font, scaled by its container, is ≥ 12 px on screen.
        const fonts = [];
        const walk = (n, s) => { if (n.style?.fontSize) fonts.push([n.style.fontSize * s * zoom, n.text]); for (const c of n.children) walk(c, s * c.scale.x); };
        walk(root, 1);
        for (const [px, text] of fonts) assert.ok(px >= 12 - 1e-9, `"${text}" is ${px}px at zoom ${zoom}`);
      }
    }
  }
});

test("drawn overlay: pools and badges carry letters; countdown updates only when its text changes", () => {
  const root = drawOverlay(PIXI, overlayModel(dryhState(), "mina", 0), { width: 100, height: 100, zoom: 1, now: 0 });
  const texts = [];
  const walk = (n) => { if (typeof n.text === "string") texts.push(n.text); n.children.forEach(walk); };
  walk(root);
  for (const letter of ["D", "E", "M", "P"]) assert.ok(texts.includes(letter), `pool letter ${letter}`);
  assert.ok(texts.includes("Snap") || texts.includes("Sn"), texts.join("|"));
  assert.ok(texts.some((t) => t.includes("M dominates")), texts.join("|"));

  const dying = drawOverlay(PIXI, overlayModel(mettleState({ dying: true }), "brannoc", 10), { width: 100, height: 100, zoom: 1, now: 10 });
  assert.ok(isAnimated(dying));
  assert.equal(dying.vigil.label, "04:50");
  assert.equal(updateOverlay(PIXI, dying, { now: 10.2 }), false, "same second: nothing to redraw");
  assert.equal(updateOverlay(PIXI, dying, { now: 11 }), true);
  assert.equal(dying.vigil.label, "04:49");
  assert.equal(updateOverlay(PIXI, dying, { zoom: 2 }), true);
  assert.equal(dying.vigil.above.scale.x, 0.5);
  const departed = drawOverlay(PIXI, overlayModel(mettleState({ departed: true }), "brannoc", 400), { width: 100, height: 100, zoom: 1, now: 400 });
  assert.equal(departed.vigil.label, "Departed");
  assert.equal(isAnimated(departed), false);
});

function fakeConnection(state) {
  const c = new EventTarget();
  c.state = state;
  c.now = 10;
  c.gameNow = () => c.now;
  // changes null: a snapshot, as the client says after (re)connecting.
  c.setState = (s, changes = null) => { c.state = s; c.dispatchEvent(new CustomEvent("state", { detail: { state: s, changes, rev: 1 } })); };
  return c;
}

test("manager: overlays on linked tokens only, redrawn on state, hooks and resize", () => {
  const Hooks = new FakeHooks();
  const linked = new FakeToken({ id: "t1", actorId: "actB" });
  const hiddenToMe = new FakeToken({ id: "t2", actorId: "actR", isVisible: false });
  const raiderTok = new FakeToken({ id: "tokR", actorId: "actR", isVisible: false });
  const stranger = new FakeToken({ id: "t3", actorId: "zzz" });
  const canvas = fakeCanvas([linked, hiddenToMe, raiderTok, stranger], 1);
  const conn = fakeConnection(mettleState());
  let enabled = true;
  const m = new OverlayManager(conn, { PIXI, Hooks, getCanvas: () => canvas, enabled: () => enabled });
  m.install();
  for (const hook of ["canvasReady", "drawToken", "refreshToken", "destroyToken", "canvasPan"]) assert.equal(Hooks.count(hook), 1, hook);

  Hooks.callAll("canvasReady", canvas);
  assert.deepEqual([...m.overlays.keys()].sort(), ["t1", "tokR"]);
  assert.ok(linked.getChildByName("vigil-overlay"));
  assert.equal(stranger.getChildByName("vigil-overlay"), null);
  assert.equal(raiderTok.getChildByName("vigil-overlay").visible, false, "Foundry hides the token from me: no overlay");

  // State change → redraw; a dying countdown starts the ticker.
  const first = linked.getChildByName("vigil-overlay");
  conn.setState(mettleState({ dying: true }));
  const second = linked.getChildByName("vigil-overlay");
  assert.notEqual(first, second);
  assert.ok(first.destroyed);
  assert.equal(canvas.app.ticker.fns.size, 1);
  conn.now = 20;
  assert.equal(m.tick(1_000_000), 1);
  assert.equal(second.vigil.label, "04:40");
  assert.equal(m.tick(1_000_100), 0, "throttled to 4 Hz");

  // Resize → redraw; plain refresh keeps the overlay.
  Hooks.callAll("refreshToken", linked, {});
  assert.equal(linked.getChildByName("vigil-overlay"), second);
  linked.w = 200;
  Hooks.callAll("refreshToken", linked, {});
  assert.notEqual(linked.getChildByName("vigil-overlay"), second);

  // Zoom updates scale without redrawing.
  const third = linked.getChildByName("vigil-overlay");
  Hooks.callAll("canvasPan", canvas, { x: 0, y: 0, scale: 2 });
  assert.equal(third.vigil.above.scale.x, 0.5);

  // Switched off per client → removed; destroyToken removes.
  enabled = false;
  m.refreshAll();
  assert.equal(m.overlays.size, 0);
  assert.equal(canvas.app.ticker.fns.size, 0, "no ticker without a countdown");
  enabled = true;
  m.refreshAll();
  Hooks.callAll("destroyToken", linked);
  assert.equal(linked.getChildByName("vigil-overlay"), null);
});

test("manager: a drag preview (same id) neither takes nor deletes the token's overlay", () => {
  const Hooks = new FakeHooks();
  const token = new FakeToken({ id: "t1", actorId: "actB" });
  const canvas = fakeCanvas([token], 1);
  const m = new OverlayManager(fakeConnection(mettleState()), { PIXI, Hooks, getCanvas: () => canvas });
  m.install();
  Hooks.callAll("canvasReady", canvas);
  const overlay = token.getChildByName("vigil-overlay");
  const preview = dragPreview(token);
  Hooks.callAll("drawToken", preview);
  Hooks.callAll("refreshToken", preview, {});
  Hooks.callAll("destroyToken", preview);
  assert.equal(preview.getChildByName("vigil-overlay"), null);
  assert.equal(token.getChildByName("vigil-overlay"), overlay);
  assert.ok(!overlay.destroyed);
  // Destroying another object with the same id (not the one drawn on) keeps it too.
  Hooks.callAll("destroyToken", new FakeToken({ id: "t1", actorId: "actB" }));
  assert.equal(m.overlays.get("t1").container, overlay);
});

test("zoom redraws the dying ring's thickness even while the clock is paused", () => {
  const state = mettleState({ dying: true });
  const model = overlayModel(state, "brannoc", 0);
  const root = drawOverlay(PIXI, model, { width: 100, height: 100, zoom: 1, now: 0 });
  const width = () => root.vigil.ring.ops.find((op) => op[0] === "lineStyle")[1];
  assert.equal(width(), ringThickness(100, 100, 1));
  assert.ok(updateOverlay(PIXI, root, { zoom: 0.5 }));
  assert.equal(width(), ringThickness(100, 100, 0.5));
  assert.notEqual(ringThickness(100, 100, 0.5), ringThickness(100, 100, 1), "the thickness depends on zoom");
});

test("touchedCharacters: the characters a patch may change on tokens; null for all", () => {
  assert.equal(touchedCharacters(null), null, "a snapshot: all");
  assert.deepEqual([...touchedCharacters({ characters: { a: { sheet: { pain: 1 } } } })], ["a"]);
  assert.deepEqual([...touchedCharacters({ game: { rolls: { m: { phase: "rolled" } }, hope: 2 } })], ["m"]);
  assert.deepEqual([...touchedCharacters({ clock: { game: 5, wall: 9 } })], [], "the clock moves countdowns without a redraw");
  assert.deepEqual([...touchedCharacters({ characters: { gone: [] } })], ["gone"]);
  assert.equal(touchedCharacters({ characters: [{}] }), null, "characters replaced whole");
  assert.equal(touchedCharacters({ system: "dryh" }), null);
});

/** A Hursagmu view: three characters on three tokens, one poisoned. */
function hursagmuState() {
  const ch = (name, derived = {}) => ({ name, visibility: "full", actor_id: `act-${name}`, token_id: null, badges: [], countdowns: [], sheet: { stuns: 0, wounds: 0, shocks: 0 }, derived });
  return {
    table: "h", system: "hursagmu", clock: { mode: "running", rate: 1, game: 0, wall: 0 },
    characters: {
      a: ch("a", { poisons: { p1: { next_dose_at: 60, called: "Adder venom" } } }),
      b: ch("b"),
      c: ch("c"),
    },
    game: {},
  };
}

test("manager: a patch touching one character redraws only that character's overlay", () => {
  const Hooks = new FakeHooks();
  const tokens = ["a", "b", "c"].map((n) => new FakeToken({ id: `t-${n}`, actorId: `act-${n}` }));
  const canvas = fakeCanvas(tokens, 1);
  const conn = fakeConnection(hursagmuState());
  const m = new OverlayManager(conn, { PIXI, Hooks, getCanvas: () => canvas });
  m.install();
  Hooks.callAll("canvasReady", canvas);
  const draws = () => Object.fromEntries([...m.draws].map(([id, n]) => [id, n]));
  assert.deepEqual(draws(), { "t-a": 1, "t-b": 1, "t-c": 1 });
  const before = tokens.map((t) => t.getChildByName("vigil-overlay"));

  const s = hursagmuState();
  s.characters.b.sheet.wounds = 2;
  conn.setState(s, { characters: { b: { sheet: { wounds: 2 } } } });
  assert.deepEqual(draws(), { "t-a": 1, "t-b": 2, "t-c": 1 }, "only b's overlay is redrawn");
  assert.equal(tokens[0].getChildByName("vigil-overlay"), before[0], "a's overlay kept as it was");

  conn.setState(s, { clock: { game: 30, wall: 30 } });
  conn.setState(s, { characters: { c: { notes: "x" } } });
  assert.deepEqual(draws(), { "t-a": 1, "t-b": 2, "t-c": 1 }, "a clock anchor, or a change not drawn, redraws nothing");
});

test("a poison's next dose counts down on the token from the clock, with no patch", () => {
  const root = drawOverlay(PIXI, overlayModel(hursagmuState(), "a", 0), { width: 100, height: 100, zoom: 1, now: 0, t: tr });
  const dose = root.getChildByName("vigil-timer-poison_dose", true);
  const text = () => dose.children.find((c) => c instanceof PIXI.Text).text;
  assert.equal(text(), "Dose 01:00");
  assert.ok(isAnimated(root));
  assert.equal(updateOverlay(PIXI, root, { now: 0.4 }), false, "same second: no texture touched");
  assert.equal(updateOverlay(PIXI, root, { now: 15 }), true);
  assert.equal(text(), "Dose 00:45");
  const model = overlayModel({ ...hursagmuState(), characters: { ...hursagmuState().characters, a: { ...hursagmuState().characters.a, derived: { next_rest_at: 3600, next_recovery_at: 7200 } } } }, "a", 0);
  assert.deepEqual(model.timers.map((c) => c.kind), ["rest_roll", "recovery_roll"], "rest and recovery too");
});

test("the Rattle pill falls with the clock out of combat (MET-14), with no patch", () => {
  const state = mettleState();
  state.characters.brannoc.derived = { rattle: 3, rattle_zero_at: 13, status: "active" };
  const root = drawOverlay(PIXI, overlayModel(state, "brannoc", 10), { width: 100, height: 100, zoom: 1, now: 10, t: tr });
  const pill = () => root.getChildByName("vigil-rattle", true).children[0].children.find((c) => c instanceof PIXI.Text).text;
  assert.equal(pill(), "Rattle 3");
  assert.ok(isAnimated(root));
  assert.ok(updateOverlay(PIXI, root, { now: 11.5 }));
  assert.equal(pill(), "Rattle 2");
  updateOverlay(PIXI, root, { now: 20 });
  assert.equal(pill(), "Rattle 0");
  state.characters.brannoc.derived = { rattle: 3, rattle_zero_at: null, status: "active" };
  const still = drawOverlay(PIXI, overlayModel(state, "brannoc", 10), { width: 100, height: 100, zoom: 1, now: 10, t: tr });
  assert.equal(updateOverlay(PIXI, still, { now: 50 }), false, "in combat (no anchor) it stands still");
});
