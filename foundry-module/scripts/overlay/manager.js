/**
 * Keeps an overlay on every linked token of the viewed scene.
 *
 * Redraws a token's overlay when the server's state changes what it shows,
 * when Foundry (re)draws the token (drawToken) or resizes it (refreshToken),
 * and when the scene changes (canvasReady). A patch redraws only the
 * overlays of the characters it touches (model.js `touchedCharacters`), and
 * of those only the ones whose drawing changed (`modelSignature`): each PIXI
 * text is a canvas texture, and a table has many tokens. Zoom (canvasPan)
 * and what the clock moves (countdowns, the falling Rattle) only update
 * existing overlays in place, from one ticker callback throttled to 4 Hz:
 * cheap enough to leave on, and no message per second from the server. The overlay is a child of the Token, so Foundry's
 * own decision to show the token to this user (hidden tokens, vision) hides
 * the overlay too; refreshToken re-applies `token.isVisible` as a guard.
 */

import { overlayModel, characterForToken, modelSignature, touchedCharacters } from "./model.js";
import { drawOverlay, updateOverlay, isAnimated } from "./draw.js";

const TICK_MS = 250;

export class OverlayManager {
  /**
   * @param {import("../connection.js").VigilConnection} connection
   * @param {{PIXI?: any, Hooks?: any, getCanvas?: () => any, enabled?: () => boolean, t?: Function}} [deps]
   */
  constructor(connection, { PIXI = globalThis.PIXI, Hooks = globalThis.Hooks, getCanvas = () => globalThis.canvas, enabled = () => true, t } = {}) {
    this.connection = connection;
    this.PIXI = PIXI;
    this.Hooks = Hooks;
    this.getCanvas = getCanvas;
    this.enabled = enabled;
    this.t = t;
    this.overlays = new Map(); // token id → {token, container, size, char, sig}
    this.draws = new Map(); // token id → how many times its overlay was drawn (the harness prints it)
    this._lastTick = 0;
    this._ticker = null;
    this._tick = () => this.tick();
  }

  install() {
    const H = this.Hooks;
    H.on("canvasReady", () => this.refreshAll());
    // A drag preview is a clone with the same document id that fires these
    // hooks too: it must neither take the original's overlay nor, when
    // destroyed, delete it (other modules guard with token.isPreview).
    H.on("drawToken", (token) => { if (!token?.isPreview) this.refresh(token); });
    H.on("refreshToken", (token) => { if (!token?.isPreview) this.onRefreshToken(token); });
    H.on("destroyToken", (token) => { if (!token?.isPreview) this.removeIfOf(token); });
    H.on("canvasPan", (_canvas, position) => this.onZoom(position?.scale));
    this.connection.addEventListener("state", (e) => this.onState(e.detail?.changes ?? null));
    this.connection.addEventListener("status", () => this.refreshAll({ keep: true }));
  }

  zoom() {
    return this.getCanvas()?.stage?.scale?.x ?? 1;
  }

  refreshAll({ keep = false } = {}) {
    const tokens = this.getCanvas()?.tokens?.placeables ?? [];
    const live = new Set();
    for (const token of tokens) {
      live.add(token.id ?? token.document?.id);
      this.refresh(token, { keep });
    }
    for (const [id, entry] of this.overlays) if (!live.has(id)) this.remove(entry.token);
    this._syncTicker();
  }

  /** A new state: redraw the overlays of the characters the patch touched
   * (`changes` null: a snapshot, all of them), on the tokens that show them
   * now or showed them before. */
  onState(changes) {
    const touched = touchedCharacters(changes);
    if (!touched) {
      this.refreshAll({ keep: true });
      return;
    }
    if (!touched.size) return;
    const state = this.connection.state;
    for (const token of this.getCanvas()?.tokens?.placeables ?? []) {
      const before = this.overlays.get(token.id ?? token.document?.id)?.char;
      const now = characterForToken(state, token.document);
      if (touched.has(before) || touched.has(now)) this.refresh(token, { keep: true });
    }
    this._syncTicker();
  }

  /**
   * (Re)draw one token's overlay from the current state. With `keep`, an
   * overlay that would be drawn the same (same model but for what the clock
   * moves, same size, still on its token) is kept and updated in place.
   */
  refresh(token, { keep = false } = {}) {
    const id = token?.id ?? token?.document?.id;
    if (!id) return;
    const state = this.connection.state;
    const charId = this.enabled() && state && !token.destroyed ? characterForToken(state, token.document) : null;
    const now = this.connection.gameNow();
    const model = charId ? overlayModel(state, charId, now) : null;
    const sig = model ? modelSignature(model) : null;
    const old = this.overlays.get(id);
    if (keep && model && old && old.sig === sig && old.token === token && old.size === `${token.w}x${token.h}` && !old.container.destroyed && old.container.parent === token) {
      old.container.visible = token.isVisible !== false;
      return;
    }
    this.remove(token);
    if (!model) return;
    const container = drawOverlay(this.PIXI, model, { width: token.w, height: token.h, zoom: this.zoom(), now, t: this.t });
    container.visible = token.isVisible !== false;
    token.addChild(container);
    this.overlays.set(id, { token, container, size: `${token.w}x${token.h}`, char: charId, sig });
    this.draws.set(id, (this.draws.get(id) ?? 0) + 1);
    this._syncTicker();
  }

  onRefreshToken(token) {
    const entry = this.overlays.get(token?.id ?? token?.document?.id);
    if (!entry) return;
    if (entry.container.destroyed || entry.size !== `${token.w}x${token.h}` || entry.container.parent !== token) {
      this.refresh(token);
      return;
    }
    entry.container.visible = token.isVisible !== false;
  }

  /** Remove `token`'s overlay only if it is the one drawn on that object. */
  removeIfOf(token) {
    const entry = this.overlays.get(token?.id ?? token?.document?.id);
    if (entry && entry.token === token) this.remove(token);
  }

  remove(token) {
    const id = token?.id ?? token?.document?.id;
    const entry = this.overlays.get(id);
    if (!entry) return;
    this.overlays.delete(id);
    const c = entry.container;
    if (!c.destroyed) {
      c.parent?.removeChild(c);
      c.destroy({ children: true });
    }
  }

  onZoom(scale) {
    const zoom = scale ?? this.zoom();
    for (const { container } of this.overlays.values()) updateOverlay(this.PIXI, container, { zoom });
  }

  /** Ticker callback: countdowns, at most every 250 ms. */
  tick(nowMs = Date.now()) {
    if (nowMs - this._lastTick < TICK_MS) return 0;
    this._lastTick = nowMs;
    const now = this.connection.gameNow();
    let n = 0;
    for (const { container } of this.overlays.values()) {
      if (isAnimated(container) && updateOverlay(this.PIXI, container, { now })) n += 1;
    }
    return n;
  }

  /** Run the ticker only while some overlay has a running countdown. */
  _syncTicker() {
    const ticker = this.getCanvas()?.app?.ticker;
    const want = [...this.overlays.values()].some(({ container }) => isAnimated(container));
    if (want && !this._ticker && ticker) {
      ticker.add(this._tick);
      this._ticker = ticker;
    } else if (!want && this._ticker) {
      this._ticker.remove(this._tick);
      this._ticker = null;
    }
  }

  clear() {
    for (const { token } of [...this.overlays.values()]) this.remove(token);
    this._syncTicker();
  }
}
