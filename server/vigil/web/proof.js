/**
 * Verify a table's dice in the browser, from its public history alone
 * (docs/dice.md). Plain JavaScript with its own SHA-256 and HMAC: it needs
 * no WebCrypto (absent on plain HTTP) and no library, and shares no code
 * with the server's Python, so a sceptical player checks the dice with a
 * second implementation of the documented derivation.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4) of `bytes`, a Uint8Array. */
export function sha256(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + next[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]);
  return out;
}

/** HMAC-SHA-256 (RFC 2104) of `message` under `key`, both Uint8Arrays. */
export function hmacSha256(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}

export const hexToBytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
export const bytesToHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** The commitment to a seed (hex): its SHA-256, lowercase hex. */
export const commitment = (seedHex) => bytesToHex(sha256(hexToBytes(seedHex)));

const encoder = new TextEncoder();

/** A uniform value in 0..n-1 for one draw, by rejection (docs/dice.md). */
function uniform(key, at, position, n) {
  const space = 2 ** 32;
  const limit = space - (space % n);
  for (let attempt = 0; ; attempt++) {
    const lines = ["vigil-dice-1", at.table, at.epoch, at.period, at.rev, position, at.nonce ?? "", attempt];
    const digest = hmacSha256(key, encoder.encode(lines.join("\n")));
    const sample = new DataView(digest.buffer).getUint32(0);
    if (sample < limit) return sample % n;
  }
}

/**
 * What each recorded draw must be: for [sides, face] a face 1..sides, for
 * [[weights…], index] the index of the Cast Lot (MET-02). `at` names the
 * change: {table, epoch, period, rev, nonce}.
 */
export function expected(seedHex, at, draws) {
  const key = hexToBytes(seedHex);
  return draws.map(([what], position) => {
    if (Array.isArray(what)) {
      const total = what.reduce((s, w) => s + w, 0);
      let value = uniform(key, at, position, total);
      for (let i = 0; i < what.length; i++) {
        if (value < what[i]) return i;
        value -= what[i];
      }
      return -1;
    }
    return uniform(key, at, position, what) + 1;
  });
}

// A table export's log entries are arrays in this order of fields (the
// server's LogEntry, docs/dice.md "What a verifier reads").
const ENTRY = { rev: 2, command: 7, events: 8, dice: 14 };

/**
 * The history a verification reads, from a table export (`vigil-table`)
 * or a downloaded history (`vigil-history`): {table, epoch, entries, names}.
 */
export function readDocument(doc) {
  if (doc?.format === "vigil-table") {
    const names = Object.fromEntries(Object.entries(doc.doc?.meta ?? {}).map(([id, m]) => [id, m.name ?? id]));
    const entries = (doc.history ?? []).map((e) => ({
      rev: e[ENTRY.rev],
      command: e[ENTRY.command],
      events: e[ENTRY.events],
      dice: e[ENTRY.dice] ?? null,
    }));
    return { table: doc.table.id, epoch: doc.table.epoch, entries, names };
  }
  if (doc?.format === "vigil-history") return { names: {}, ...doc };
  // The code names the words the page shows (VIGIL.Verify.not_a_history); the message is for logs.
  throw Object.assign(new Error("neither a vigil-table export nor a vigil-history"), { code: "not_a_history" });
}

