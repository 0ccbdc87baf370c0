/**
 * A record as a collection stores it: what the client sent, plus the server's fields the record's
 * schema has and the body lacks. The id (by its schema: integers count up, uuids come from the
 * workspace's Random, other strings are short random ids), timestamps (createdAt, updated_at... on
 * the workspace clock), defaults, the parent's id for a nested collection, and under the document's
 * record rule `null` for fields that admit it and `[]` for lists; other required fields are drawn
 * from their schema (sample.ts), seeded by the record, so they look real and pass validation.
 */
import type { Clock } from "../core/clock.js";
import type { Random } from "../core/random.js";
import type { Collection } from "../store/collection.js";
import type { GenericRecord } from "../store/generic-records.js";
import { nameKey } from "../core/sampling/by-name.js";
import type { CollectionPlan, RecordRule } from "./plan.js";
import { seededSampler } from "../core/sampling/sample.js";
import { admitsNull, type Deref, flatten, propertiesOf, type Schema, typesOf } from "../core/sampling/schema.js";
import { dayOf, recordSeed } from "./seed.js";

export interface FillContext {
  plan: CollectionPlan;
  deref: Deref;
  rule?: RecordRule;
  records: Collection<GenericRecord>;
  workspace: { seed: number; workspaceId: string; random: Random; clock: Clock };
  /** The path's parameters: a nested collection's records take their parent's id from there. */
  params: Record<string, unknown>;
}

const CREATED =
  /^(created|creation|inserted|added|registered)(at|on|date|time|timestamp|datetime)?$|^(date|time)(created|added)$/;
const UPDATED =
  /^(updated|modified|changed|lastmodified|lastupdated|lastchanged|edited)(at|on|date|time|timestamp|datetime)?$|^(date|time)(updated|modified)$/;

export const isCreationStamp = (name: string) => CREATED.test(nameKey(name));
export const isUpdateStamp = (name: string) => UPDATED.test(nameKey(name));

/** How many times other seeds are tried when a drawn field does not pass the record's schema. */
const TRIES = 6;

/**
 * A new record from a create's (or a replace's) body. `kept`: what a replace keeps of the record it
 * replaces (its id and creation timestamps).
 */
export function newRecord(ctx: FillContext, body: unknown, kept?: GenericRecord): GenericRecord {
  const { plan } = ctx;
  const given = bodyFields(ctx, body);
  const id = kept?.[plan.idField] ?? given[plan.idField] ?? newId(ctx);
  let record: GenericRecord = {};
  for (let attempt = 0; attempt < TRIES; attempt++) {
    record = fill(ctx, given, id, kept, attempt);
    if (!plan.recordCheck || plan.recordCheck(record)) break;
  }
  return record;
}

/** A PATCH: the body's fields over the record's, the id and creation timestamps kept, update timestamps now. */
export function mergedRecord(ctx: FillContext, current: GenericRecord, body: unknown): GenericRecord {
  const next: GenericRecord = { ...current, ...bodyFields(ctx, body) };
  next[ctx.plan.idField] = current[ctx.plan.idField];
  for (const [key, sub] of Object.entries(properties(ctx))) {
    if (isCreationStamp(key) && key in current) next[key] = current[key];
    else if (isUpdateStamp(key) && (key in current || isRequired(ctx, key))) next[key] = stamp(ctx, sub, key);
  }
  return next;
}

function properties(ctx: FillContext): Record<string, unknown> {
  return (flatten(ctx.plan.recordSchema, ctx.deref).properties ?? {}) as Record<string, unknown>;
}

function isRequired(ctx: FillContext, key: string): boolean {
  return ((flatten(ctx.plan.recordSchema, ctx.deref).required ?? []) as string[]).includes(key);
}

/** The body's fields, less those a closed record schema does not have (a write-only password, say). */
function bodyFields(ctx: FillContext, body: unknown): GenericRecord {
  if (!body || typeof body !== "object" || Array.isArray(body)) return {};
  const schema = flatten(ctx.plan.recordSchema, ctx.deref);
  if (schema.additionalProperties !== false) return { ...(body as GenericRecord) };
  const known = (schema.properties ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(body as GenericRecord).filter(([key]) => key in known));
}

