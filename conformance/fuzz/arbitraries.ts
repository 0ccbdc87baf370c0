/**
 * fast-check arbitraries from the spec's request schemas: valid values that honour type, bounds, enum,
 * const, required and oneOf, and invalid ones made by breaking exactly one of those rules.
 */
import fc from "fast-check";
import { deref, type Json, type JsonObject } from "../lib/spec.js";

const ID = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,35}$/);
const E164 = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^[0-9]{6,12}$/)).map(([a, b]) => `+${a}${b}`);

/**
 * Values the target already holds, by property or parameter name (`agentId` -> ids of existing agents):
 * a valid value for such a name is usually a known one, so valid requests reach real records.
 */
export type Known = Record<string, readonly string[]>;

export function validArbitrary(raw: Json | undefined, depth = 0, known: Known = {}): fc.Arbitrary<unknown> {
  const schema = deref(raw) as JsonObject | undefined;
  if (!schema || depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.oneOf)) return fc.oneof(...schema.oneOf.map((s) => validArbitrary(s, depth + 1, known)));
  if (schema.pattern === "^\\+[1-9][0-9]{1,14}$") return E164;
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  switch (type[0]) {
    case "string": {
      const min = (schema.minLength as number) ?? 0;
      const max = Math.min((schema.maxLength as number) ?? 40, min + 40);
      return min >= 1 && max <= 128 && max >= 36 ? ID : fc.string({ minLength: min, maxLength: max });
    }
    case "integer":
      return fc.integer({
        min: (schema.minimum as number) ?? -1000,
        max: Math.min((schema.maximum as number) ?? 1000, 1000),
      });
    case "number":
      return fc.double({ min: -1000, max: 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "array": {
      const min = (schema.minItems as number) ?? 0;
      const items = validArbitrary(schema.items as Json, depth + 1, known);
      const max = Math.min((schema.maxItems as number) ?? 3, min + 3);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    default: {
      const properties = (schema.properties as JsonObject | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const record = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([k, v]) => [k, withKnown(k, validArbitrary(v, depth + 1, known), known)]),
        ),
        { requiredKeys: Object.keys(properties).filter((k) => required.has(k)) },
      );
      const extra = schema.additionalProperties;
      if (extra && typeof extra === "object" && Object.keys(properties).length === 0) {
        return fc.dictionary(fc.stringMatching(/^[a-zA-Z]{1,10}$/), validArbitrary(extra as Json, depth + 1, known), {
          maxKeys: 3,
        });
      }
      return record;
    }
  }
}

/** A known value of `name` three times in four, else what the schema allows. */
export function withKnown(name: string, arbitrary: fc.Arbitrary<unknown>, known: Known): fc.Arbitrary<unknown> {
  const pool = known[name];
  if (!pool || pool.length === 0) return arbitrary;
  return fc.oneof({ arbitrary, weight: 1 }, { arbitrary: fc.constantFrom(...pool), weight: 3 });
}

const WRONG = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.constant(true),
  fc.constant([1, 2]),
  fc.constant({ nested: {} }),
);

/** A value that breaks exactly one rule of `schema`: a required field missing, a field of the wrong type, an unknown field, or not an object. */
export function invalidBody(schema: Json | undefined, known: Known = {}): fc.Arbitrary<{ body: unknown; why: string }> {
  const resolved = deref(schema) as JsonObject;
  const variants = Array.isArray(resolved.oneOf) ? resolved.oneOf.map((s) => deref(s) as JsonObject) : [resolved];
  return fc.constantFrom(...variants).chain((variant) => {
    const properties = Object.keys((variant.properties as JsonObject | undefined) ?? {});
    const required = (variant.required as string[] | undefined) ?? [];
    return validArbitrary(variant, 0, known).chain((valid) => {
      const base = valid as Record<string, unknown>;
      const options: fc.Arbitrary<{ body: unknown; why: string }>[] = [
        fc.constantFrom([] as unknown, "text", 7).map((body) => ({ body, why: "body is not an object" })),
        fc.stringMatching(/^zz[a-z]{2,8}$/).map((k) => ({ body: { ...base, [k]: "x" }, why: `unknown field ${k}` })),
      ];
      if (required.length > 0)
        options.push(fc.constantFrom(...required).map((k) => ({ body: omit(base, k), why: `required ${k} missing` })));
      const typed = properties.filter(
        (k) =>
          (deref((variant.properties as JsonObject)[k]) as JsonObject | undefined)?.type !== undefined &&
          !String((variant.properties as JsonObject)[k]).includes("null"),
      );
      if (typed.length > 0)
        options.push(
          fc
            .tuple(fc.constantFrom(...typed), WRONG)
            .filter(([k, v]) => !matchesType((variant.properties as JsonObject)[k], v))
            .map(([k, v]) => ({ body: { ...base, [k]: v }, why: `${k} of the wrong type` })),
        );
      return fc.oneof(...options);
    });
  });
}

function omit(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, ...rest } = o;
  return rest;
}

function matchesType(raw: Json, value: unknown): boolean {
  const schema = deref(raw) as JsonObject;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual =
    value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  return types.includes(actual) || (actual === "integer" && types.includes("number"));
}
