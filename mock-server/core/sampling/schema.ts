/**
 * Reading JSON Schemas (OpenAPI 3.1 style) the way the sampler (sample.ts) and the generic layer
 * (generic/) need them: `$ref`s resolved in the document, `allOf` folded into one schema, and the few
 * questions asked of a schema everywhere (its types, whether it admits null, its properties). Nothing
 * here draws a value.
 */

export type Schema = Record<string, any>;
/** Resolves a `$ref` to a component of the document the schema belongs to (Contract.deref). */
export type Deref = (node: unknown) => unknown;

/** Keywords that say nothing about which values pass: a `$ref` beside only these is the referenced schema. */
const ANNOTATIONS = new Set([
  "$ref",
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "externalDocs",
  "xml",
  "$comment",
]);

/**
 * The schema a node stands for: a `$ref` resolved; a `$ref` with constraints beside it (3.1 allows
 * that) is both, as an allOf. Anything that is not an object schema (`true`, a missing node) is `{}`.
 */
export function resolve(node: unknown, deref: Deref): Schema {
  if (!node || typeof node !== "object") return node === false ? { not: {} } : {};
  const schema = node as Schema;
  if (typeof schema.$ref !== "string") return schema;
  const target = (deref({ $ref: schema.$ref }) as Schema | undefined) ?? {};
  const siblings = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k) && !k.startsWith("x-"));
  if (siblings.length === 0) return typeof target === "object" ? target : {};
  const { $ref: _ref, ...rest } = schema;
  return { allOf: [target, rest] };
}

/** The component name of a `$ref` (`#/components/schemas/Pet` -> Pet), if the node is one. */
export function refName(node: unknown): string | undefined {
  const ref = (node as Schema | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop() : undefined;
}

/**
 * One schema with every `allOf` folded in (recursively at the top only: properties keep theirs, and
 * are flattened when they are read). Two parts that both name a property give it both schemas (allOf).
 */
export function flatten(node: unknown, deref: Deref, depth = 0): Schema {
  const schema = resolve(node, deref);
  if (!Array.isArray(schema.allOf) || depth > 16) return schema;
  const { allOf, ...own } = schema;
  let out: Schema = own;
  for (const part of allOf as unknown[]) out = merge(out, flatten(part, deref, depth + 1));
  return out;
}

function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a.properties && b.properties) {
    out.properties = { ...a.properties };
    for (const [name, sub] of Object.entries(b.properties))
      out.properties[name] = name in a.properties ? { allOf: [a.properties[name], sub] } : sub;
  }
  if (a.required || b.required) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.type !== undefined && b.type !== undefined) {
    const left = typesIn(a.type);
    const both = typesIn(b.type).filter((t) => left.includes(t) || (t === "integer" && left.includes("number")));
    out.type = both.length === 1 ? both[0] : both;
  }
  if (Array.isArray(a.enum) && Array.isArray(b.enum))
    out.enum = a.enum.filter((v: unknown) => b.enum.some((w: unknown) => JSON.stringify(w) === JSON.stringify(v)));
  for (const key of ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"])
    if (typeof a[key] === "number" && typeof b[key] === "number") out[key] = Math.max(a[key], b[key]);
  for (const key of ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"])
    if (typeof a[key] === "number" && typeof b[key] === "number") out[key] = Math.min(a[key], b[key]);
  if (a.additionalProperties === false || b.additionalProperties === false) out.additionalProperties = false;
  if (a.oneOf && b.oneOf) out.allOf = [{ oneOf: a.oneOf }, { oneOf: b.oneOf }];
  if (a.anyOf && b.anyOf) out.allOf = [...(out.allOf ?? []), { anyOf: a.anyOf }, { anyOf: b.anyOf }];
  if (out.allOf && a.oneOf && b.oneOf) delete out.oneOf;
  if (out.allOf && a.anyOf && b.anyOf) delete out.anyOf;
  return out;
}

function typesIn(type: unknown): string[] {
  return Array.isArray(type) ? type : [type as string];
}

/**
 * The types a schema admits, as far as its `type` (and that of a oneOf/anyOf branch) says; an
 * untyped schema is guessed from its keywords (properties: object, items: array).
 */
export function typesOf(node: unknown, deref: Deref, depth = 0): string[] {
  const schema = flatten(node, deref);
  // A oneOf that names itself (a tree's node) says no more the second time round.
  if (depth > 8) return [];
  if (schema.type !== undefined) return typesIn(schema.type);
  if ("const" in schema) return [jsonType(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))];
  const branches = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(branches)) return [...new Set(branches.flatMap((b: unknown) => typesOf(b, deref, depth + 1)))];
  if (schema.properties || schema.additionalProperties || schema.required) return ["object"];
  if (schema.items || schema.prefixItems) return ["array"];
  return [];
}

/** The JSON Schema type of a JSON value. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether `null` is a value the schema may take (`type: [x, "null"]`, a null branch, a null enum member). */
export function admitsNull(node: unknown, deref: Deref): boolean {
  return typesOf(node, deref).includes("null");
}

/** An object schema's properties (allOf folded in), in the document's order. */
export function propertiesOf(node: unknown, deref: Deref): Record<string, unknown> {
  const schema = flatten(node, deref);
  return (schema.properties as Record<string, unknown> | undefined) ?? {};
}

/** Whether the schema describes an object with named properties (a record, a page wrapper). */
export function isObjectSchema(node: unknown, deref: Deref): boolean {
  const schema = flatten(node, deref);
  return Boolean(schema.properties) && (schema.type === undefined || typesIn(schema.type).includes("object"));
}

/** The items schema of an array schema, or undefined when the schema is no array. */
export function itemsOf(node: unknown, deref: Deref): unknown {
  const schema = flatten(node, deref);
  if (!typesOf(schema, deref).includes("array")) return undefined;
  return schema.items ?? {};
}
