/**
 * Render an event or error code as a sentence. Codes and `{name}`
 * placeholders come from schemas/codes.json (the server's English catalogue)
 * and Foundry's lang files use the same syntax as game.i18n.format, so one
 * function serves the dashboard and the module.
 */

/** Replace each `{name}` with params[name]; unknown placeholders stay visible
 * so a missing parameter is noticed rather than silently dropped. */
export function format(template, params = {}) {
  return String(template).replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, key) => {
    const v = params?.[key];
    if (v === undefined || v === null) return whole;
    return Array.isArray(v) ? v.join(", ") : String(v);
  });
}

/**
 * @param {string} code e.g. "mettle.pain_taken" or "forbidden"
 * @param {object} params
 * @param {object|((code:string)=>string|undefined)} catalogue a code→template map
 *   (codes.json's shape, nested or flat) or a lookup function
 * @returns {string} the sentence, or the code itself with its params when unknown
 */
export function render(code, params = {}, catalogue = {}) {
  let template;
  if (typeof catalogue === "function") template = catalogue(code);
  else if (catalogue) template = lookup(catalogue, code);
  if (typeof template !== "string") {
    const p = params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : "";
    return `${code}${p}`;
  }
  return format(template, params);
}

function lookup(catalogue, code) {
  if (typeof catalogue[code] === "string") return catalogue[code];
  for (const section of ["events", "errors", "codes"]) {
    const s = catalogue[section];
    if (s && typeof s[code] === "string") return s[code];
    if (s && typeof s[code]?.en === "string") return s[code].en;
  }
  if (typeof catalogue[code]?.en === "string") return catalogue[code].en;
  // dotted path into a nested catalogue
  let node = catalogue;
  for (const part of code.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}
