/** Just enough DOM for the HUD button, the status pill and the window's
 * content (Node has no DOM): elements, classes, attributes (and [attr] / [attr="v"]
 * selectors), form values, click listeners. */
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
  appendChild(c) { this.children.push(c); c.parentNode = this; if (this.tagName === "SELECT" && this.children.length === 1) this.value = c.value; return c; }
  append(...cs) { cs.forEach((c) => this.appendChild(c)); }
  replaceChildren(...cs) { this.children = []; this.append(...cs); }
  addEventListener(type, fn) { (this.listeners[type] ??= []).push(fn); }
  click() { for (const fn of this.listeners.click ?? []) fn({ preventDefault() {} }); }
  matches(sel) {
    if (/^[a-z]+$/.test(sel)) return this.tagName === sel.toUpperCase();
    const attr = /^\[([\w-]+)(?:="(.*)")?\]$/.exec(sel);
    if (attr) {
      const [, name, want] = attr;
      const have = this.attributes[name] ?? (name.startsWith("data-") ? this.dataset[name.slice(5)] : undefined);
      return want === undefined ? have !== undefined : have === want;
    }
    const classes = sel.split(".").filter(Boolean);
    const mine = this.className.split(/\s+/);
    return classes.every((c) => mine.includes(c));
  }
  querySelector(sel) { return this.querySelectorAll(sel)[0] ?? null; }
  querySelectorAll(sel) {
    const out = [];
    const walk = (n) => { for (const c of n.children) { if (c.matches(sel)) out.push(c); walk(c); } };
    walk(this);
    return out;
  }
  get text() { return [this.textContent, ...this.children.map((c) => c.text)].join(" ").trim(); }
}

export class FakeDocument {
  constructor() { this.body = new FakeElement("body", this); }
  createElement(tag) { return new FakeElement(tag, this); }
}
