/**
 * A record another implementation wrote, judged as the drift findings judge its answers. The spec's
 * record rule (its root `x-record-rule`: a field without a value is `null`, a list without members
 * `[]`, never left out) is the kit's decision (an `x-assumption`), so an implementation of the
 * reference may omit such fields and still say all the reference says. A record the spec as written
 * refuses is therefore checked at level `documented` (x-assumption restrictions relaxed: the one place
 * that level is made, core/exchange-rules/leveled-validators.ts); when it passes there, the fields it
 * lacks are filled as the rule says, wherever the record's schema nests them, so the mock can serve it
 * back. A record the documented level refuses, or one the rule cannot complete (a required field that
 * is neither nullable nor a list), keeps its refusal and its reasons.
 *
 * The filling reads only the document: the rule at its root, and the record's schema with its
 * `$ref`s, `allOf`s and nullable `oneOf`s. It compiles validators at run time (ajv), so the doors load
 * this module only when they record (mock/upstream-step.ts), as they load the drift rules.
 */
import type { ValidationErrors } from "../core/errors.js";
import { escapePointer } from "../core/exchange-rules/json-document.js";
import { leveledValidators, type ValidateFunction } from "../core/exchange-rules/leveled-validators.js";
import { derefIn } from "../core/json-ref.js";
import { admitsNull, type Deref, flatten, type Schema, typesOf } from "../core/sampling/schema.js";
import { toValidationErrors } from "../core/validation.js";

type Json = Record<string, unknown>;

/** The document's record rule (its root `x-record-rule`), as generic/plan.ts reads it too. */
interface RecordRule {
  missing?: string;
  emptyCollection?: string;
}

/** A field the rule filled: where (`agentSettings.globalPrompt`, `tools[].headers`) and with what. */
export interface FilledField {
  path: string;
  value: null | [];
}

/** A record kept once filled, or the reasons it is refused. */
export type RuledRecord = { record: Json; filled: FilledField[] } | { errors: ValidationErrors };

/** What the spec as written says is wrong with a record; undefined when nothing. */
export type FullCheck = (record: Json) => ValidationErrors | undefined;

export interface RecordRuler {
  /**
   * A record `check` (the spec as written) refused with `errors`: kept filled when the documented
   * level passes it and the rule completes it, else refused with the reasons that count.
   * `schema`: the record's schema as the document writes it, a `$ref` or a node of the document.
   */
  settle(schema: unknown, record: Json, errors: ValidationErrors, check: FullCheck): RuledRecord;
}

const rulers = new WeakMap<object, RecordRuler>();

/** The ruler of a document, made on first use and kept as long as the document object lives. */
export function recordRuler(document: object): RecordRuler {
  let ruler = rulers.get(document);
  if (!ruler) rulers.set(document, (ruler = makeRuler(document)));
  return ruler;
}

function makeRuler(document: object): RecordRuler {
  const deref: Deref = (node) => derefIn(document, node);
  const raw = (document as Json)["x-record-rule"];
  const rule: RecordRule = isObject(raw) ? raw : {};
  // Inline record schemas, found in the document once each.
  const placed = new WeakMap<object, string | undefined>();
  const pointerOf = (schema: unknown): string | undefined => {
    const ref = (schema as Schema | undefined)?.$ref;
    if (typeof ref === "string") return ref.startsWith("#") ? decodeURIComponent(ref.slice(1)) : undefined;
    if (!isObject(schema)) return undefined;
    if (!placed.has(schema)) placed.set(schema, placeOf(document, schema));
    return placed.get(schema);
  };
  return {
    settle(schema, record, errors, check) {
      const pointer = pointerOf(schema);
      if (pointer === undefined) return { errors };
      let documented: ValidateFunction;
      try {
        documented = leveledValidators(document).validatorFor(pointer, "documented");
      } catch {
        return { errors };
      }
      if (!documented(record)) return { errors: toValidationErrors(documented.errors) };
      const filled: FilledField[] = [];
      const copy = structuredClone(record);
      fillIn(schema, copy, { deref, rule, filled }, "", 0);
      if (filled.length === 0) return { errors };
      const after = check(copy);
      return after ? { errors: after } : { record: copy, filled };
    },
  };
}

