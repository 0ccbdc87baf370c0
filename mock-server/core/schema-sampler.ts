/**
 * Prefer: dynamic=true — a value generated from a spec schema. Random but valid: it honours type,
 * enum, const, format, pattern-bearing formats we know (date-time, uri, E.164), bounds and required.
 */
import { randomUUID } from "./portable-crypto.js";

/** An integer in [min, max): random, not seeded (dynamic examples are meant to vary). */
const randomInt = (min: number, max?: number) =>
  max === undefined ? Math.floor(Math.random() * min) : min + Math.floor(Math.random() * (max - min));

type Schema = Record<string, any>;
/** Resolves a `$ref` in the document the schema belongs to (Contract.deref). */
type Deref = (node: unknown) => unknown;

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];

export function sampleSchema(input: unknown, deref: Deref, depth = 0): unknown {
  const schema = deref(input) as Schema;
  if (!schema || typeof schema !== "object") return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[randomInt(schema.enum.length)];
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: unknown) => sampleSchema(s, deref, depth)));
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices) {
    const nonNull = choices.filter((c: Schema) => (deref(c) as Schema).type !== "null");
    return sampleSchema(nonNull[randomInt(nonNull.length)] ?? choices[0], deref, depth);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object":
    case undefined:
      if (!schema.properties) return {};
      return Object.fromEntries(
        Object.entries<Schema>(schema.properties)
          .filter(([name]) => depth < 4 || (schema.required ?? []).includes(name))
          .map(([name, sub]) => [name, sampleSchema(sub, deref, depth + 1)]),
      );
    case "array": {
      const count = depth > 3 ? (schema.minItems ?? 0) : Math.max(schema.minItems ?? 0, 1 + randomInt(2));
      return Array.from({ length: count }, () => sampleSchema(schema.items, deref, depth + 1));
    }
    case "integer":
      return randomInt(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, 2 ** 31 - 1) + 1);
    case "number":
      return Math.round(((schema.minimum ?? 0) + Math.random() * 10) * 100) / 100;
    case "boolean":
      return randomInt(2) === 1;
    case "string":
      return sampleString(schema);
    default:
      return null;
  }
}

function sampleString(schema: Schema): string {
  if (schema.format === "date-time" || schema.pattern?.endsWith("(Z|[+-]00:00)$")) return new Date().toISOString();
  if (schema.format === "uri") return `https://example.com/${WORDS[randomInt(WORDS.length)]}`;
  if (typeof schema.pattern === "string" && schema.pattern.startsWith("^\\+[1-9]"))
    return `+1415555${String(randomInt(10000)).padStart(4, "0")}`;
  if (schema.minLength === 1 && schema.maxLength === 128) return randomUUID();
  const text = `${WORDS[randomInt(WORDS.length)]} ${WORDS[randomInt(WORDS.length)]}`;
  return text.slice(0, schema.maxLength ?? text.length).padEnd(schema.minLength ?? 0, "x");
}
