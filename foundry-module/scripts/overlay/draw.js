/**
 * The overlay drawn on a token, with PIXI v7 (Foundry v12/v13 ship PIXI 7).
 *
 * `drawOverlay(PIXI, model, opts)` is a pure-ish function of
 * (overlay model, token size, zoom, now) → a new PIXI.Container; PIXI is
 * passed in, so the same code runs in Foundry (global PIXI) and in the test
 * harness (pixi.js from node_modules). `updateOverlay` only re-texts what
 * the clock moves — the Dying countdown and its ring, the other countdowns
 * (a poison's next dose, rest, recovery…), the falling Rattle (MET-14) —
 * and re-scales for zoom, touching a PIXI text only when the text shown
 * changes (each text is a canvas texture); everything else is redrawn only
 * when the server's state changes that character (manager.js).
 *
 * Geometry: the countdown, badges and dice sit in a stack above the token,
 * the counters and the Rattle meter in a column to its left; only the dying
 * ring is drawn over the token, with a thickness capped so it covers at most
 * 25% of the token (see layout.js).
 */

import { formatCountdown } from "../core/clock.js";
import { uiScale, ringThickness, FONT_PX } from "./layout.js";
import { POOLS } from "./model.js";
import { badgeShortKey, counterShortKey, countdownShortKey, poolShortKey, rattleNow } from "../core/display.js";

const GAP = 3; // screen px between rows
const DIE = 22; // screen px, side of a die
const TEXT_RESOLUTION = () => Math.max(2, globalThis.devicePixelRatio || 1);

/** Default labels (English) when no translator is given. */
const DEFAULT_T = (key, params = {}) => {
  const fallback = {
    "VIGIL.Overlay.Departed": "Departed",
    "VIGIL.Overlay.Successes": `${params.n} succ.`,
    "VIGIL.Overlay.Dominant": `${params.pool} dominates`,
    "VIGIL.Duration.days": params.n === 1 ? "1 day" : `${params.n} days`,
  };
  return fallback[key] ?? null;
};

function text(PIXI, str, { size = FONT_PX, fill = 0xffffff, weight = "bold", stroke = 0x000000 } = {}) {
  const t = new PIXI.Text(String(str), new PIXI.TextStyle({
    fontFamily: "Signika, Helvetica, Arial, sans-serif",
    fontSize: size,
    fontWeight: weight,
    fill,
    stroke: stroke ?? 0x000000,
    strokeThickness: stroke === null ? 0 : 3,
  }));
  t.resolution = TEXT_RESOLUTION();
  return t;
}

function shape(g, kind, x, y, r, color) {
  g.lineStyle(1.5, 0xffffff, 0.9);
  g.beginFill(color, 0.95);
  if (kind === "circle") g.drawCircle(x, y, r);
  else if (kind === "diamond") g.drawPolygon([x, y - r, x + r, y, x, y + r, x - r, y]);
  else if (kind === "triangle") g.drawPolygon([x, y - r, x + r, y + r * 0.8, x - r, y + r * 0.8]);
  else g.drawRect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  g.endFill();
}

/** A pill: rounded rectangle with a marker shape and a label. */
function pill(PIXI, label, { color, marker = "circle", textColor = 0xffffff }) {
  const c = new PIXI.Container();
  const t = text(PIXI, label, { fill: textColor });
  const h = Math.max(FONT_PX + 8, t.height + 2);
  const w = h + t.width + 6;
  const bg = new PIXI.Graphics();
  bg.lineStyle(1, 0x000000, 0.8);
  bg.beginFill(0x111111, 0.78);
  bg.drawRoundedRect(0, 0, w, h, h / 2);
  bg.endFill();
  shape(bg, marker, h / 2, h / 2, h / 2 - 4, color);
  t.position.set(h, (h - t.height) / 2);
  c.addChild(bg, t);
  c.pillWidth = w;
  c.pillHeight = h;
  return c;
}

