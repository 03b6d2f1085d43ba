/**
 * scripts/vendor/noble.js is what tools/build-vendor.mjs makes from the
 * pinned @noble packages (package.json pins exact versions), licence beside
 * it; and the module's crypto works where crypto.subtle does not exist.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { bundle, licence, OUT, LICENCE_OUT, PACKAGES } from "../tools/build-vendor.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url)));

test("the vendored bundle and its licence are exactly what the build script makes", async () => {
  assert.equal(readFileSync(OUT, "utf8"), await bundle(), "run node tools/build-vendor.mjs");
  assert.equal(readFileSync(LICENCE_OUT, "utf8"), licence());
  for (const name of PACKAGES) assert.match(pkg.devDependencies[name], /^\d+\.\d+\.\d+$/, `${name} pinned to one version`);
});

test("the bundle never touches crypto.subtle (absent in insecure contexts)", () => {
  assert.ok(!readFileSync(OUT, "utf8").includes("subtle"));
});
