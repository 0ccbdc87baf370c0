/**
 * Dredd 14 turns OAS 3.1 schemas into JSON Schema through API Elements, which keeps only the first of
 * `type: [object, "null"]` and drops `oneOf: [X, {type: null}]`, so it fails every nullable field the
 * reference documents (a call's dynamicVariables, an integration's authentication). The hooks hand
 * Dredd the spec's own response schema instead, as a self-contained draft-07 document that gavel's
 * validator (ajv 6, a different implementation than the suite's) checks on its own.
 */
import { operations, resolvePointer, spec, type Json, type JsonObject } from "../lib/spec.js";

const NON_STANDARD_FORMATS = new Set(["int32", "int64", "float", "double"]);

function rewrite(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== "object") return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string")
      out.$ref = value.replace("#/components/schemas/", "#/definitions/");
    else if (key === "format" && typeof value === "string" && NON_STANDARD_FORMATS.has(value)) continue;
    else out[key] = rewrite(value);
  }
  return out;
}

/** `${METHOD} ${path template} ${status}` -> draft-07 schema of that 2xx response body. */
export function dreddBodySchemas(): Record<string, JsonObject> {
  const definitions = rewrite((spec.components as JsonObject).schemas as Json) as JsonObject;
  const out: Record<string, JsonObject> = {};
  for (const op of operations.values()) {
    for (const [status, pointer] of Object.entries(op.bodySchemas)) {
      if (!pointer || !status.startsWith("2")) continue;
      const schema = rewrite(resolvePointer(spec, pointer) as Json) as JsonObject;
      out[`${op.method} ${op.path} ${status}`] = {
        $schema: "http://json-schema.org/draft-07/schema#",
        ...schema,
        definitions,
      };
    }
  }
  return out;
}