function die(PIXI, pool, face, success, isDominantPool) {
  const c = new PIXI.Container();
  const g = new PIXI.Graphics();
  // Successes get a thick gold frame AND a dot (shape as well as colour).
  g.lineStyle(success ? 3 : 1.5, success ? 0xffd54f : pool.stroke, 1);
  g.beginFill(pool.fill, 1);
  g.drawRoundedRect(0, 0, DIE, DIE, 4);
  g.endFill();
  if (success) {
    g.lineStyle(0);
    g.beginFill(0xffd54f, 1);
    g.drawCircle(DIE - 4, DIE - 4, 3);
    g.endFill();
  }
  if (isDominantPool) {
    // The dominant pool's dice carry a triangle above them.
    g.lineStyle(1, 0x000000, 1);
    g.beginFill(0xffffff, 1);
    g.drawPolygon([DIE / 2 - 5, -2, DIE / 2 + 5, -2, DIE / 2, -8]);
    g.endFill();
  }
  const f = text(PIXI, face, { size: FONT_PX + 2, fill: pool.text, stroke: null });
  f.position.set(DIE / 2 - f.width / 2, DIE / 2 - f.height / 2);
  c.addChild(g, f);
  return c;
}

const DICE_PER_ROW = 8;

/** One pool's dice behind its letter (≥ 12 px, so the pool is named by a
 * letter as well as a colour), split in rows of at most 8 dice. */
function poolGroups(PIXI, pool, letter, isDominant) {
  const groups = [];
  for (let i = 0; i < pool.faces.length; i += DICE_PER_ROW) {
    const c = new PIXI.Container();
    c.name = `vigil-pool-${pool.pool}`;
    const tag = pill(PIXI, letter, { color: pool.fill, marker: "square" });
    c.addChild(tag);
    let x = tag.pillWidth + 2;
    for (const { face, success } of pool.faces.slice(i, i + DICE_PER_ROW)) {
      const d = die(PIXI, pool, face, success, isDominant);
      d.name = `vigil-die-${pool.pool}`;
      d.position.set(x, (tag.pillHeight - DIE) / 2 + 3);
      c.addChild(d);
      x += DIE + 2;
    }
    c.itemWidth = x;
    c.itemHeight = Math.max(tag.pillHeight, DIE + 3) + 6;
    groups.push(c);
  }
  return groups;
}

/** Lay children out in rows no wider than maxWidth, bottom-up, returning the
 * total height. Each row is centred on x = centre. */
function flowRows(container, items, { maxWidth, centre, bottom, gap = GAP }) {
  const rows = [];
  let row = [];
  let rowWidth = 0;
  for (const it of items) {
    const w = it.itemWidth;
    if (row.length && rowWidth + gap + w > maxWidth) {
      rows.push({ row, rowWidth });
      row = [];
      rowWidth = 0;
    }
    rowWidth += (row.length ? gap : 0) + w;
    row.push(it);
  }
  if (row.length) rows.push({ row, rowWidth });
  let y = bottom;
  for (const { row: r, rowWidth: rw } of rows.reverse()) {
    const h = Math.max(...r.map((it) => it.itemHeight));
    y -= h;
    let x = centre - rw / 2;
    for (const it of r) {
      it.position.set(x, y + (h - it.itemHeight));
      container.addChild(it);
      x += it.itemWidth + gap;
    }
    y -= gap;
  }
  return bottom - y;
}

function countdownLabel(dying, now, t) {
  if (dying.departed) return t("VIGIL.Overlay.Departed") ?? "Departed";
  return formatCountdown(Math.max(0, dying.until - now), dayWords(t));
}

/** "N days" of a long countdown in the reader's words (VIGIL.Duration.days, counted). */
const dayWords = (t) => ({ days: (n) => t("VIGIL.Duration.days", { n }) });

/** A countdown other than Dying: its short word and the time left. */
function timerLabel(cd, now, t) {
  return `${t(countdownShortKey(cd.kind)) ?? cd.kind} ${formatCountdown(Math.max(0, cd.until - now), dayWords(t))}`;
}

const TIMER_COLOR = 0x00897b;
const PIP = 6;

/** The Rattle meter's pips: `value` of them lit out of `max`. */
function drawPips(g, meter, value, y) {
  g.clear();
  for (let i = 0; i < meter.max; i++) {
    g.lineStyle(1, 0x000000, 0.9);
    g.beginFill(i < value ? meter.color : 0x444444, i < value ? 1 : 0.6);
    g.drawRect(i * (PIP + 2), y, PIP, PIP);
    g.endFill();
  }
}

const textOf = (PIXI, container) => container.children.find((c) => c instanceof PIXI.Text) ?? null;

