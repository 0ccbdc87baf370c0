/**
 * Reduces a Schema Object (OpenAPI 3.1 section 4.8.24) to the facts the reference tables compare:
 * type, format, enum, default, bounds, nullability (3.1 type arrays or oneOf/anyOf with null), `$ref` target.
 */
import { type Json, type JsonObject, assumptionOf, deref, isObject, refName } from "./openapi-doc.js";

export interface FieldShape {
  type?: string;
  format?: string;
  enum?: Json[];
  default?: Json;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  nullable: boolean;
  /** How null is allowed: "type-array" (`type: [x, "null"]`), "oneOf"/"anyOf" with a `type: "null"` branch. */
  nullableVia?: "type-array" | "oneOf" | "anyOf";
  ref?: string;
  items?: FieldShape;
  values?: string;
  assumption?: string;
}

const isNull = (s: Json): boolean =>
  isObject(s) && s.type === "null" && Object.keys(s).every((k) => k === "type" || k === "description");

export function fieldShape(doc: JsonObject, node: Json | undefined): FieldShape {
  const own = isObject(node) ? node : {};
  const shape: FieldShape = { nullable: false, assumption: assumptionOf(doc, node) };
  let schema: Json | undefined = node;
  for (const combinator of ["oneOf", "anyOf"] as const) {
    const branches = own[combinator];
    if (Array.isArray(branches) && branches.length === 2 && branches.some(isNull)) {
      shape.nullable = true;
      shape.nullableVia = combinator;
      schema = branches.find((b) => !isNull(b));
      shape.assumption ??= assumptionOf(doc, schema);
    }
  }
  shape.ref = refName(schema);
  const resolved = deref(doc, schema);
  if (!isObject(resolved)) return shape;
  // Keywords next to a $ref (allowed in 3.1) override those of the target.
  const merged: JsonObject = { ...resolved, ...(schema === node ? own : isObject(schema) ? schema : {}) };
  const types = Array.isArray(merged.type) ? merged.type : merged.type === undefined ? [] : [merged.type];
  if (types.includes("null")) {
    shape.nullable = true;
    shape.nullableVia ??= "type-array";
  }
  const nonNull = types.filter((t) => t !== "null");
  if (nonNull.length > 0) shape.type = nonNull.join("|");
  else if (merged.const !== undefined) shape.type = typeof merged.const;
  if (typeof merged.format === "string") shape.format = merged.format;
  if (Array.isArray(merged.enum)) shape.enum = merged.enum;
  if ("default" in merged) shape.default = merged.default;
  if (typeof merged.minimum === "number") shape.minimum = merged.minimum;
  if (typeof merged.maximum === "number") shape.maximum = merged.maximum;
  if (typeof merged.pattern === "string") shape.pattern = merged.pattern;
  if (typeof merged.minLength === "number") shape.minLength = merged.minLength;
  if (typeof merged.maxLength === "number") shape.maxLength = merged.maxLength;
  if (merged.items !== undefined) shape.items = fieldShape(doc, merged.items);
  const values = deref(doc, merged.additionalProperties);
  if (isObject(values) && typeof values.type === "string") shape.values = values.type;
  return shape;
}

/** Properties and `required` of an object schema, with `allOf` parts merged (pagination wrappers). */
export function objectParts(doc: JsonObject, node: Json | undefined): { properties: JsonObject; required: string[] } {
  const schema = deref(doc, node);
  const out = { properties: {} as JsonObject, required: [] as string[] };
  if (!isObject(schema)) return out;
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const sub = objectParts(doc, part);
    Object.assign(out.properties, sub.properties);
    out.required.push(...sub.required);
  }
  if (isObject(schema.properties)) Object.assign(out.properties, schema.properties);
  if (Array.isArray(schema.required))
    out.required.push(...schema.required.filter((r): r is string => typeof r === "string"));
  return out;
}
