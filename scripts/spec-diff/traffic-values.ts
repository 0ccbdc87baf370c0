/**
 * The values a recorded message holds where a change sits, and whether a schema there refuses them.
 * A change's `field` (`data[].status`, `oneOf[ApiKeyAuthCreate].apiKey.position`, `variables{}`) is
 * walked in the message and, beside it, in each document's schema (through view.ts, so allOf, $refs
 * and null wrappers read as the differ read them). A value is judged only on the aspect the change is
 * about (its enum, its type, one keyword...), so a body refused for another reason is not blamed on it.
 * Keywords and whole variants are checked with ajv 2020 as the mock builds it (mock-server/core/openapi-ajv.ts).
 */
import type { ValidateFunction } from "ajv";
import { anchored, createOpenApiAjv, SPEC_ID } from "../../mock-server/core/openapi-ajv.js";
import { isObj, view, type Obj, type Slot } from "./view.js";

export type Token =
  | { kind: "prop"; name: string }
  | { kind: "items" }
  | { kind: "values" }
  | { kind: "variant"; keyword: string; label: string };

/** Spelling of schema-diff.ts: `a.b`, `a[]`, `a{}`, `a.oneOf[Label]`. */
export function tokens(field: string): Token[] {
  const out: Token[] = [];
  for (const m of field.matchAll(/(oneOf|anyOf)\[([^\]]*)\]|\[\]|\{\}|([^.[\]{}]+)/g)) {
    if (m[1]) out.push({ kind: "variant", keyword: m[1], label: m[2] });
    else if (m[0] === "[]") out.push({ kind: "items" });
    else if (m[0] === "{}") out.push({ kind: "values" });
    else out.push({ kind: "prop", name: m[3] });
  }
  return out;
}

export interface Found {
  value: unknown;
  /** JSON pointer segments from the message's root. */
  pointer: string[];
}

/** One document's schemas: navigation along tokens, and ajv over the whole document. */
export class Schemas {
  private readonly ajv = createOpenApiAjv();
  private readonly compiled = new Map<unknown, ValidateFunction | null>();

  constructor(readonly doc: Obj) {
    this.ajv.addSchema(anchored(doc) as object, SPEC_ID);
  }

  /** The schema at the end of `path` below `root`; undefined when the document has none there. */
  slotAt(root: Slot | undefined, path: Token[]): Slot | undefined {
    let slot = root;
    for (const t of path) {
      if (!slot) return undefined;
      const v = view(this.doc, slot);
      if (t.kind === "prop") slot = v.props.get(t.name);
      else if (t.kind === "items") slot = v.node.items === undefined ? undefined : { schema: v.node.items };
      else if (t.kind === "values")
        slot = isObj(v.node.additionalProperties) ? { schema: v.node.additionalProperties } : undefined;
      else slot = v.variants?.list.find((x) => x.label === t.label)?.slot;
    }
    return slot;
  }

  /**
   * undefined when ajv cannot compile the schema (a pattern it refuses...): then nothing is judged.
   * Compiled once per schema node of the document, or per `key` for a schema made on the spot.
   */
  accepts(
    schema: unknown,
    value: unknown,
    key: unknown = isObj(schema) ? schema : JSON.stringify(schema),
  ): boolean | undefined {
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      try {
        validate = this.ajv.compile(anchored(schema) as object);
      } catch {
        validate = null;
      }
      this.compiled.set(key, validate);
    }
    return validate ? validate(value) : undefined;
  }
}

/**
 * Every value at `path` in `root`. A variant token keeps the values the BASE document's variant
 * accepts: the traffic was recorded against it, and a body of another variant is not this one's.
 */