function fill(ctx: FillContext, given: GenericRecord, id: unknown, kept: GenericRecord | undefined, attempt: number) {
  const { plan, rule } = ctx;
  const schema = flatten(plan.recordSchema, ctx.deref);
  const required = new Set<string>(schema.required ?? []);
  const sampler = seededSampler(
    ctx.deref,
    (recordSeed(ctx, plan.name, String(id)) + attempt * 0x9e3779b1) >>> 0,
    dayOf(ctx.workspace.clock.nowMs()),
  );
  const record: GenericRecord = {};
  for (const [key, sub] of Object.entries<unknown>(schema.properties ?? {})) {
    const flat: Schema = flatten(sub, ctx.deref);
    if (key === plan.idField) record[key] = id;
    else if (key in given) record[key] = given[key];
    else if (isCreationStamp(key)) record[key] = kept?.[key] ?? stamp(ctx, sub, key);
    else if (isUpdateStamp(key)) record[key] = stamp(ctx, sub, key);
    else if ("default" in flat) record[key] = structuredClone(flat.default);
    else if (plan.parentParams.includes(key) && ctx.params[key] !== undefined) record[key] = ctx.params[key];
    else if (rule?.missing === "null" && admitsNull(sub, ctx.deref)) record[key] = null;
    else if (rule?.emptyCollection === "array" && typesOf(sub, ctx.deref).includes("array") && !(flat.minItems > 0))
      record[key] = [];
    else if (required.has(key)) record[key] = sampler.value(sub, key, 1);
  }
  // What the body has beyond the schema's properties (an open schema keeps it), and an id the schema does not name.
  for (const [key, value] of Object.entries(given)) if (!(key in record)) record[key] = value;
  if (!(plan.idField in record)) record[plan.idField] = id;
  return record;
}

/** Now on the workspace clock, written as the field's schema wants it (date-time, date, or epoch seconds). */
function stamp(ctx: FillContext, sub: unknown, key: string): unknown {
  const ms = ctx.workspace.clock.nowMs();
  const flat = flatten(sub, ctx.deref);
  const types = typesOf(sub, ctx.deref);
  if (!types.includes("string") && (types.includes("integer") || types.includes("number")))
    return /(ms|millis)/i.test(key) ? ms : Math.floor(ms / 1000);
  const iso = new Date(ms).toISOString();
  return flat.format === "date" ? iso.slice(0, 10) : iso;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new id no record of the collection has, of the kind the id field's schema describes. */
export function newId(ctx: FillContext): string | number {
  const { plan, records, workspace } = ctx;
  const sub = propertiesOf(plan.recordSchema, ctx.deref)[plan.idField];
  const schema: Schema = flatten(sub, ctx.deref);
  const types = typesOf(sub, ctx.deref);
  if (types.includes("integer") || (types.includes("number") && !types.includes("string"))) {
    let max = Math.max(0, (schema.minimum ?? 1) - 1);
    for (const id of records.ids()) if (/^\d+$/.test(id)) max = Math.max(max, Number(id));
    return max + 1;
  }
  const uuid =
    schema.format === "uuid" || [schema.example, ...(schema.examples ?? [])].some((e) => UUID.test(String(e)));
  for (let tries = 0; tries < 20; tries++) {
    const id = uuid ? workspace.random.uuid() : shortId(workspace.random, schema, ctx);
    if (!records.has(id)) return id;
  }
  return workspace.random.uuid();
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

function shortId(random: Random, schema: Schema, ctx: FillContext): string {
  if (typeof schema.pattern === "string") {
    // The id's own pattern, drawn from a seed the workspace's Random gives.
    const sampler = seededSampler(ctx.deref, Math.floor(random.next() * 2 ** 32), new Date(0));
    return String(sampler.value(schema));
  }
  const length = Math.min(Math.max(10, schema.minLength ?? 0), schema.maxLength ?? 10);
  let id = "";
  while (id.length < length) id += ALPHABET[random.int(0, ALPHABET.length - 1)];
  return id;
}
