import js from "@eslint/js";
import globals from "globals";

/** Foundry provides these globals at runtime; the module reads them lazily. */
const foundryGlobals = {
  Hooks: "readonly", game: "readonly", canvas: "readonly", ui: "readonly",
  CONFIG: "readonly", foundry: "readonly", PIXI: "readonly", ChatMessage: "readonly",
};

export default [
  { ignores: ["node_modules/**", "dist/**"] },
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
    files: ["tools/**", "test/**"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