export function valuesAt(root: Found[], path: Token[], rootSlot: Slot | undefined, base: Schemas): Found[] {
  let found = root;
  for (const [i, t] of path.entries()) {
    const next: Found[] = [];
    for (const f of found) {
      const v = f.value;
      if (t.kind === "prop") {
        if (isObj(v) && Object.hasOwn(v, t.name)) next.push({ value: v[t.name], pointer: [...f.pointer, t.name] });
      } else if (t.kind === "items") {
        if (Array.isArray(v)) v.forEach((item, n) => next.push({ value: item, pointer: [...f.pointer, String(n)] }));
      } else if (t.kind === "values") {
        if (isObj(v)) for (const [k, item] of Object.entries(v)) next.push({ value: item, pointer: [...f.pointer, k] });
      } else {
        const variant = base.slotAt(rootSlot, path.slice(0, i + 1));
        if (!variant || base.accepts(variant.schema, v) !== false) next.push(f);
      }
    }
    found = next;
  }
  return found;
}

/** What a value-changing message is about; undefined for what values cannot show (a default, deprecated). */
export type Aspect = "nullable" | "type" | "values" | "closed" | "unique" | "variants" | { keyword: string };

const KEYWORDS =
  /^(maxLength|maxItems|maxProperties|maximum|exclusiveMaximum|minLength|minItems|minProperties|minimum|exclusiveMinimum|pattern|format|multipleOf|contentMediaType|contentEncoding) /;

/** The messages of schema-diff.ts's compareNode and compareChildren, by family. */
export function aspectOf(message: string): Aspect | undefined {
  if (/nullable/.test(message)) return "nullable";
  if (/^type /.test(message)) return "type";
  if (/^(enum value|const |restricted to|no longer restricted)/.test(message)) return "values";
  if (/^additionalProperties/.test(message)) return "closed";
  if (/^uniqueItems/.test(message)) return "unique";
  if (/variants?\b/.test(message)) return "variants";
  const keyword = KEYWORDS.exec(message)?.[1];
  return keyword ? { keyword } : undefined;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function typeOk(value: unknown, types: Set<string>): boolean {
  if (Array.isArray(value)) return types.has("array");
  if (typeof value === "number") return types.has("number") || (types.has("integer") && Number.isInteger(value));
  if (typeof value === "object") return types.has("object");
  return types.has(typeof value);
}

/** Query, path and header values are text: read as the schema there reads them. */
export function coerce(text: unknown, types: Set<string> | undefined): unknown {
  if (typeof text !== "string" || !types) return text;
  if ((types.has("integer") || types.has("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (types.has("boolean") && (text === "true" || text === "false")) return text === "true";
  return text;
}

/** true: the schema at `slot` refuses `value` on this aspect; undefined: it cannot be told. */
export function refuses(
  schemas: Schemas,
  slot: Slot | undefined,
  aspect: Aspect,
  raw: unknown,
  text = false,
): boolean | undefined {
  if (!slot) return undefined;
  const v = view(schemas.doc, slot);
  const value = text ? coerce(raw, v.types) : raw;
  if (aspect === "nullable") return value === null && !v.nullable;
  if (aspect === "type") return value !== null && !!v.types && !typeOk(value, v.types);
  if (aspect === "values") return value !== null && !!v.values && !v.values.some((x) => same(x, value));
  if (aspect === "closed")
    return isObj(value) && v.node.additionalProperties === false && Object.keys(value).some((k) => !v.props.has(k));
  if (aspect === "unique")
    return (
      v.node.uniqueItems === true &&
      Array.isArray(value) &&
      new Set(value.map((x) => JSON.stringify(x))).size < value.length
    );
  if (aspect === "variants") {
    const ok = schemas.accepts(slot.schema, value);
    return ok === undefined ? undefined : !ok;
  }
  const bound = v.node[aspect.keyword];
  if (bound === undefined || value === null) return false;
  const probe = { [aspect.keyword]: bound };
  const ok = schemas.accepts(probe, value, `${aspect.keyword} ${JSON.stringify(bound)}`);
  return ok === undefined ? undefined : !ok;
}
