/**
 * Validators for every wire message, from schemas/protocol.schema.json
 * (generated from the server's protocol.py — the one source of truth).
 * Draft 2020-12, hence ajv/dist/2020. `strict: false` because the schema
 * carries msgspec's OpenAPI-style "discriminator" annotations next to anyOf.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const path = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "schemas", "protocol.schema.json");
const schema = JSON.parse(readFileSync(path, "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...schema, $id: "vigil:protocol" });

export const validateClient = ajv.compile({ $ref: "vigil:protocol#/properties/client" });
export const validateServer = ajv.compile({ $ref: "vigil:protocol#/properties/server" });

/** Throw with ajv's errors if `msg` does not match its direction's schema. */
export function assertValid(dir, msg) {
  const v = dir === "out" ? validateClient : validateServer;
  if (!v(msg)) throw new Error(`${dir} message does not match the schema: ${JSON.stringify(msg).slice(0, 300)}\n${ajv.errorsText(v.errors)}`);
}
