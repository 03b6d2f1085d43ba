/**
 * Node module hooks that let Node load the server's pages
 * (server/vigil/web/*.js) as the browser does: their absolute
 * `/client/…` imports are the module's scripts/ (as `vigil serve` maps
 * them), and they are ES modules although no package.json says so.
 * Registered by tools/check-words.mjs (node:module register).
 */

const SCRIPTS = new URL("../scripts/", import.meta.url);
const WEB = new URL("../../server/vigil/web/", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("/client/")) return next(new URL(specifier.slice("/client/".length), SCRIPTS).href, context);
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.startsWith(WEB) && url.endsWith(".js")) return next(url, { ...context, format: "module" });
  return next(url, context);
}
