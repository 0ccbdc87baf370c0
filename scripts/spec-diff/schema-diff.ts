/**
 * Compares two JSON Schemas (from the two bundled documents) and reports each difference as
 * narrowing or widening what the schema allows; the sink's direction (request or response) turns
 * that into breaking or not. Descends into properties, items, additionalProperties and oneOf/anyOf
 * variants, following $refs with a stack of visited ref pairs so recursive schemas terminate.
 * Documentation keywords are ignored here: docs-diff.ts counts them once per component.
 */
import { memberChange, show, type Effect, type Sink } from "./model.js";
import { isObj, resolve, view, type Slot, type View } from "./view.js";

export interface Walk {
  base: unknown;
  head: unknown;
  sink: Sink;
  /** Ref pairs on the current descent: a pair seen again is a cycle. */
  stack: Set<string>;
}

const UPPER = ["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum"];
const LOWER = ["minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum"];
const SHAPE = ["pattern", "format", "multipleOf", "contentMediaType", "contentEncoding"];

const at = (where: string, path: string): string => (path ? `${where}: ${path}` : where);
const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const list = (values: unknown[]): string => values.map(show).join(", ");
const covers = (types: Set<string>, t: string): boolean => types.has(t) || (t === "integer" && types.has("number"));

export function diffSchema(w: Walk, where: string, path: string, base: Slot, head: Slot): void {
  const b = view(w.base, base);
  const h = view(w.head, head);
  // Only $refs can make a bundled document recursive: inline nodes need no cycle key.
  const key = b.refs.length || h.refs.length ? `${b.refs.join(",")}|${h.refs.join(",")}` : undefined;
  if (key && w.stack.has(key)) return;
  if (key) w.stack.add(key);
  try {
    compareNode(w, at(where, path), h.origin ?? b.origin, b, h);
    compareProperties(w, where, path, b, h);
    compareChildren(w, where, path, b, h);
  } finally {
    if (key) w.stack.delete(key);
  }
}

function compareNode(w: Walk, loc: string, origin: string | undefined, b: View, h: View): void {
  const add = (effect: Effect, message: string): void => w.sink.add(loc, effect, message, origin);
  if (!b.nullable && h.nullable) w.sink.add(loc, "widens", "became nullable", h.nullOrigin ?? origin);
  if (b.nullable && !h.nullable) w.sink.add(loc, "narrows", "no longer nullable", b.nullOrigin ?? origin);

  if (b.types && h.types) {
    const removed = [...b.types].filter((t) => !covers(h.types!, t));
    const added = [...h.types].filter((t) => !covers(b.types!, t));
    if (removed.length || added.length) {
      add(
        removed.length && added.length ? "both" : removed.length ? "narrows" : "widens",
        `type ${[...b.types].join("|")} -> ${[...h.types].join("|")}`,
      );
    }
  } else if (h.types && !b.variants && !h.variants) add("narrows", `type ${[...h.types].join("|")} added`);
  else if (b.types && !b.variants && !h.variants) add("widens", "type constraint removed");

  if ("const" in b.node && "const" in h.node) {
    if (!same(b.node.const, h.node.const)) add("both", `const ${show(b.node.const)} -> ${show(h.node.const)}`);
  } else if (b.values && h.values) {
    const removed = b.values.filter((v) => !h.values!.some((x) => same(x, v)));
    const added = h.values.filter((v) => !b.values!.some((x) => same(x, v)));
    if (removed.length) add("narrows", `enum value${removed.length > 1 ? "s" : ""} ${list(removed)} removed`);
    if (added.length) add("widens", `enum value${added.length > 1 ? "s" : ""} ${list(added)} added`);
  } else if (h.values) add("narrows", `restricted to ${list(h.values)}`);
  else if (b.values) add("widens", `no longer restricted to ${list(b.values)}`);

  // A bound moves one way or the other; a changed pattern or format cannot be ordered, so it is "both".
  const keywordSets = [
    [UPPER, (x: number, y: number) => y < x],
    [LOWER, (x: number, y: number) => y > x],
    [SHAPE, undefined],
  ] as const;
  for (const [keywords, tighter] of keywordSets) {
    for (const k of keywords) {
      const x = b.node[k];
      const y = h.node[k];
      if (same(x, y)) continue;
      if (x === undefined) add("narrows", `${k} ${show(y)} added`);
      else if (y === undefined) add("widens", `${k} ${show(x)} removed`);
      else if (tighter && typeof x === "number" && typeof y === "number")
        add(tighter(x, y) ? "narrows" : "widens", `${k} ${x} -> ${y}`);
      else add("both", `${k} ${show(x)} -> ${show(y)}`);
    }
  }
  if (!b.node.uniqueItems !== !h.node.uniqueItems)
    add(h.node.uniqueItems ? "narrows" : "widens", `uniqueItems ${h.node.uniqueItems ? "added" : "removed"}`);
  const shown = (v: unknown): string => (v === undefined ? "(none)" : show(v));
  if (!same(b.node.default, h.node.default))
    add("neutral", `default ${shown(b.node.default)} -> ${shown(h.node.default)}`);
  if (!b.node.deprecated && h.node.deprecated) add("neutral", "deprecated");

  const bClosed = b.node.additionalProperties === false;
  const hClosed = h.node.additionalProperties === false;
  if (!bClosed && hClosed) add("narrows", "additionalProperties: false added (unknown fields are rejected)");
  if (bClosed && !hClosed) add("widens", "additionalProperties no longer false");
}