interface FillContext {
  deref: Deref;
  rule: RecordRule;
  filled: FilledField[];
}

/** Fills what `value` lacks of what its schema requires, in place, and in what it nests. */
function fillIn(schema: unknown, value: unknown, ctx: FillContext, path: string, depth: number): void {
  if (depth > 32) return;
  if (Array.isArray(value)) {
    const items = itemsSchema(schema, ctx.deref);
    if (items !== undefined) for (const item of value) fillIn(items, item, ctx, `${path}[]`, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  const object = objectSchema(schema, value, ctx.deref, 0);
  if (!object) return;
  const properties = (object.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(object.required) ? (object.required as string[]) : [];
  for (const [key, sub] of Object.entries(properties)) {
    const where = path ? `${path}.${key}` : key;
    if (key in value) fillIn(sub, value[key], ctx, where, depth + 1);
    else if (required.includes(key)) {
      const filler = ruleValue(sub, ctx);
      if (filler === undefined) continue;
      value[key] = filler;
      ctx.filled.push({ path: where, value: filler });
    }
  }
}

/** What the rule gives a field without a value, as generic/fill.ts fills a new record: null, else []. */
function ruleValue(schema: unknown, ctx: FillContext): null | [] | undefined {
  if (ctx.rule.missing === "null" && admitsNull(schema, ctx.deref)) return null;
  if (
    ctx.rule.emptyCollection === "array" &&
    typesOf(schema, ctx.deref).includes("array") &&
    !((flatten(schema, ctx.deref).minItems ?? 0) > 0)
  )
    return [];
  return undefined;
}

/**
 * The object schema `value` is an instance of: the schema itself when it names properties, else the
 * one object branch of its oneOf/anyOf (a nullable `oneOf: [$ref, null]`), or the branch its
 * discriminator names. None when that cannot be told.
 */
function objectSchema(schema: unknown, value: Json, deref: Deref, depth: number): Schema | undefined {
  const flat = flatten(schema, deref);
  if (flat.properties) return flat;
  const branches = (flat.oneOf ?? flat.anyOf) as unknown[] | undefined;
  if (!Array.isArray(branches) || depth > 8) return undefined;
  const tag = flat.discriminator?.propertyName as string | undefined;
  if (tag !== undefined && typeof value[tag] === "string") {
    const mapped = flat.discriminator?.mapping?.[value[tag] as string] as string | undefined;
    const named = branches.find((b) =>
      mapped === undefined ? resolveName(b) === value[tag] : (b as Schema)?.$ref === mapped,
    );
    return named === undefined ? undefined : objectSchema(named, value, deref, depth + 1);
  }
  const objects = branches
    .filter((b) => typesOf(b, deref).includes("object") || flatten(b, deref).properties)
    .map((b) => objectSchema(b, value, deref, depth + 1))
    .filter((b): b is Schema => b !== undefined);
  return objects.length === 1 ? objects[0] : undefined;
}

const resolveName = (node: unknown): string | undefined => {
  const ref = (node as Schema | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop() : undefined;
};

/** An array schema's items: its own, or those of its one array branch (`oneOf: [array, null]`). */
function itemsSchema(schema: unknown, deref: Deref): unknown {
  const flat = flatten(schema, deref);
  if (flat.items !== undefined) return flat.items;
  const branches = (flat.oneOf ?? flat.anyOf) as unknown[] | undefined;
  if (!Array.isArray(branches)) return undefined;
  const arrays = branches.map((b) => flatten(b, deref)).filter((b) => b.items !== undefined);
  return arrays.length === 1 ? arrays[0].items : undefined;
}

/** Where a node of the document is (a JSON pointer), found by identity: an inline record schema's place. */
function placeOf(document: object, target: object): string | undefined {
  const seen = new Set<unknown>();
  const walk = (node: unknown, at: string): string | undefined => {
    if (node === target) return at;
    if (node === null || typeof node !== "object" || seen.has(node)) return undefined;
    seen.add(node);
    for (const [key, child] of Object.entries(node)) {
      const found = walk(child, `${at}/${escapePointer(key)}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(document, "");
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
