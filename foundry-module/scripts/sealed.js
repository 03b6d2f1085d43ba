/**
 * Sealed, signed boxes: how a player's Vigil token travels from the active
 * GM's browser to that player's browser only, through channels that every
 * client can read (the module socket, which reaches every other client) or
 * whose sender nobody is told (a v13 query: foundryvtt/foundryvtt#13418).
 *
 * - Each browser keeps, per world and user, an X25519 key (to open boxes)
 *   and an Ed25519 key (to sign them), and publishes both public halves in a
 *   flag of its own (one per device) on its User document, which only that
 *   user or a GM may change.
 * - The GM seals: X25519 between a fresh ephemeral key and the recipient's
 *   published key, HKDF-SHA-256 over both public keys and the claims, then
 *   XChaCha20-Poly1305 with the claims as associated data. Only the holder of
 *   the recipient's secret can open it.
 * - The GM signs the whole box (claims included) with its Ed25519 key; the
 *   recipient checks it against the key in the flag of the user the claims
 *   name as sender, and that this user is a GM. A player can seal a box to
 *   another player's public key, but cannot sign it as a GM, so a planted
 *   token is refused. The claims also name the recipient, world and Vigil
 *   server, and when it was made (an older box never replaces a newer one).
 *
 * Pure JavaScript (the audited noble libraries, vendored as
 * vendor/noble.js): `crypto.subtle` exists only in secure contexts, and a
 * Foundry served over plain HTTP on a LAN address is not one. Only
 * `crypto.getRandomValues`, present in every context, is used.
 */

import { x25519, ed25519, xchacha20poly1305, hkdf, sha256 } from "./vendor/noble.js";

export const BOX_VERSION = 2;
const enc = new TextEncoder();
const dec = new TextDecoder();

export const b64 = (bytes) => {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
export const unb64 = (str) => Uint8Array.from(atob(String(str)), (c) => c.charCodeAt(0));

const random = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));

/** A JSON text with keys sorted, so both sides sign and bind the same bytes. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Fresh secrets for one browser, world and user (kept in a client setting). */
export function newSecrets() {
  return { box: b64(random(32)), sign: b64(random(32)) };
}

/** The public halves to publish in the user's flag. */
export function publicKeys(secrets) {
  return {
    box: b64(x25519.getPublicKey(unb64(secrets.box))),
    sign: b64(ed25519.getPublicKey(unb64(secrets.sign))),
  };
}

/** Whether `keys` looks like a published key pair (a flag is anyone's guess). */
export function isPublicKeys(keys) {
  try {
    return unb64(keys?.box).length === 32 && unb64(keys?.sign).length === 32;
  } catch {
    return false;
  }
}

function boxKey(shared, epk, rpk, aad) {
  const salt = new Uint8Array([...epk, ...rpk]);
  return hkdf(sha256, shared, salt, aad, 32);
}

/**
 * Seal `payload` (JSON) to `recipient` (its published keys) and sign it.
 * @param {object} claims {world, to, from, server, iat}: bound as associated
 *   data and covered by the signature
 * @param {{sign: string}} senderSecrets the sealing GM's secrets
 */
export function seal(recipient, payload, claims, senderSecrets) {
  const rpk = unb64(recipient.box);
  const esk = random(32);
  const epk = x25519.getPublicKey(esk);
  const aad = enc.encode(canonical(claims));
  const key = boxKey(x25519.getSharedSecret(esk, rpk), epk, rpk, aad);
  const nonce = random(24);
  const ct = xchacha20poly1305(key, nonce, aad).encrypt(enc.encode(JSON.stringify(payload)));
  const unsigned = { v: BOX_VERSION, claims, epk: b64(epk), nonce: b64(nonce), ct: b64(ct) };
  const sig = ed25519.sign(enc.encode(canonical(unsigned)), unb64(senderSecrets.sign));
  return { ...unsigned, sig: b64(sig) };
}

/** Whether `box` is signed by the holder of `senderKeys` (published keys). */
export function verify(box, senderKeys) {
  try {
    const { sig, ...unsigned } = box;
    return ed25519.verify(unb64(sig), enc.encode(canonical(unsigned)), unb64(senderKeys.sign));
  } catch {
    return false;
  }
}

/** Open a box with this browser's secrets; throws if it was not sealed to
 * them or was changed on the way. Check `verify` and the claims first. */
export function open(box, secrets) {
  const rsk = unb64(secrets.box);
  const rpk = x25519.getPublicKey(rsk);
  const epk = unb64(box.epk);
  const aad = enc.encode(canonical(box.claims));
  const key = boxKey(x25519.getSharedSecret(rsk, epk), epk, rpk, aad);
  const pt = xchacha20poly1305(key, unb64(box.nonce), aad).decrypt(unb64(box.ct));
  return JSON.parse(dec.decode(pt));
}
