/**
 * A value valid against a JSON Schema (OpenAPI 3.1 style), drawn from a seeded Faker: the same seed
 * gives the same value. It honours const, enum, allOf/oneOf/anyOf, nullable types, formats, bounds,
 * multipleOf, lengths, patterns (randexp), items and their counts, required and additional
 * properties, and takes realistic values by property name where the schema says no more (by-name.ts).
 * It aims at validity but does not promise it (a oneOf whose branches overlap, a `not`): whoever
 * must answer something valid checks the value and asks again with another seed (sampleValid).
 */
import type { Faker } from "@faker-js/faker";
import RandExpModule from "randexp";
import { newFaker } from "./faker.js";
import { e164, numberRangeByName, singular, stringByName } from "./by-name.js";
import { type Deref, flatten, resolve, type Schema, typesOf } from "./schema.js";

// randexp is CommonJS: under ESM its class may arrive wrapped in `default`.
const RandExp = ((RandExpModule as unknown as { default?: unknown }).default ??
  RandExpModule) as typeof RandExpModule.default;

/** Below this depth every optional property is there; deeper, some; past MAX_DEPTH, only required ones. */
const FULL_DEPTH = 2;
const MAX_DEPTH = 5;
/** Past this depth nothing is drawn at all (a schema that requires itself has no finite value). */
const GIVE_UP_DEPTH = 24;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export class Sampler {
  /** Values left to draw: a schema that only ever refers to itself through oneOf ends here, as null. */
  private budget = 20_000;
  /** oneOf/anyOf branches entered and not left. */
  private hops = 0;

  constructor(
    private readonly deref: Deref,
    readonly faker: Faker,
  ) {}

  /** A value of `node`; `name` is the property (or item) it is for, a hint for realistic values. */
  value(node: unknown, name = "", depth = 0): unknown {
    if (depth > GIVE_UP_DEPTH || --this.budget < 0) return null;
    const schema = flatten(node, this.deref);
    if ("const" in schema) return structuredClone(schema.const);
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const nonNull = schema.enum.filter((v: unknown) => v !== null);
      return structuredClone(this.faker.helpers.arrayElement(nonNull.length > 0 ? nonNull : schema.enum));
    }
    const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
    if (Array.isArray(branches) && branches.length > 0) return this.branch(schema, branches, name, depth);
    const types = typesOf(schema, this.deref);
    const nonNull = types.filter((t) => t !== "null");
    if (types.length > 0 && nonNull.length === 0) return null;
    const type = nonNull.length > 0 ? this.faker.helpers.arrayElement(nonNull) : untypedGuess(schema);
    switch (type) {
      case "object":
        return this.object(schema, depth);
      case "array":
        return this.array(schema, name, depth);
      case "integer":
        return this.integer(schema, name);
      case "number":
        return this.number(schema, name);
      case "boolean":
        return this.faker.datatype.boolean();
      default:
        return this.string(schema, name);
    }
  }

  /** oneOf/anyOf: one branch (not the null one when another is there), with the keywords beside it. */
  private branch(schema: Schema, branches: unknown[], name: string, depth: number): unknown {
    const { oneOf: _one, anyOf: _any, ...rest } = schema;
    const nonNull = branches.filter((b) => {
      const types = typesOf(b, this.deref);
      return !(types.length === 1 && types[0] === "null");
    });
    const chosen = this.faker.helpers.arrayElement(nonNull.length > 0 ? nonNull : branches);
    const own = Object.keys(rest).some((k) => !k.startsWith("x-") && k !== "description" && k !== "discriminator");
    // A branch is no deeper in the value, but a oneOf that names itself must end: count the hops.
    if (this.hops > GIVE_UP_DEPTH) return null;
    this.hops++;
    try {
      return this.value(own ? { allOf: [rest, chosen] } : chosen, name, depth);
    } finally {
      this.hops--;
    }
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set<string>(schema.required ?? []);
    const max = schema.maxProperties ?? Number.POSITIVE_INFINITY;
    // Required ones first, so a maxProperties bound never leaves one out.
    for (const key of required) {
      if (key in properties) out[key] = this.value(properties[key], key, depth + 1);
      else out[key] = this.value(additional(schema) ?? {}, key, depth + 1);
    }
    for (const [key, sub] of Object.entries(properties)) {
      if (key in out || Object.keys(out).length >= max) continue;
      const include = depth < FULL_DEPTH || (depth < MAX_DEPTH && this.faker.datatype.boolean());
      if (include && !isWriteOnly(resolve(sub, this.deref))) out[key] = this.value(sub, key, depth + 1);
    }
    // A map (additionalProperties with a schema, and nothing or little named): a few entries.
    const extra = additional(schema);
    const want = Math.max(schema.minProperties ?? 0, extra && depth < MAX_DEPTH && !schema.properties ? 2 : 0);
    for (let tries = 0; Object.keys(out).length < Math.min(want, max) && tries < want * 4 + 4; tries++) {
      const key = this.faker.lorem.word();
      if (!(key in out)) out[key] = this.value(extra ?? {}, key, depth + 1);
    }
    // Re-order as the schema lists its properties: answers read like the document.
    const ordered: Record<string, unknown> = {};
    for (const key of Object.keys(properties)) if (key in out) ordered[key] = out[key];
    for (const [key, value] of Object.entries(out)) if (!(key in ordered)) ordered[key] = value;
    return ordered;
  }

  private array(schema: Schema, name: string, depth: number): unknown[] {
    const prefix = (schema.prefixItems ?? []) as unknown[];
    const items = schema.items === false ? undefined : (schema.items ?? {});
    const min = Math.max(schema.minItems ?? 0, schema.contains ? (schema.minContains ?? 1) : 0);
    const max = Math.min(schema.maxItems ?? min + 3, items === undefined ? prefix.length : Number.POSITIVE_INFINITY);
    const wanted = depth >= MAX_DEPTH ? min : Math.max(min, Math.min(max, depth < 3 ? 1 : 0));
    const count = Math.min(max, this.faker.number.int({ min: wanted, max: Math.max(wanted, Math.min(max, min + 2)) }));
    const itemName = singular(name);
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0, tries = 0; out.length < count && tries < count * 6 + 6; tries++) {
      const sub = i < prefix.length ? prefix[i] : out.length === 0 && schema.contains ? schema.contains : items;
      const value = this.value(sub, itemName, depth + 1);
      if (schema.uniqueItems) {
        const key = JSON.stringify(value);
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(value);
      i++;
    }
    return out;
  }

  private integer(schema: Schema, name: string): number {
    const { min, max } = this.bounds(schema, name, true);
    const step = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : 1;
    const low = Math.ceil(min / step);
    const high = Math.floor(max / step);
    if (high < low) return Math.ceil(min);
    return this.faker.number.int({ min: low, max: high }) * step;
  }

  private number(schema: Schema, name: string): number {
    const { min, max } = this.bounds(schema, name, false);
    if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) {
      const step = schema.multipleOf;
      const low = Math.ceil(min / step);
      const high = Math.floor(max / step);
      return high < low ? min : Number((this.faker.number.int({ min: low, max: high }) * step).toPrecision(12));
    }
    if (max - min < 0.02) return (min + max) / 2;
    return this.faker.number.float({ min, max, fractionDigits: 2 });
  }

  /**
   * The range a number is drawn from: a realistic one (by name, else 0 to 1000) within the schema's
   * bounds; where the two do not meet, the schema's bounds near the realistic one.
   */
  private bounds(schema: Schema, name: string, integer: boolean): { min: number; max: number } {
    const nudge = integer ? 1 : 0.01;
    let min: number = schema.minimum ?? Number.NEGATIVE_INFINITY;
    let max: number = schema.maximum ?? Number.POSITIVE_INFINITY;
    if (typeof schema.exclusiveMinimum === "number") min = Math.max(min, schema.exclusiveMinimum + nudge);
    if (typeof schema.exclusiveMaximum === "number") max = Math.min(max, schema.exclusiveMaximum - nudge);
    if (schema.format === "int32") (min = Math.max(min, INT32.min)), (max = Math.min(max, INT32.max));
    const hint = numberRangeByName(name) ?? { min: 0, max: 1000 };
    const from = Math.max(hint.min, min);
    const to = Math.min(hint.max, max);
    if (from <= to) return { min: from, max: to };
    if (min > hint.max) return { min, max: Math.min(max, min + 1000) };
    return { min: Math.max(min, max - 1000), max };
  }

  private string(schema: Schema, name: string): string {
    const minLength = schema.minLength ?? 0;
    const maxLength = schema.maxLength ?? Number.POSITIVE_INFINITY;
    const pattern = typeof schema.pattern === "string" ? compile(schema.pattern) : undefined;
    const fits = (text: string) => {
      const length = [...text].length;
      return length >= minLength && length <= maxLength && (!pattern || pattern.test(text));
    };
    const byFormat = typeof schema.format === "string" ? this.formatted(schema.format, name) : undefined;
    if (byFormat !== undefined && (fits(byFormat) || !pattern)) return byFormat;
    const candidate = byFormat ?? stringByName(name, this.faker) ?? this.faker.lorem.words({ min: 1, max: 3 });
    if (fits(candidate)) return candidate;
    if (pattern) {
      for (let tries = 0; tries < 12; tries++) {
        const text = this.fromPattern(schema.pattern, tries);
        if (text !== undefined && fits(text)) return text;
      }
      return candidate;
    }
    return fitLength(candidate, minLength, maxLength, this.faker);
  }

  /** A string matching `pattern` (randexp drawing from this Faker); longer repetitions on later tries. */
  private fromPattern(pattern: string, attempt: number): string | undefined {
    try {
      const gen = new RandExp(pattern);
      gen.max = 4 + attempt * 2;
      gen.randInt = (a: number, b: number) => this.faker.number.int({ min: a, max: b });
      return gen.gen();
    } catch {
      return undefined;
    }
  }

  /** A value of a known format, or undefined for a format this sampler does not know. */
  private formatted(format: string, name: string): string | undefined {
    const f = this.faker;
    const future = /(expir|due|until|deadline|scheduled|next|end)/i.test(name);
    const when = () => (future ? f.date.soon({ days: 60 }) : f.date.recent({ days: 120 }));
    switch (format) {
      case "date-time":
        return when().toISOString();
      case "date":
        return when().toISOString().slice(0, 10);
      case "time":
        return `${when().toISOString().slice(11, 19)}Z`;
      case "duration":
        return `PT${f.number.int({ min: 1, max: 59 })}M`;
      case "email":
      case "idn-email":
        return f.internet.email().toLowerCase();
      case "uri":
      case "url":
      case "iri":
        return /(image|avatar|photo|picture)/i.test(name) ? f.image.url() : f.internet.url();
      case "uri-reference":
      case "iri-reference":
        return `/${f.lorem.slug(2)}`;
      case "uri-template":
        return `${f.internet.url()}/{id}`;
      case "hostname":
      case "idn-hostname":
        return f.internet.domainName();
      case "ipv4":
        return f.internet.ipv4();
      case "ipv6":
        return f.internet.ipv6();
      case "uuid":
        return f.string.uuid();
      case "byte":
        return btoa(f.lorem.words(3));
      case "password":
        return f.internet.password();
      case "regex":
        return "^[a-z]+$";
      case "json-pointer":
        return `/${f.lorem.word()}`;
      case "relative-json-pointer":
        return "0";
      case "phone":
      case "e164":
      case "tel":
        return e164(f);
      default:
        return undefined;
    }
  }
}