/** readOnly members are not sent by clients; writeOnly members are not returned to them. */
function skipped(w: Walk, doc: unknown, slot: Slot | undefined): boolean {
  if (!slot) return true;
  const { node } = resolve(doc, slot.schema);
  if (!isObj(node)) return false;
  return w.sink.direction === "request" ? node.readOnly === true : node.writeOnly === true;
}

function compareProperties(w: Walk, where: string, path: string, b: View, h: View): void {
  const closed = h.node.additionalProperties === false;
  for (const name of new Set([...b.props.keys(), ...h.props.keys()])) {
    const bs = b.props.get(name);
    const hs = h.props.get(name);
    if (skipped(w, w.base, bs) && skipped(w, w.head, hs)) continue;
    const p = child(path, name);
    const origin = hs?.origin ?? bs?.origin;
    memberChange(
      w.sink,
      at(where, p),
      "field",
      bs && { required: b.required.has(name) },
      hs && { required: h.required.has(name) },
      origin,
      closed,
    );
    if (bs && hs) diffSchema(w, where, p, bs, hs);
  }
}

function compareChildren(w: Walk, where: string, path: string, b: View, h: View): void {
  const origin = (v: View, k: string): string | undefined => v.origin && `${v.origin}.${k}`;
  if (b.node.items !== undefined && h.node.items !== undefined) {
    diffSchema(
      w,
      where,
      `${path}[]`,
      { schema: b.node.items, origin: origin(b, "items") },
      { schema: h.node.items, origin: origin(h, "items") },
    );
  }
  const ba = b.node.additionalProperties;
  const ha = h.node.additionalProperties;
  if (isObj(ba) && isObj(ha)) {
    diffSchema(
      w,
      where,
      `${path}{}`,
      { schema: ba, origin: origin(b, "additionalProperties") },
      { schema: ha, origin: origin(h, "additionalProperties") },
    );
  }
  if (!b.variants && !h.variants) return;
  const loc = at(where, path);
  if (!b.variants || !h.variants) {
    const n = (h.variants ?? b.variants)!.list.length;
    w.sink.add(
      loc,
      "both",
      h.variants
        ? `became a ${h.variants.keyword} of ${n} variants`
        : `no longer a ${b.variants!.keyword} of ${n} variants`,
      h.origin ?? b.origin,
    );
    return;
  }
  const keyword = h.variants.keyword;
  const bl = new Map(b.variants.list.map((v) => [v.label, v.slot]));
  const hl = new Map(h.variants.list.map((v) => [v.label, v.slot]));
  for (const label of new Set([...bl.keys(), ...hl.keys()])) {
    const bs = bl.get(label);
    const hs = hl.get(label);
    const p = `${path ? `${path}.` : ""}${keyword}[${label}]`;
    // A variant removed: fewer shapes accepted (request) or returned (response); added: the reverse.
    if (bs && !hs) w.sink.add(at(where, p), "narrows", "variant removed", bs.origin ?? b.origin);
    else if (!bs && hs) w.sink.add(at(where, p), "widens", "variant added", hs.origin ?? h.origin);
    else diffSchema(w, where, p, bs!, hs!);
  }
}