function drawRing(g, w, h, thickness, fraction, departed) {
  g.clear();
  const r = Math.min(w, h) / 2 - thickness / 2;
  const cx = w / 2, cy = h / 2;
  g.lineStyle(thickness, 0x000000, 0.45);
  g.drawCircle(cx, cy, r);
  if (departed) return;
  if (fraction > 0) {
    g.lineStyle(thickness, fraction > 0.25 ? 0xe53935 : 0xff1744, 1);
    const start = -Math.PI / 2;
    g.moveTo(cx + r * Math.cos(start), cy + r * Math.sin(start));
    g.arc(cx, cy, r, start, start + fraction * Math.PI * 2);
  }
}

/**
 * @param {typeof import("pixi.js")} PIXI
 * @param {object} model from overlayModel()
 * @param {{width:number, height:number, zoom:number, now:number, t?:Function, show?:object}} opts
 *   width/height: token size in canvas units; now: game seconds.
 * @returns {PIXI.Container} named "vigil-overlay"; `container.vigil` keeps what
 *   updateOverlay needs.
 */
export function drawOverlay(PIXI, model, { width, height, zoom = 1, now = 0, t = DEFAULT_T } = {}) {
  const tr = (k, p) => t(k, p) ?? DEFAULT_T(k, p);
  const root = new PIXI.Container();
  root.name = "vigil-overlay";
  root.eventMode = "none"; // never steal clicks from the token
  const u = uiScale(zoom);

  // The dying ring (canvas units, over the token).
  let ring = null;
  if (model.dying) {
    ring = new PIXI.Graphics();
    ring.name = "vigil-ring";
    drawRing(ring, width, height, ringThickness(width, height, zoom), model.dying.fraction, model.dying.departed);
    root.addChild(ring);
  }

  // Above the token: countdown, badges, dice — built in screen px, scaled by u.
  const above = new PIXI.Container();
  above.name = "vigil-above";
  const items = [];
  let countdown = null;
  const maxWidth = Math.max(width / u, 9 * (DIE + 2) + 30);
  const centre = width / u / 2;
  let bottom = -GAP;

  const place = (list) => {
    if (!list.length) return;
    const h = flowRows(above, list, { maxWidth, centre, bottom });
    bottom -= h;
  };

  if (model.dying) {
    const label = countdownLabel(model.dying, now, tr);
    countdown = pill(PIXI, label, { color: model.dying.departed ? 0x212121 : 0xe53935, marker: "diamond" });
    countdown.name = "vigil-countdown";
    countdown.itemWidth = countdown.pillWidth;
    countdown.itemHeight = countdown.pillHeight;
    place([countdown]);
  }

  const timers = model.timers.map((cd) => {
    const label = timerLabel(cd, now, tr);
    const p = pill(PIXI, label, { color: TIMER_COLOR, marker: "circle" });
    p.name = `vigil-timer-${cd.kind}`;
    p.itemWidth = p.pillWidth;
    p.itemHeight = p.pillHeight;
    return { pill: p, cd, label };
  });
  place(timers.map((x) => x.pill));

  const badges = model.badges.filter((b) => !(model.dying && (b.code === "dying" || b.code === "departed")));
  place(badges.map((b) => {
    const p = pill(PIXI, tr(badgeShortKey(b.code)) ?? b.letter, { color: b.color, marker: b.shape });
    p.name = `vigil-badge-${b.code}`;
    p.itemWidth = p.pillWidth;
    p.itemHeight = p.pillHeight;
    return p;
  }));

  if (model.roll && model.roll.pools.length) {
    const groups = [];
    for (const pool of model.roll.pools) {
      const letter = tr(poolShortKey(pool.pool)) ?? pool.letter;
      groups.push(...poolGroups(PIXI, pool, pool.helper ? `${letter}·${pool.helper}` : letter, model.roll.dominant === pool.pool && !pool.helper));
    }
    const summary = [];
    if (model.roll.successes !== null && model.roll.successes !== undefined) {
      const s = pill(PIXI, tr("VIGIL.Overlay.Successes", { n: model.roll.successes }), { color: 0xffd54f, marker: "circle", textColor: 0xffffff });
      s.itemWidth = s.pillWidth; s.itemHeight = s.pillHeight; s.name = "vigil-successes";
      summary.push(s);
    }
    if (model.roll.dominant) {
      const p = POOLS[model.roll.dominant];
      const label = tr("VIGIL.Overlay.Dominant", { pool: tr(poolShortKey(model.roll.dominant)) ?? p?.letter ?? "?" });
      const d = pill(PIXI, label, { color: p?.fill ?? 0xffffff, marker: "triangle" });
      d.itemWidth = d.pillWidth; d.itemHeight = d.pillHeight; d.name = "vigil-dominant";
      summary.push(d);
    }
    place(summary);
    place(groups);
  }
  items.push(...above.children);
  above.scale.set(u);
  root.addChild(above);

  // Left of the token: counters and the Rattle meter, one row each.
  const left = new PIXI.Container();
  left.name = "vigil-left";
  let y = 0;
  const rows = [];
  for (const c of model.counters) {
    const p = pill(PIXI, `${tr(counterShortKey(c.key)) ?? c.letter} ${c.value}`, { color: c.color, marker: "square" });
    p.name = `vigil-counter-${c.key}`;
    rows.push(p);
  }
  let rattle = null;
  if (model.rattle) {
    const m = model.rattle;
    const value = rattleNow(m, now);
    const c = new PIXI.Container();
    c.name = "vigil-rattle";
    const word = tr(counterShortKey("rattle")) ?? m.letter;
    const p = pill(PIXI, `${word} ${value}`, { color: m.color, marker: "triangle" });
    c.addChild(p);
    const pips = new PIXI.Graphics();
    drawPips(pips, m, value, p.pillHeight + 2);
    c.addChild(pips);
    c.pillWidth = Math.max(p.pillWidth, m.max * (PIP + 2));
    c.pillHeight = p.pillHeight + PIP + 4;
    rows.push(c);
    rattle = { meter: m, value, word, text: textOf(PIXI, p), pips, y: p.pillHeight + 2 };
  }
  for (const r of rows) {
    r.position.set(-GAP - r.pillWidth, y);
    left.addChild(r);
    y += r.pillHeight + GAP;
  }
  left.scale.set(u);
  root.addChild(left);

  for (const x of timers) x.text = textOf(PIXI, x.pill);
  root.vigil = { model, width, height, zoom, ring, ringFraction: model.dying?.fraction ?? 0, countdown, timers, rattle, above, left, label: countdown ? countdownLabel(model.dying, now, tr) : null, t: tr };
  return root;
}