/** A schema with no type: what its keywords suggest (a string for one with none). */
function untypedGuess(schema: Schema): string {
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return "number";
  return "string";
}

function additional(schema: Schema): unknown {
  const extra = schema.additionalProperties;
  return extra && typeof extra === "object" ? extra : undefined;
}

function isWriteOnly(schema: Schema): boolean {
  return schema.writeOnly === true;
}

const patterns = new Map<string, RegExp | null>();

/** A JSON Schema pattern as a RegExp (ECMA-262 with the u flag, as ajv reads it); null when it does not compile. */
function compile(pattern: string): RegExp | undefined {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "u");
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re ?? undefined;
}

/** Cut or pad `text` to the bounds (by code points). */
function fitLength(text: string, min: number, max: number, faker: Faker): string {
  let chars = [...text];
  if (chars.length > max) chars = chars.slice(0, max);
  if (chars.length < min) chars = chars.concat([...faker.string.alpha(min - chars.length)]);
  return chars.join("");
}

/**
 * A sampler whose Faker is seeded with `seed` and dates around `refDate`. Dates are drawn relative to
 * it, so pass a time that does not move with every request (the workspace clock's day) to keep an
 * answer the same for the same request.
 */
export function seededSampler(deref: Deref, seed: number, refDate: Date): Sampler {
  return new Sampler(deref, newFaker(seed, refDate));
}

/**
 * A value of `schema` that `check` accepts, drawn with seeds derived from `seed` (a few tries); the
 * last value drawn, with ok false, when none passed.
 */
export function sampleValid(
  schema: unknown,
  options: { deref: Deref; seed: number; refDate: Date; check?: (value: unknown) => boolean; tries?: number },
): { value: unknown; ok: boolean } {
  let value: unknown;
  const tries = options.tries ?? 8;
  for (let attempt = 0; attempt < tries; attempt++) {
    const sampler = seededSampler(options.deref, (options.seed + attempt * 0x9e3779b1) >>> 0, options.refDate);
    value = sampler.value(schema);
    if (!options.check || options.check(value)) return { value, ok: true };
  }
  return { value, ok: false };
}

/**
 * A value of `schema` that `check` accepts, drawn afresh each time (Prefer: dynamic=true answers are
 * meant to vary): sampleValid from a seed of its own, not the workspace's nor the request's.
 */
export function sampleAny(
  schema: unknown,
  options: { deref: Deref; refDate: Date; check?: (value: unknown) => boolean },
): { value: unknown; ok: boolean } {
  return sampleValid(schema, { ...options, seed: Math.floor(Math.random() * 2 ** 32) });
}
