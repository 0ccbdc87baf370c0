/**
 * Values for the generic rules' requests, from the document's schemas alone: a valid value (the
 * schema's example first, else one generated from its type, format, bounds, enum and pattern,
 * deterministic for a seed) and values that break exactly one of its restrictions. Every value is
 * checked by ajv against the schema at the run's level before it is used: a value the document would
 * accept is never sent as invalid, nor the other way round.
 */
import { createHash, randomUUID } from "node:crypto";
import fc from "fast-check";
import type { JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";
import { type Level, leveledValidators } from "../../mock-server/core/exchange-rules/leveled-validators.js";
import { type Schema, schemaAt, typesOf } from "./schema-walk.js";

export interface ValueOptions {
  /** Varies what is generated: the same seed gives the same value. */
  seed: number;
  /** Put into generated text, so a person finds what a run made (the run id). */
  marker: string;
  /** Use the schemas' examples (first try); generated values only when false. */
  examples?: boolean;
}

/** A schema's own example: `examples[0]` (3.1), `example`, else `default`. */
export function exampleOf(schema: Schema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  return schema.default;
}

function hashed(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A UUID (version 4 layout) that the seed and marker fix. */
export function seededUuid(marker: string, seed: number): string {
  const h = hashed(`${marker}:${seed}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[Number.parseInt(h[16], 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const DAY = 86_400_000;
const BASE_TIME = Date.UTC(2030, 0, 1, 9, 30, 0);
/** Dates spread over ten years from BASE_TIME, whatever the seed. */
const at = (seed: number) => new Date(BASE_TIME + (seed % 3650) * DAY);

function formatted(format: string, marker: string, seed: number): string | undefined {
  const slug = marker.replace(/[^A-Za-z0-9-]/g, "").toLowerCase() || "suite";
  switch (format) {
    case "date-time":
      return at(seed).toISOString();
    case "date":
      return at(seed).toISOString().slice(0, 10);
    case "time":
      return "09:30:00Z";
    case "email":
    case "idn-email":
      return `${slug}-${seed}@example.com`;
    case "uuid":
      return seededUuid(marker, seed);
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
    case "iri-reference":
      return `https://example.com/${slug}/${seed}`;
    case "hostname":
    case "idn-hostname":
      return `${slug}-${seed}.example.com`;
    case "ipv4":
      return `192.0.2.${(seed % 250) + 1}`;
    case "ipv6":
      return `2001:db8::${(seed % 65000) + 1}`;
    case "byte":
      return Buffer.from(`${marker} ${seed}`).toString("base64");
    case "duration":
      return "PT1H";
    default:
      return undefined;
  }
}

function fitted(text: string, schema: Schema): string {
  const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  let out = max !== undefined && text.length > max ? text.slice(0, max) : text;
  if (out.length < min) out = out.padEnd(min, "x");
  return out;
}

function stringValue(schema: Schema, options: ValueOptions): string {
  const format = typeof schema.format === "string" ? formatted(schema.format, options.marker, options.seed) : undefined;
  if (format !== undefined) return format;
  if (typeof schema.pattern === "string") {
    try {
      const pattern = new RegExp(schema.pattern, "u");
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
      const arbitrary = fc.stringMatching(pattern).filter((s) => s.length >= min && s.length <= max);
      return fc.sample(arbitrary, { seed: options.seed, numRuns: 1 })[0];
    } catch {
      // A pattern JavaScript cannot read (or nothing matching within the bounds): the text below, judged by ajv.
    }
  }
  return fitted(`${options.marker}-${options.seed}`, schema);
}

function numberValue(schema: Schema, integer: boolean, seed: number): number {
  const exclusiveMin = typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum : undefined;
  let low = schema.minimum ?? (exclusiveMin !== undefined ? exclusiveMin + (integer ? 1 : 0.5) : 1);
  let high = schema.maximum ?? (exclusiveMax !== undefined ? exclusiveMax - (integer ? 1 : 0.5) : low + 1000);
  if (integer) (low = Math.ceil(low)), (high = Math.floor(high));
  const span = Math.max(0, high - low);
  let value = low + (integer ? seed % (Math.floor(span) + 1) : ((seed % 100) / 100) * span);
  if (typeof schema.multipleOf === "number" && schema.multipleOf > 0)
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return integer ? Math.round(value) : value;
}

/** Where generation stops descending into optional properties. */
const OPTIONAL_DEPTH = 2;
const MAX_DEPTH = 8;

/**
 * A value for the schema at `pointer` (not yet checked: see validValue). Request values: properties
 * marked readOnly are left out, optional ones only near the top.
 */
export function generateValue(doc: JsonObject, pointer: string, options: ValueOptions, depth = 0): unknown {
  const at = schemaAt(doc, pointer);
  if (!at || depth > MAX_DEPTH) return null;
  const { schema, pointer: here } = at;
  if (options.examples !== false) {
    const example = exampleOf(schema);
    if (example !== undefined) return structuredClone(example);
  }
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  const choices = schema.oneOf ? "oneOf" : schema.anyOf ? "anyOf" : undefined;
  if (choices) {
    const branches = schema[choices] as Schema[];
    // The first branch that is more than `null` (a nullable field gets a value).
    const index = branches.findIndex((_, i) => {
      const types = typesOf(schemaAt(doc, `${here}/${choices}/${i}`)?.schema ?? {});
      return !(types.length === 1 && types[0] === "null");
    });
    return generateValue(doc, `${here}/${choices}/${Math.max(index, 0)}`, options, depth + 1);
  }
  const types = typesOf(schema).filter((t) => t !== "null");
  const type = types[0] ?? (schema.properties || schema.allOf ? "object" : schema.items ? "array" : undefined);
  switch (type) {
    case "object":
      return objectValue(doc, here, schema, options, depth);
    case "array": {
      const min = schema.minItems ?? 0;
      const count = Math.min(Math.max(min, 1), schema.maxItems ?? 1_000);
      return Array.from({ length: count }, (_, i) =>
        generateValue(doc, `${here}/items`, { ...options, seed: options.seed + i }, depth + 1),
      );
    }
    case "string":
      return stringValue(schema, options);
    case "integer":
      return numberValue(schema, true, options.seed);
    case "number":
      return numberValue(schema, false, options.seed);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return stringValue(schema, options);
  }
}

function objectValue(
  doc: JsonObject,
  here: string,
  schema: Schema,
  options: ValueOptions,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(schema.allOf))
    schema.allOf.forEach((_: unknown, i: number) => {
      const part = generateValue(doc, `${here}/allOf/${i}`, options, depth + 1);
      if (part && typeof part === "object" && !Array.isArray(part)) Object.assign(out, part);
    });
  const required = new Set<string>(schema.required ?? []);
  Object.keys(schema.properties ?? {}).forEach((name, i) => {
    const property = schemaAt(doc, `${here}/properties/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    if (!property || property.schema.readOnly === true) return;
    if (!required.has(name) && depth >= OPTIONAL_DEPTH) return;
    out[name] = generateValue(doc, property.pointer, { ...options, seed: options.seed + i }, depth + 1);
  });
  return out;
}

/** Whether `value` passes the schema at `pointer` at `level` (the leveled document's own validators). */
export function passes(doc: JsonObject, pointer: string, level: Level, value: unknown): boolean {
  return leveledValidators(doc).validatorFor(pointer, level)(value) === true;
}

/**
 * A value the schema at `pointer` accepts at `level`: its examples first, else a generated one;
 * undefined when neither passes (the rule then says it could not make one).
 */
export function validValue(doc: JsonObject, pointer: string, level: Level, options: ValueOptions): unknown {
  for (const examples of options.examples === false ? [false] : [true, false]) {
    const value = generateValue(doc, pointer, { ...options, examples });
    if (passes(doc, pointer, level, value)) return value;
  }
  return undefined;
}

/** One way to break a value: what is sent, and why it is invalid. */
export interface Breakage {
  value: unknown;
  why: string;
}

/**
 * Values that break one restriction of `schema` each (its type, bounds, enum, format). Candidates only:
 * the caller keeps those the schema refuses at the run's level. `wire`: the value travels as text (a
 * query or path parameter), so only what text can break is offered.
 */
export function breakages(schema: Schema, wire: boolean): Breakage[] {
  const types = typesOf(schema);
  const out: Breakage[] = [];
  const numeric = types.includes("integer") || types.includes("number");
  if (numeric) out.push({ value: "not-a-number", why: "not a number" });
  if (types.includes("boolean")) out.push({ value: "maybe", why: "not a boolean" });
  if (!wire) {
    if (types.includes("string")) out.push({ value: 12345, why: "a number where a string is documented" });
    if (types.includes("object")) out.push({ value: "not-an-object", why: "not an object" });
    if (types.includes("array")) out.push({ value: "not-an-array", why: "not an array" });
  }
  if (Array.isArray(schema.enum))
    out.push({ value: "zz-not-listed", why: `not one of ${JSON.stringify(schema.enum)}` });
  if (typeof schema.minimum === "number")
    out.push({ value: schema.minimum - 1, why: `below the minimum ${schema.minimum}` });
  if (typeof schema.maximum === "number")
    out.push({ value: schema.maximum + 1, why: `above the maximum ${schema.maximum}` });
  if (typeof schema.exclusiveMinimum === "number")
    out.push({ value: schema.exclusiveMinimum, why: `not above the exclusive minimum ${schema.exclusiveMinimum}` });
  if (typeof schema.exclusiveMaximum === "number")
    out.push({ value: schema.exclusiveMaximum, why: `not below the exclusive maximum ${schema.exclusiveMaximum}` });
  if (typeof schema.minLength === "number" && schema.minLength > 0)
    out.push({ value: "a".repeat(schema.minLength - 1), why: `shorter than ${schema.minLength} characters` });
  if (typeof schema.maxLength === "number")
    out.push({ value: "a".repeat(schema.maxLength + 1), why: `longer than ${schema.maxLength} characters` });
  if (!wire && typeof schema.minItems === "number" && schema.minItems > 0)
    out.push({ value: [], why: `fewer than ${schema.minItems} items` });
  if (
    typeof schema.format === "string" &&
    ["uuid", "date-time", "date", "email", "uri", "ipv4"].includes(schema.format)
  )
    out.push({ value: `not-a-${schema.format}`, why: `not a ${schema.format}` });
  // Last: a fraction breaks an integer less tellingly than its bounds do.
  if (types.includes("integer")) out.push({ value: 1.5, why: "not an integer" });
  return out;
}

/** A value of `param`'s schema that names no record: a fresh UUID, a large number, or marked text. */
export function unknownIdValue(doc: JsonObject, pointer: string, schema: Record<string, any>): string | undefined {
  // Near the top of the range the schema allows (int64 ids are often large and random: the top is far from them).
  const top =
    typeof schema.maximum === "number"
      ? schema.maximum
      : schema.format === "int32"
        ? 2 ** 31 - 1
        : Number.MAX_SAFE_INTEGER;
  const big = Math.max(top - Math.floor(Math.random() * 1_000_000), schema.minimum ?? 0);
  const candidates: unknown[] = [
    randomUUID(),
    big,
    `unknown-${randomUUID().slice(0, 8)}`,
    `zz${Math.floor(Math.random() * 1e9)}`,
  ];
  const found = candidates.find((c) => passes(doc, pointer, "documented", c));
  return found === undefined ? undefined : String(found);
}
