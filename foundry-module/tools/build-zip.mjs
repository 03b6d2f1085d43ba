#!/usr/bin/env node
/**
 * Build the installable module: dist/vigil.zip (what module.json's
 * "download" points at) and dist/module.json (what "manifest" points at).
 * The zip holds the module folder's runtime files only — no tests, no
 * node_modules. Uses the system `zip` (Info-ZIP), present on CI images, so
 * the module keeps no runtime dependency.
 *
 *   node tools/build-zip.mjs [--version 0.2.0] [--manifest URL] [--download URL]
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stage = join(dist, "vigil");
const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

const manifest = JSON.parse(readFileSync(join(root, "module.json"), "utf8"));
if (arg("version")) manifest.version = arg("version");
if (arg("manifest")) manifest.manifest = arg("manifest");
if (arg("download")) manifest.download = arg("download");

rmSync(dist, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const f of ["scripts", "styles", "lang", "README.md"]) cpSync(join(root, f), join(stage, f), { recursive: true });
writeFileSync(join(stage, "module.json"), JSON.stringify(manifest, null, 2) + "\n");
writeFileSync(join(dist, "module.json"), JSON.stringify(manifest, null, 2) + "\n");
// Foundry expects the files at the zip's top level (module.json at its root).
execFileSync("zip", ["-qr", join(dist, "vigil.zip"), "."], { cwd: stage });
console.log(`dist/vigil.zip and dist/module.json (version ${manifest.version})`);