/** Every integer in a JSON value (a list of faces, a DRYH roll's pools). */
const ints = (value) => {
  if (typeof value === "number" && Number.isInteger(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(ints);
  if (value && typeof value === "object") return Object.values(value).flatMap(ints);
  return [];
};

/** Every face an entry's events show (what people saw): each must be one the period drew. */
export const shownFaces = (entry) => (entry.events ?? []).flatMap((e) => [...ints(e.params?.faces), ...ints(e.params?.dice)]);

/** Whether `shown` is part of `drawn`, counting repeats. */
function within(shown, drawn) {
  const left = new Map();
  for (const f of drawn) left.set(f, (left.get(f) ?? 0) + 1);
  for (const f of shown) {
    const n = left.get(f) ?? 0;
    if (n === 0) return false;
    left.set(f, n - 1);
  }
  return true;
}

const isHex = (text) => typeof text === "string" && /^(?:[0-9a-f]{2})*$/.test(text);
const faceList = (faces) => (faces.length ? faces.join(", ") : "—");
const DICE_FIELD_WORDS = ["dice", "faces", "lot"];

/**
 * Every roll of `source`: {status, rev, entry, params}. Statuses are those
 * of docs/dice.md: verified; not verifiable (manual_dice, correction,
 * unrevealed); failed (mismatch, bad_seed, bad_commitment, bad_order).
 * `params.roll` is left to the caller (it names the roll in its words).
 */
export function verify(source) {
  const findings = [];
  const seeds = new Map();
  const announced = new Map();
  let previous = null;
  for (const entry of source.entries) {
    if (previous !== null && entry.rev <= previous) {
      findings.push({ status: "bad_order", rev: entry.rev, entry, params: { rev: entry.rev, previous } });
    }
    previous = entry.rev;
    for (const event of entry.events ?? []) {
      if (event.code !== "dice_revealed") continue;
      const { period, seed, commitment: commit, next_period: next, next_commitment: nextCommit } = event.params ?? {};
      if (period !== null && period !== undefined && typeof seed === "string" && typeof commit === "string") {
        if (!isHex(seed) || commitment(seed) !== commit) {
          findings.push({ status: "bad_seed", rev: entry.rev, entry, params: { period, commitment: commit } });
        } else {
          seeds.set(period, { seed, commit });
        }
        const before = announced.get(period);
        if (before !== undefined && before !== commit) {
          findings.push({ status: "bad_commitment", rev: entry.rev, entry, params: { period, expected: before, logged: commit } });
        }
      }
      if (next !== null && next !== undefined && typeof nextCommit === "string") announced.set(next, nextCommit);
    }
  }
  for (const entry of source.entries) {
    for (const event of entry.events ?? []) {
      const field = String(event.params?.field ?? "");
      if (event.code === "corrected" && DICE_FIELD_WORDS.some((w) => field.includes(w))) {
        findings.push({ status: "correction", rev: entry.rev, entry, params: {} });
      }
    }
    const record = entry.dice;
    if (!record) continue;
    const draws = record.draws ?? [];
    if (record.manual) {
      findings.push({ status: "manual_dice", rev: entry.rev, entry, params: { faces: faceList(entry.command?.faces ?? []) } });
      if (!draws.length) continue;
    }
    const known = seeds.get(record.period);
    if (!known) {
      findings.push({ status: "unrevealed", rev: entry.rev, entry, params: { period: record.period } });
      continue;
    }
    if (record.commitment !== known.commit) {
      findings.push({
        status: "bad_commitment", rev: entry.rev, entry,
        params: { period: record.period, expected: known.commit, logged: record.commitment },
      });
      continue;
    }
    const at = { table: source.table, epoch: source.epoch, period: record.period, rev: entry.rev, nonce: record.nonce ?? "" };
    const logged = draws.map((d) => d[1]);
    const want = expected(known.seed, at, draws);
    const same = want.length === logged.length && want.every((v, i) => v === logged[i]);
    const shown = shownFaces(entry);
    const dice = draws.filter(([what]) => !Array.isArray(what)).map((d) => d[1]);
    if (!same) {
      findings.push({ status: "mismatch", rev: entry.rev, entry, params: { expected: faceList(want), logged: faceList(logged) } });
    } else if (!within(shown, dice)) {
      findings.push({ status: "mismatch", rev: entry.rev, entry, params: { expected: faceList(dice), logged: faceList(shown) } });
    } else {
      findings.push({ status: "verified", rev: entry.rev, entry, params: { faces: faceList(logged) } });
    }
  }
  return findings;
}

export const FAILURES = new Set(["mismatch", "bad_seed", "bad_commitment", "bad_order"]);
export const UNVERIFIABLE = new Set(["manual_dice", "correction", "unrevealed"]);
