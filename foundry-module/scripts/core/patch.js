/**
 * The patch of a view, as the server sends it (`changes` of a "patch"
 * message; the server's vigil/treepatch.py makes it): an object mirroring
 * the view, where each key's value is
 *  - a number, string, boolean or null: set this member to it,
 *  - `[v]`: set this member to v, a list or an object (added or replaced),
 *  - `[]`: remove this member (it must be there),
 *  - an object: descend into this member (an object that must be there)
 *    and apply those changes to it.
 * `{}` changes nothing (a rev this audience sees nothing of). Lists are
 * replaced whole, so no change is ever addressed by an index; naming each
 * member once instead of repeating a path per change keeps a patch small.
 *
 * `applyChanges(doc, changes)` MUTATES `doc` in place and returns it.
 * Mutating is deliberate: a table view can hold hundreds of characters and a
 * patch touches a few fields, so copying the whole view per patch would be
 * wasteful. Callers that need an unchanged copy pass `structuredClone(doc)`.
 *
 * Changes that do not fit the document (a member to descend into missing or
 * not an object, a member to remove absent, anything but `[v]`, `[]` or an
 * object) throw a `PatchError`; the client then treats its view as broken
 * and re-syncs. Changes before the misfit are already applied: the view is
 * thrown away anyway.
 */

export class PatchError extends Error {
  constructor(message, key) {
    super(message);
    this.name = "PatchError";
    this.key = key;
  }
}

const own = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Deep copy of a JSON value: what is set in the document is copied, so the
 * caller (who may keep the changes) and the document never alias. */
function clone(v) {
  return v !== null && typeof v === "object" ? JSON.parse(JSON.stringify(v)) : v;
}

/**
 * Apply `changes` to the object `doc` (mutating it) and return `doc`.
 * @param {object} doc
 * @param {object} changes
 */
export function applyChanges(doc, changes) {
  if (!isObject(changes)) throw new PatchError("changes must be an object");
  if (!isObject(doc)) throw new PatchError("no object to change");
  for (const [key, change] of Object.entries(changes)) {
    if (Array.isArray(change)) {
      if (change.length === 1) {
        doc[key] = clone(change[0]);
      } else if (change.length > 1) {
        throw new PatchError(`a change of ${key} holds ${change.length} values`, key);
      } else if (own(doc, key)) {
        delete doc[key];
      } else {
        throw new PatchError(`nothing to remove at ${key}`, key);
      }
    } else if (isObject(change)) {
      if (!own(doc, key) || !isObject(doc[key])) throw new PatchError(`no object to change at ${key}`, key);
      applyChanges(doc[key], change);
    } else if (change === null || ["string", "number", "boolean"].includes(typeof change)) {
      doc[key] = change;
    } else {
      throw new PatchError(`the change of ${key} is neither a value, [value], [] nor an object`, key);
    }
  }
  return doc;
}
