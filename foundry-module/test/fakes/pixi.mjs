/**
 * A small stand-in for PIXI v7's scene graph, for Node tests of the overlay
 * manager and of the layout (positions and sizes). It records Graphics
 * primitives as rectangles so coverage can be measured. The real drawing is
 * tested with real pixi.js in Chromium (tests/browser/test_overlays.py).
 */

class Point {
  constructor(x = 0, y = 0) { this.x = x; this.y = y; }
  set(x, y = x) { this.x = x; this.y = y; }
}

export class Container {
  constructor() {
    this.children = [];
    this.parent = null;
    this.position = new Point();
    this.scale = new Point(1, 1);
    this.visible = true;
    this.destroyed = false;
    this.name = null;
  }
  addChild(...cs) {
    for (const c of cs) { c.parent?.removeChild(c); c.parent = this; this.children.push(c); }
    return cs[0];
  }
  removeChild(c) {
    const i = this.children.indexOf(c);
    if (i >= 0) { this.children.splice(i, 1); c.parent = null; }
    return c;
  }
  getChildByName(name, deep) {
    for (const c of this.children) {
      if (c.name === name) return c;
      if (deep) { const d = c.getChildByName?.(name, true); if (d) return d; }
    }
    return null;
  }
  destroy(opts) {
    this.destroyed = true;
    if (opts?.children) for (const c of this.children) c.destroy(opts);
  }
  /** Local-space bounds of drawn content, in this container's parent space. */
  boundsIn(ancestor) {
    const rects = [];
    const visit = (node, sx, sy, ox, oy) => {
      const nx = ox + node.position.x * sx, ny = oy + node.position.y * sy;
      const kx = sx * node.scale.x, ky = sy * node.scale.y;
      for (const r of node.rects ?? []) rects.push({ x: nx + r.x * kx, y: ny + r.y * ky, width: r.width * kx, height: r.height * ky });
      for (const c of node.children) visit(c, kx, ky, nx, ny);
    };
    let sx = 1, sy = 1;
    for (let p = this.parent; p && p !== ancestor; p = p.parent) { sx *= p.scale.x; sy *= p.scale.y; }
    visit(this, sx, sy, 0, 0);
    return rects;
  }
}

export class Graphics extends Container {
  constructor() { super(); this.rects = []; this.ops = []; }
  lineStyle(...a) { this.ops.push(["lineStyle", ...a]); return this; }
  beginFill(...a) { this.ops.push(["beginFill", ...a]); return this; }
  endFill() { return this; }
  clear() { this.rects = []; this.ops = []; return this; }
  drawRect(x, y, w, h) { this.rects.push({ x, y, width: w, height: h }); return this; }
  drawRoundedRect(x, y, w, h) { return this.drawRect(x, y, w, h); }
  drawCircle(x, y, r) { this.ops.push(["circle", x, y, r]); return this.drawRect(x - r, y - r, 2 * r, 2 * r); }
  drawPolygon(points) {
    const xs = points.filter((_, i) => i % 2 === 0), ys = points.filter((_, i) => i % 2 === 1);
    return this.drawRect(Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  }
  moveTo() { return this; }
  arc(...a) { this.ops.push(["arc", ...a]); return this; }
}

export class TextStyle {
  constructor(o) { Object.assign(this, o); }
}

export class Text extends Container {
  constructor(text, style) {
    super();
    this.style = style;
    this.text = text;
    this.resolution = 1;
  }
  get width() { return String(this.text).length * this.style.fontSize * 0.6; }
  get height() { return this.style.fontSize * 1.25; }
  get rects() { return [{ x: 0, y: 0, width: this.width, height: this.height }]; }
}

export const PIXI = { Container, Graphics, Text, TextStyle };
