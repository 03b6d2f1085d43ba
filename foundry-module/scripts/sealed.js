/**
 * Sealing a player's token to that player's browser, for Foundry v12, whose
 * module socket reaches every connected client: ECDH P-256 between the
 * player's key pair and a fresh ephemeral one, HKDF-SHA-256 to an AES-GCM key,
 * AES-GCM with the recipient's identity as associated data. Only the holder
 * of the player's private key (generated non-extractable in that browser) can
 * open it. WebCrypto only, so it runs in browsers and in Node 20 unchanged.
 */

const ECDH = { name: "ECDH", namedCurve: "P-256" };
const enc = new TextEncoder();
const dec = new TextDecoder();
const subtle = () => globalThis.crypto.subtle;

const b64 = (buf) => {
  const bytes = new Uint8Array(buf);
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
const unb64 = (str) => Uint8Array.from(atob(str), (c) => c.charCodeAt(0));

/** A key pair for this browser session; the private key cannot be exported. */
export async function generateKeyPair() {
  const pair = await subtle().generateKey(ECDH, false, ["deriveBits"]);
  const publicJwk = await subtle().exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y } };
}

async function aesKey(privateKey, publicKey, salt, context) {
  const shared = await subtle().deriveBits({ name: "ECDH", public: publicKey }, privateKey, 256);
  const hkdf = await subtle().importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  return subtle().deriveKey(
    { name: "HKDF", hash: "SHA-256", salt, info: enc.encode(context) },
    hkdf,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/**
 * Encrypt `payload` (JSON) for the holder of `recipientJwk`.
 * @param {string} context binds the box to its recipient (e.g. world + user id)
 */
export async function seal(recipientJwk, payload, context) {
  const recipient = await subtle().importKey("jwk", { ...recipientJwk, ext: true }, ECDH, false, []);
  const eph = await subtle().generateKey(ECDH, true, ["deriveBits"]);
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const key = await aesKey(eph.privateKey, recipient, salt, context);
  const ct = await subtle().encrypt({ name: "AES-GCM", iv, additionalData: enc.encode(context) }, key, enc.encode(JSON.stringify(payload)));
  const epk = await subtle().exportKey("jwk", eph.publicKey);
  return { v: 1, epk: { kty: epk.kty, crv: epk.crv, x: epk.x, y: epk.y }, salt: b64(salt), iv: b64(iv), ct: b64(ct) };
}

/** Open a sealed box with this browser's private key; throws if it was not
 * sealed to it (or was tampered with, or for another context). */
export async function open(privateKey, box, context) {
  const epk = await subtle().importKey("jwk", { ...box.epk, ext: true }, ECDH, false, []);
  const key = await aesKey(privateKey, epk, unb64(box.salt), context);
  const pt = await subtle().decrypt({ name: "AES-GCM", iv: unb64(box.iv), additionalData: enc.encode(context) }, key, unb64(box.ct));
  return JSON.parse(dec.decode(pt));
}
