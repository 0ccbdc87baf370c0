/**
 * Which variants of the catalogue one answer shows. It runs for every /v1 answer on the mock's hot path,
 * so it follows what catalogue.ts compiled (status table, page variants, the tree of the fields that can
 * show something) and allocates nothing but the result and, once per record, the list of what that record
 * shows (a record read again costs a lookup): duplicates (the same enum value in every item of a page) are
 * told apart by a stamp per variant, not by a Set built for each answer.
 */
import type { Catalogue, CompiledOperation } from "./catalogue.js";
import type { ValueShape } from "./schema-fields.js";

export interface ObservedAnswer {
  operationId: string;
  status: number;
  /** For reference only: the page kind is read from the body. */
  query: Record<string, string | string[]>;
  body: unknown;
}

/** Per catalogue: the answer each variant was last counted for, so one answer names it once. */
interface Stamps {
  marks: Uint32Array;
  /** The same, for collecting one record's own variants (recordWalk). */
  recordMarks: Uint32Array;
  /** The last stamp given, to an answer or to a record being collected. */
  answer: number;
}
const stampsOf = new WeakMap<Catalogue, Stamps>();

/** The walk's state: the walk is synchronous, so one at a time, and no closure is made per answer. */
let marks: Uint32Array = new Uint32Array(0);
let answer = 0;
let keysOf: Catalogue["variants"] = [];
let stamps: Stamps = { marks, recordMarks: marks, answer };
/** Where hit() writes: the answer's result while a walk runs, an array never read otherwise. */
const IDLE: string[] = [];
let out = IDLE;
/** While a record's own variants are collected (recordWalk), hit() writes their indices here instead. */
let collecting: number[] | undefined;

function hit(index: number): void {
  if (marks[index] === answer) return;
  marks[index] = answer;
  if (collecting) collecting.push(index);
  else out.push(keysOf[index].key);
}

/**
 * The variants each record shows, by the shape it was walked with: stored records are never changed
 * in place (core/reply-json.ts), and a list serves the same ones again and again, so each is walked
 * once and then costs a lookup.
 */
const shownBy = new WeakMap<ValueShape, WeakMap<object, readonly number[]>>();

/** walk() for a record (a page's item, a single answer), remembered by the record's identity. */
function recordWalk(shape: ValueShape, record: unknown): void {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return walk(shape, record);
  let byRecord = shownBy.get(shape);
  if (!byRecord) shownBy.set(shape, (byRecord = new WeakMap()));
  let shown = byRecord.get(record);
  if (!shown) {
    // Its own marks and stamp: what this answer already showed neither hides from the record's list nor is forgotten.
    const answering = answer;
    answer = nextStamp();
    marks = stamps.recordMarks;
    collecting = [];
    walk(shape, record);
    shown = collecting;
    collecting = undefined;
    marks = stamps.marks;
    answer = answering;
    byRecord.set(record, shown);
  }
  for (let i = 0; i < shown.length; i++) hit(shown[i]);
}

function nextStamp(): number {
  if (++stamps.answer === 0xffffffff) stamps.marks.fill(0), stamps.recordMarks.fill(0), (stamps.answer = 1);
  return stamps.answer;
}

function walk(shape: ValueShape, value: unknown): void {
  if (value === undefined) return; // absent: neither null nor set
  const own = shape.own;
  if (value === null) {
    if (own?.nullIndex !== undefined) hit(own.nullIndex);
    return;
  }
  if (own) {
    if (own.setIndex !== undefined) hit(own.setIndex);
    if (own.enums.size > 0) {
      const index = own.enums.get(value);
      if (index !== undefined) hit(index);
    }
  }
  if (typeof value !== "object") return;
  if (Array.isArray(value)) {
    const items = shape.items;
    if (items) for (let i = 0; i < value.length; i++) walk(items, value[i]);
    return;
  }
  const properties = shape.properties;
  if (!properties) return;
  const object = value as Record<string, unknown>;
  for (let i = 0; i < properties.length; i++) walk(properties[i][1], object[properties[i][0]]);
}

function observeBody(op: CompiledOperation, body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const object = body as Record<string, unknown>;
  if (op.pages) {
    const data = object.data;
    if (!Array.isArray(data)) return;
    const { hasNext, hasPrevious } = object;
    if (data.length === 0) hit(op.pages.empty);
    else if (hasPrevious === false && hasNext === true) hit(op.pages.first);
    else if (hasPrevious === true && hasNext === true) hit(op.pages.middle);
    else if (hasPrevious === true && hasNext === false) hit(op.pages.last);
    const fields = op.fields;
    if (fields) for (let i = 0; i < data.length; i++) recordWalk(fields, data[i]);
    return;
  }
  if (op.fields) recordWalk(op.fields, object);
}

/** The keys of the catalogue's variants this one answer shows (no duplicates). */
export function observedVariants(catalogue: Catalogue, observed: ObservedAnswer): string[] {
  const op = catalogue.operations.get(observed.operationId);
  if (!op) return [];
  let own = stampsOf.get(catalogue);
  if (!own) {
    const size = catalogue.variants.length;
    stampsOf.set(catalogue, (own = { marks: new Uint32Array(size), recordMarks: new Uint32Array(size), answer: 0 }));
  }
  stamps = own;
  marks = own.marks;
  answer = nextStamp();
  keysOf = catalogue.variants;
  const result: string[] = (out = []);
  const statusIndex = op.statuses.get(observed.status);
  if (statusIndex !== undefined) hit(statusIndex);
  if (observed.status >= 200 && observed.status < 300) observeBody(op, observed.body);
  out = IDLE;
  IDLE.length = 0;
  return result;
}

/** The key of the webhook variant of event kind `event`, if the spec has one. */
export function webhookVariantKey(catalogue: Catalogue, event: string): string | undefined {
  const index = catalogue.webhooks.get(event);
  return index === undefined ? undefined : catalogue.variants[index].key;
}
