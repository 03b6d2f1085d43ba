// What the module takes from the audited noble libraries (bundled by
// tools/build-vendor.mjs into scripts/vendor/noble.js; never import
// node_modules from the module: Foundry loads modules by URL).
export { x25519, ed25519 } from "@noble/curves/ed25519.js";
export { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
export { hkdf } from "@noble/hashes/hkdf.js";
export { sha256 } from "@noble/hashes/sha2.js";
