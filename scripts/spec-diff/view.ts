/**
 * Flattens one JSON Schema node of a bundled OpenAPI 3.1 document into what the differ compares.
 * Follows local $refs (with cycle protection), reads 3.1 nullability in all its spellings
 * (`type: [string, "null"]`, `oneOf: [X, {type: "null"}]`, `enum`/`const` with null, 3.0 `nullable`),
 * and merges `allOf` members, so `{$ref: X}` and `oneOf: [{$ref: X}, {type: "null"}]` compare as
 * "the same X, now nullable" instead of two unrelated shapes.
 */

export type Obj = Record<string, unknown>;

/** A schema as found, with the component it lives in (for the report). */
export interface Slot {
  schema: unknown;
  origin?: string;
}

export interface Variant {
  label: string;
  slot: Slot;
}

export interface View {
  /** Keywords of the schema after $ref, null-wrapper and allOf flattening. */
  node: Obj;
  nullable: boolean;
  /** Where null is allowed: the wrapper `oneOf: [X, {type: null}]`, not X. */
  nullOrigin?: string;
  /** Types other than null; undefined when unconstrained. */
  types?: Set<string>;
  /** enum or const values other than null; undefined when unconstrained. */
  values?: unknown[];
  props: Map<string, Slot>;
  required: Set<string>;
  /** Branches of a oneOf/anyOf that are not just null, when there are two or more. */
  variants?: { keyword: string; list: Variant[] };
  origin?: string;
  /** $refs followed to reach this node: the cycle key. */
  refs: string[];
}

export const isObj = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `#/components/schemas/Call` -> the node; undefined for a dangling or non-local ref. */
export function deref(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node = doc;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isObj(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** `#/components/schemas/Call` -> `components.schemas.Call`. */
export const dotted = (ref: string): string =>
  ref
    .slice(2)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

/** Follows a $ref chain; siblings of a $ref (allowed in 3.1) override the target's keywords. */
export function resolve(
  doc: unknown,
  value: unknown,
  origin?: string,
): { node: unknown; origin?: string; refs: string[] } {
  let node = value;
  const refs: string[] = [];
  while (isObj(node) && typeof node.$ref === "string") {
    const ref = node.$ref;
    const target = deref(doc, ref);
    if (refs.includes(ref) || target === undefined) break;
    refs.push(ref);
    origin = dotted(ref);
    const { $ref: _, ...siblings } = node;
    node = isObj(target) ? { ...target, ...siblings } : target;
  }
  return { node, origin, refs };
}

const NULL_ONLY = (n: unknown): boolean =>
  isObj(n) &&
  (n.type === "null" ||
    (Array.isArray(n.type) && n.type.length === 1 && n.type[0] === "null") ||
    (n.const === null && !("type" in n)) ||
    (Array.isArray(n.enum) && n.enum.length === 1 && n.enum[0] === null));

function variantLabel(doc: unknown, branch: unknown, index: number): string {
  if (isObj(branch) && typeof branch.$ref === "string") return branch.$ref.split("/").pop() ?? `#${index}`;
  const { node } = resolve(doc, branch);
  if (isObj(node) && isObj(node.properties)) {
    for (const [name, prop] of Object.entries(node.properties)) {
      if (isObj(prop) && (typeof prop.const === "string" || typeof prop.const === "number"))
        return `${name}=${prop.const}`;
    }
  }
  return `#${index}`;
}

const ANY: View = { node: {}, nullable: true, props: new Map(), required: new Set(), refs: [] };

/** The flat view of one schema. `depth` only guards against allOf/oneOf chains that loop through refs. */
export function view(doc: unknown, slot: Slot, depth = 0): View {
  const { node: resolved, origin, refs } = resolve(doc, slot.schema, slot.origin);
  if (resolved === false) return { ...ANY, nullable: false, types: new Set(), values: [], refs };
  if (!isObj(resolved) || depth > 32) return { ...ANY, refs };
  const node = resolved;
  let nullable = node.nullable === true;
  let types: Set<string> | undefined;
  if (typeof node.type === "string" || Array.isArray(node.type)) {
    const list = ([] as unknown[]).concat(node.type).map(String);
    nullable ||= list.includes("null");
    types = new Set(list.filter((t) => t !== "null"));
  }
  let values: unknown[] | undefined;
  if ("const" in node) values = [node.const];
  else if (Array.isArray(node.enum)) values = node.enum;
  if (values?.includes(null)) {
    nullable = true;
    values = values.filter((v) => v !== null);
  }
  const props = new Map<string, Slot>();
  for (const [name, schema] of Object.entries(isObj(node.properties) ? node.properties : {})) {
    props.set(name, { schema, origin: origin && `${origin}.properties.${name}` });
  }
  const own: View = {
    node,
    nullable,
    types,
    values,
    props,
    required: new Set(Array.isArray(node.required) ? node.required.map(String) : []),
    origin,
    nullOrigin: origin,
    refs,
  };

  for (const keyword of ["oneOf", "anyOf"]) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    const slots = branches.map((schema, i) => ({ schema, origin: origin && `${origin}.${keyword}[${i}]` }));
    const others = slots.filter((s) => !NULL_ONLY(resolve(doc, s.schema).node));
    const withNull = others.length < slots.length;
    if (others.length === 1 && !own.types && !own.props.size) {
      // `oneOf: [X, {type: null}]` is X, nullable: compare it as X.
      const inner = view(doc, others[0], depth + 1);
      const nullOrigin = inner.nullable ? inner.nullOrigin : origin;
      return { ...inner, nullable: inner.nullable || withNull || nullable, nullOrigin, refs: [...refs, ...inner.refs] };
    }
    own.nullable ||= withNull;
    if (others.length > 1)
      own.variants = { keyword, list: others.map((s, i) => ({ label: variantLabel(doc, s.schema, i), slot: s })) };
  }

  if (!Array.isArray(node.allOf)) return own;
  const members = node.allOf.map((schema, i) =>
    view(doc, { schema, origin: origin && `${origin}.allOf[${i}]` }, depth + 1),
  );
  const all = [...members, own];
  const typed = all.filter((m) => m.types);
  const merged: View = {
    ...own,
    node: Object.assign({}, ...all.map((m) => m.node)),
    props: new Map(),
    required: new Set(),
  };
  for (const m of all) {
    for (const [name, s] of m.props) if (!merged.props.has(name)) merged.props.set(name, s);
    for (const name of m.required) merged.required.add(name);
    merged.values ??= m.values;
    merged.variants ??= m.variants;
  }
  if (typed.length) merged.types = new Set([...typed[0].types!].filter((t) => typed.every((m) => m.types!.has(t))));
  merged.nullable = all.some((m) => m.nullable) && typed.every((m) => m.nullable);
  return merged;
}
