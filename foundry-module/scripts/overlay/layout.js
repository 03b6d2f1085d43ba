/**
 * Overlay geometry, pure numbers: how big the text is on screen and how much
 * of the token the overlay may cover. Kept apart from the PIXI drawing so the
 * two promises of docs/design.md "Foundry module" (text at least 12 px on screen at
 * zoom 0.5–2; at most 25% of the token covered) are tested in Node.
 */

export const MIN_ZOOM = 0.5;
export const MAX_ZOOM = 2;
/** Font size in screen pixels inside the zoom bounds. */
export const FONT_PX = 13;
export const MAX_COVER = 0.25;

/**
 * Canvas units per screen pixel for overlay furniture: 1/zoom within the
 * bounds, so text keeps its screen size there; outside them it grows or
 * shrinks with the map like everything else.
 */
export function uiScale(zoom) {
  const z = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Number(zoom) || 1));
  return 1 / z;
}

/** On-screen font size (px) at a canvas zoom. */
export function screenFontPx(zoom) {
  return FONT_PX * uiScale(zoom) * zoom;
}

/** Thickest ring (canvas units) along the token's edge that covers at most
 * `cover` of a w×h token: solves (w-2t)(h-2t) = (1-cover)wh. */
export function maxRingThickness(w, h, cover = MAX_COVER) {
  const s = w + h;
  return (s - Math.sqrt(s * s - 4 * cover * w * h)) / 4;
}

/** The dying ring's thickness: 5 screen px, capped by the cover budget. */
export function ringThickness(w, h, zoom) {
  return Math.min(5 * uiScale(zoom), maxRingThickness(w, h));
}

/** Fraction of the token's w×h area covered by the ring (the only part of the
 * overlay drawn over the token; the rest sits outside its edges). */
export function ringCover(w, h, t) {
  if (t <= 0) return 0;
  return 1 - (Math.max(0, w - 2 * t) * Math.max(0, h - 2 * t)) / (w * h);
}

/** Fraction of the token rectangle [0,w]×[0,h] covered by axis-aligned rects
 * (canvas units, token-local). Overlaps between rects are counted once per
 * rect, so this is an upper bound. */
export function rectCover(w, h, rects) {
  let covered = 0;
  for (const r of rects) {
    const x0 = Math.max(0, r.x), y0 = Math.max(0, r.y);
    const x1 = Math.min(w, r.x + r.width), y1 = Math.min(h, r.y + r.height);
    if (x1 > x0 && y1 > y0) covered += (x1 - x0) * (y1 - y0);
  }
  return covered / (w * h);
}
