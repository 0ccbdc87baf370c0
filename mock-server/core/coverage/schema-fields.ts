/**
 * The fields of a response schema that a reader can see vary: every enum value and both sides (null,
 * set) of every nullable field, reached through $ref, allOf, oneOf and anyOf, into nested objects and
 * array items. The walk runs once per document (catalogue.ts memoises it); observe.ts follows the tree
 * it returns over each answer, so the tree keeps only the branches that lead to something to see.
 */
import { derefIn } from "../spec.js";

/** Marks an array's items in a field path: `tools[].type`. */
export const ITEMS = "[]";

/**
 * The variants one field shows, as indexes into the catalogue's variants. The walk hands out empty
 * slots and the catalogue fills them once it has put every variant in its order.
 */
export interface FieldVariants {
  /** Enum value -> variant index. */
  enums: Map<unknown, number>;
  /** Variant index of `<field>=null` (nullable fields only). */
  nullIndex?: number;
  /** Variant index of `<field>=set` (nullable fields only). */
  setIndex?: number;
}

/** What one value of a response can show: its own variants, and those of what it holds. */
export interface ValueShape {
  own?: FieldVariants;
  /** An object's properties that can show something, in the schema's order. */
  properties?: [name: string, shape: ValueShape][];
  /** An array's items, when they can show something. */
  items?: ValueShape;
}

/** The enum values and nullability found at one field, in walk order. */
export interface FieldFacts {
  field: string[];
  enumValues: unknown[];
  nullable: boolean;
}

type Schema = Record<string, unknown>;

/** A schema and the $refs open on the way to it: a schema that refers back to one of them stops there. */
export interface Found {
  schema: unknown;
  refs: ReadonlySet<string>;
}

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** What a value at one place may be, over all the branches of its schemas. */
interface Merged {
  nullable: boolean;
  enumValues: unknown[];
  properties: Map<string, Found[]>;
  items: Found[];
}

/** Deepest nesting followed: far beyond the spec's own, a stop should a recursion slip past the $ref guard. */
const MAX_DEPTH = 12;

/** Folds schemas ($ref chains resolved, allOf/oneOf/anyOf branches taken together) into one description. */
function merge(document: object, found: Found[]): Merged {
  const merged: Merged = { nullable: false, enumValues: [], properties: new Map(), items: [] };
  const visit = (node: unknown, refs: ReadonlySet<string>) => {
    if (!isObject(node)) return;
    if (typeof node.$ref === "string") {
      if (refs.has(node.$ref)) return;
      visit(derefIn<unknown>(document, node), new Set(refs).add(node.$ref));
      return;
    }
    const type = node.type;
    if (type === "null" || (Array.isArray(type) && type.includes("null")) || node.nullable === true)
      merged.nullable = true;
    if (Array.isArray(node.enum))
      for (const value of node.enum)
        if (value === null) merged.nullable = true;
        else if (!merged.enumValues.includes(value)) merged.enumValues.push(value);
    if (isObject(node.properties))
      for (const [name, schema] of Object.entries(node.properties)) {
        const list = merged.properties.get(name) ?? [];
        list.push({ schema, refs });
        merged.properties.set(name, list);
      }
    if (isObject(node.items)) merged.items.push({ schema: node.items, refs });
    for (const key of ["allOf", "oneOf", "anyOf"] as const)
      if (Array.isArray(node[key])) for (const branch of node[key]) visit(branch, refs);
  };
  for (const { schema, refs } of found) visit(schema, refs);
  return merged;
}

/**
 * Walks the schemas of a resource and calls `fact` for every field that has enum values or is nullable,
 * in schema order, depth first; `fact` answers the slot that will hold the field's variant indexes.
 * Returns the tree observe.ts follows, or undefined when nothing under it can show a variant.
 */
export function walkFields(
  document: object,
  found: Found[],
  fact: (facts: FieldFacts) => FieldVariants,
  field: string[] = [],
  depth = 0,
): ValueShape | undefined {
  if (depth > MAX_DEPTH || found.length === 0) return undefined;
  const merged = merge(document, found);
  const shape: ValueShape = {};
  if (field.length > 0 && (merged.enumValues.length > 0 || merged.nullable))
    shape.own = fact({ field, enumValues: merged.enumValues, nullable: merged.nullable });
  const properties: [string, ValueShape][] = [];
  for (const [name, list] of merged.properties) {
    const child = walkFields(document, list, fact, [...field, name], depth + 1);
    if (child) properties.push([name, child]);
  }
  if (properties.length > 0) shape.properties = properties;
  const items = walkFields(document, merged.items, fact, [...field, ITEMS], depth + 1);
  if (items) shape.items = items;
  return shape.own || shape.properties || shape.items ? shape : undefined;
}

/** A schema found at the top of a response, with no $ref open yet. */
export const atTop = (schema: unknown): Found[] => [{ schema, refs: new Set() }];

/** The schemas of the items of `data` in a list's page (allOf branches taken together). */
export function pageItems(document: object, pageSchema: unknown): Found[] {
  const data = merge(document, atTop(pageSchema)).properties.get("data") ?? [];
  return merge(document, data).items;
}

/** `["phoneNumber", "provider"]` -> `phoneNumber.provider`; `["tools", "[]", "type"]` -> `tools[].type`. */
export function fieldName(field: readonly string[]): string {
  let out = "";
  for (const segment of field) out += segment === ITEMS || out === "" ? segment : `.${segment}`;
  return out;
}
