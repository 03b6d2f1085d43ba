/**
 * RFC 6902 JSON Patch, the subset Vigil sends: add, remove, replace (plus
 * move/copy/test for completeness, since they cost a few lines).
 *
 * `applyPatch(doc, ops)` MUTATES `doc` in place and returns the new root
 * (the root changes only when an op targets path ""). Mutating is deliberate:
 * a table view can hold hundreds of characters and a patch touches a few
 * fields, so copying the whole view per patch would be wasteful. Callers that
 * need an unchanged copy pass `structuredClone(doc)`.
 *
 * An op that does not apply (missing parent, bad index, failed test) throws a
 * `PatchError`; the client then treats its view as broken and re-syncs.
 */

export class PatchError extends Error {
  constructor(message, op) {
    super(message);
    this.name = "PatchError";
    this.op = op;
  }
}

/** Split a JSON Pointer (RFC 6901) into unescaped tokens. */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`bad pointer ${pointer}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(arr, token, forAdd, op) {
  if (forAdd && token === "-") return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${token}`, op);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new PatchError(`index ${i} out of range`, op);
  return i;
}

function parentOf(root, tokens, op) {
  let node = root;
  for (const t of tokens.slice(0, -1)) {
    if (node === null || typeof node !== "object") throw new PatchError(`no parent for ${op.path}`, op);
    node = Array.isArray(node) ? node[arrayIndex(node, t, false, op)] : node[t];
    if (node === undefined) throw new PatchError(`no parent for ${op.path}`, op);
  }
  if (node === null || typeof node !== "object") throw new PatchError(`no parent for ${op.path}`, op);
  return node;
}

function getAt(root, pointer, op) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return root;
  const parent = parentOf(root, tokens, op);
  const last = tokens[tokens.length - 1];
  const v = Array.isArray(parent) ? parent[arrayIndex(parent, last, false, op)] : parent[last];
  if (v === undefined) throw new PatchError(`nothing at ${pointer}`, op);
  return v;
}

function addAt(root, pointer, value, op) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, op);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, op), 0, value);
  else parent[last] = value;
  return root;
}

function removeAt(root, pointer, op) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return null;
  const parent = parentOf(root, tokens, op);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false, op), 1);
  else {
    if (!Object.prototype.hasOwnProperty.call(parent, last)) throw new PatchError(`nothing to remove at ${pointer}`, op);
    delete parent[last];
  }
  return root;
}

function replaceAt(root, pointer, value, op) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, op);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(parent, last, false, op)] = value;
  else {
    if (!Object.prototype.hasOwnProperty.call(parent, last)) throw new PatchError(`nothing to replace at ${pointer}`, op);
    parent[last] = value;
  }
  return root;
}

/** Deep copy of a JSON value; values put into the document are copied so a
 * later op or the caller cannot alias them. */
function clone(v) {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}

/**
 * Apply `ops` in order to `doc` (mutating it) and return the new root.
 * @param {any} doc
 * @param {Array<{op: string, path: string, value?: any, from?: string}>} ops
 */
export function applyPatch(doc, ops) {
  let root = doc;
  for (const op of ops) {
    switch (op.op) {
      case "add": root = addAt(root, op.path, clone(op.value), op); break;
      case "remove": root = removeAt(root, op.path, op); break;
      case "replace": root = replaceAt(root, op.path, clone(op.value), op); break;
      case "move": {
        const v = getAt(root, op.from, op);
        root = removeAt(root, op.from, op);
        root = addAt(root, op.path, v, op);
        break;
      }
      case "copy": root = addAt(root, op.path, clone(getAt(root, op.from, op)), op); break;
      case "test":
        if (JSON.stringify(getAt(root, op.path, op)) !== JSON.stringify(op.value)) throw new PatchError(`test failed at ${op.path}`, op);
        break;
      default: throw new PatchError(`unknown op ${op.op}`, op);
    }
  }
  return root;
}
