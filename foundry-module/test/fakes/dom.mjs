/** Just enough DOM for the HUD button, the status pill, the window's
 * content and the command forms (Node has no DOM): elements, classes,
 * attributes (and [attr] / [attr="v"] selectors), form values, listeners,
 * dispatchEvent, remove(). Only what browsers really do. */
export class FakeElement {
  constructor(tag, ownerDocument) {
    this.tagName = tag.toUpperCase();
    this.ownerDocument = ownerDocument;
    this.children = [];
    this.attributes = {};
    this.dataset = {};
    this.listeners = {};
    this.textContent = "";
    this.className = "";
    this.value = "";
    this.checked = false;
  }
  get type() { return this.attributes.type ?? ""; }
  set type(v) { this.attributes.type = String(v); }
  setAttribute(k, v) { this.attributes[k] = String(v); if (k === "class") this.className = String(v); if (k === "value") this.value = String(v); }
  getAttribute(k) { return this.attributes[k] ?? null; }
  hasAttribute(k) { return k in this.attributes; }
  removeAttribute(k) { delete this.attributes[k]; }
  remove() {
    if (!this.parentNode) return;
    this.parentNode.children = this.parentNode.children.filter((c) => c !== this);
    this.parentNode = null;
  }
  appendChild(c) { this.children.push(c); c.parentNode = this; if (this.tagName === "SELECT" && this.children.length === 1) this.value = c.value; return c; }
  append(...cs) { cs.forEach((c) => this.appendChild(c)); }
  replaceChildren(...cs) { this.children = []; this.append(...cs); }
  addEventListener(type, fn) { (this.listeners[type] ??= []).push(fn); }
  click() { for (const fn of this.listeners.click ?? []) fn({ preventDefault() {} }); }
  dispatchEvent(ev) { for (const fn of this.listeners[ev.type] ?? []) fn(ev); return !ev.defaultPrevented; }
  matches(sel) {
    // tag, .classes and one [attr] or [attr="v"], in that order (a compound selector)
    const m = /^([a-z0-9]*)((?:\.[\w-]+)*)(?:\[([\w-]+)(?:="(.*)")?\])?$/.exec(sel);
    if (!m) throw new Error(`fake DOM: unsupported selector ${sel}`);
    const [, tag, classes, name, want] = m;
    if (tag && this.tagName !== tag.toUpperCase()) return false;
    const mine = this.className.split(/\s+/);
    if (!classes.split(".").filter(Boolean).every((c) => mine.includes(c))) return false;
    if (name === undefined) return true;
    const have = this.attributes[name] ?? (name.startsWith("data-") ? this.dataset[name.slice(5)] : undefined);
    return want === undefined ? have !== undefined : have === want;
  }
  querySelector(sel) { return this.querySelectorAll(sel)[0] ?? null; }
  /** Compound selectors, and descendant combinators between them ("a b"). */
  querySelectorAll(sel) {
    const [first, ...rest] = sel.trim().split(/\s+(?![^[]*\])/);
    const out = [];
    const walk = (n) => { for (const c of n.children) { if (c.matches(first)) out.push(c); walk(c); } };
    walk(this);
    if (!rest.length) return out;
    const found = new Set(out.flatMap((n) => n.querySelectorAll(rest.join(" "))));
    return [...found];
  }
  get text() { return [this.textContent, ...this.children.map((c) => c.text)].join(" ").trim(); }
  /** The element's markup, as a browser serializes it (attributes and text
   * escaped; property values such as `.value` are not markup). */
  get outerHTML() {
    const esc = (v) => String(v).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
    const tag = this.tagName.toLowerCase();
    const attrs = Object.entries(this.attributes).map(([k, v]) => ` ${k}="${esc(v)}"`).join("");
    return `<${tag}${attrs}>${esc(this.textContent)}${this.children.map((c) => c.outerHTML).join("")}</${tag}>`;
  }
  focus() { this.ownerDocument.activeElement = this; }
}

export class FakeDocument {
  constructor() { this.body = new FakeElement("body", this); this.activeElement = null; }
  createElement(tag) { return new FakeElement(tag, this); }
}