/**
 * Per-frame update: the countdown text and ring from `now`, and the scale for
 * `zoom`. Cheap: it touches PIXI only when the shown text or zoom changes.
 * @returns {boolean} whether anything changed
 */
export function updateOverlay(PIXI, root, { zoom, now }) {
  const v = root?.vigil;
  if (!v) return false;
  let changed = false;
  if (zoom !== undefined && zoom !== v.zoom) {
    const u = uiScale(zoom);
    v.above.scale.set(u);
    v.left.scale.set(u);
    v.zoom = zoom;
    // The ring's thickness depends on zoom: redraw it now, not only when the
    // countdown's text next changes (never, while the clock is paused).
    if (v.ring) drawRing(v.ring, v.width, v.height, ringThickness(v.width, v.height, zoom), v.ringFraction, Boolean(v.model.dying?.departed));
    changed = true;
  }
  if (v.countdown && v.model.dying && !v.model.dying.departed && now !== undefined) {
    const label = countdownLabel(v.model.dying, now, v.t);
    if (label !== v.label) {
      const textObj = v.countdown.children.find((c) => c instanceof PIXI.Text);
      if (textObj) textObj.text = label;
      v.label = label;
      const remaining = Math.max(0, v.model.dying.until - now);
      v.ringFraction = Math.min(1, remaining / v.model.dying.total);
      drawRing(v.ring, v.width, v.height, ringThickness(v.width, v.height, v.zoom), v.ringFraction, false);
      changed = true;
    }
  }
  if (now === undefined) return changed;
  for (const x of v.timers ?? []) {
    const label = timerLabel(x.cd, now, v.t);
    if (label === x.label) continue;
    if (x.text) x.text.text = label;
    x.label = label;
    changed = true;
  }
  const r = v.rattle;
  if (r && r.meter.zeroAt !== null) {
    const value = rattleNow(r.meter, now);
    if (value !== r.value) {
      if (r.text) r.text.text = `${r.word} ${value}`;
      drawPips(r.pips, r.meter, value, r.y);
      r.value = value;
      changed = true;
    }
  }
  return changed;
}

/** Whether this overlay needs per-frame updates: a running Dying
 * countdown, another countdown, or a falling Rattle. */
export function isAnimated(root) {
  const v = root?.vigil;
  const d = v?.model?.dying;
  return Boolean((d && !d.departed) || v?.model?.timers?.length || (v?.rattle && v.rattle.meter.zeroAt !== null && v.rattle.value > 0));
}
