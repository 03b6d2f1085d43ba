import js from "@eslint/js";
import globals from "globals";

/** Foundry provides these globals at runtime; the module reads them lazily. */
const foundryGlobals = {
  Hooks: "readonly", game: "readonly", canvas: "readonly", ui: "readonly",
  CONFIG: "readonly", foundry: "readonly", PIXI: "readonly", ChatMessage: "readonly",
};

/**
 * One configuration for all of Vigil's JavaScript: this module and the
 * server's pages (server/vigil/web). `npm run lint` runs it from the
 * repository root, so patterns start with `**` to hold from either folder.
 */
export default [
  // scripts/vendor is generated from pinned npm packages (tools/build-vendor.mjs; test/vendor.test.mjs checks drift).
  { ignores: ["**/node_modules/**", "**/dist/**", "**/build/**", "server/vigil/assets/**", "**/scripts/vendor/**"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...foundryGlobals },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/tools/**", "**/test/**"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
