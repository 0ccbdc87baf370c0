/**
 * JSON Schema validators compiled once per level from the bundled spec.
 *
 * Level `documented` must never fail a deployment on a decision the kit took itself, so every schema
 * node that carries `x-assumption` loses the restrictions it adds (enum, const, bounds, pattern,
 * required, closed objects), and a property carrying `x-assumption` is no longer required by its parent.
 * Level `assumed` is the spec as written and closes every response object (unknown properties fail).
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { createOpenApiAjv } from "../../mock-server/core/openapi-ajv.js";
import { spec, type Json, type JsonObject } from "./spec.js";

export type Level = "documented" | "assumed";

const RELAXED_KEYWORDS = [
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "uniqueItems",
  "pattern",
  "required",
];

/**
 * Nodes whose x-assumption is about something other than their restrictions, so those stay documented.
 * CallStatus: the enum is the reference's section 3; only the transitions are assumed.
 */
const KEEP_DOCUMENTED = new Set(["/components/schemas/CallStatus"]);

function isObject(node: Json | undefined): node is JsonObject {
  return node !== null && typeof node === "object" && !Array.isArray(node);
}

function relax(node: Json, pointer: string): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => relax(child, `${pointer}/${i}`));
    return;
  }
  if (!isObject(node)) return;
  if (node["x-assumption"] !== undefined && !KEEP_DOCUMENTED.has(pointer)) {
    for (const keyword of RELAXED_KEYWORDS) delete node[keyword];
    if (node.additionalProperties === false) delete node.additionalProperties;
  }
  const properties = node.properties;
  if (isObject(properties) && Array.isArray(node.required)) {
    const assumed = Object.keys(properties).filter(
      (k) => isObject(properties[k]) && (properties[k] as JsonObject)["x-assumption"] !== undefined,
    );
    node.required = node.required.filter((k) => !assumed.includes(k as string));
  }
  for (const [key, child] of Object.entries(node)) relax(child, `${pointer}/${key}`);
}

/** Closes object schemas; members of an allOf stay open and their parent closes with unevaluatedProperties. */
function close(doc: JsonObject): void {
  const members = new Set<JsonObject>();
  const resolve = (n: Json): Json => (isObject(n) && typeof n.$ref === "string" ? resolveRef(doc, n.$ref) : n);
  const collect = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!isObject(node)) return;
    if (Array.isArray(node.allOf))
      for (const m of node.allOf) {
        const r = resolve(m);
        if (isObject(r)) members.add(r);
      }
    Object.values(node).forEach(collect);
  };
  const apply = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(apply);
    if (!isObject(node)) return;
    const open = node.additionalProperties === undefined && node.unevaluatedProperties === undefined;
    if (open && !members.has(node) && (Array.isArray(node.allOf) || isObject(node.properties)))
      node.unevaluatedProperties = false;
    Object.values(node).forEach(apply);
  };
  const roots = [doc.components, doc.paths, doc.webhooks] as Json[];
  roots.forEach(collect);
  roots.forEach(apply);
}

function resolveRef(doc: JsonObject, ref: string): Json {
  let node: Json = doc;
  for (const raw of ref.replace(/^#\//, "").split("/"))
    node = (node as JsonObject)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}

function buildAjv(level: Level) {
  const doc = structuredClone(spec);
  if (level === "documented") relax(doc, "");
  else close(doc);
  const ajv = createOpenApiAjv();
  ajv.addSchema(doc as object, "spec.json");
  return ajv;
}

const ajvs = new Map<Level, ReturnType<typeof buildAjv>>();
const compiled = new Map<string, ValidateFunction>();

/** Validator of the schema at `pointer` (a JSON pointer into generated/openapi.json) at `level`. */
export function validatorFor(pointer: string, level: Level): ValidateFunction {
  const key = `${level}:${pointer}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  let ajv = ajvs.get(level);
  if (!ajv) ajvs.set(level, (ajv = buildAjv(level)));
  const validate = ajv.compile({ $ref: `spec.json#${pointer}` });
  compiled.set(key, validate);
  return validate;
}

export type { ErrorObject };
