/**
 * What the generic layer makes of a document, decided once per Contract from its paths and methods:
 * which operations form a collection, and the role of each in it.
 *
 *   POST /x create · GET /x list · GET /x/{p} read · PATCH /x/{p} merge · PUT /x/{p} replace
 *   DELETE /x/{p} delete · PUT|PATCH /x replace|merge with the id in the body
 *
 * A path is a collection when at least two of these are there and their records agree (the response
 * schemas of create, read and replace, and the list's items, describe one kind of record). Every other
 * operation (one alone, a sub-resource such as /x/{p}/auth, a form or upload body) answers from its
 * schema. The id field is the path parameter's name when the record has that property, else `id` when
 * it has that, else the parameter's name anyway.
 */
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";
import type { CompiledValidator } from "../core/validation.js";
import { capitalise, nameKey, singular } from "../core/sampling/by-name.js";
import { parameterSchemas } from "./document.js";
import { type ListShape, listShapeOf, type Paging, pagingOf } from "./list-shape.js";
import { type Deref, flatten, isObjectSchema, refName, type Schema } from "../core/sampling/schema.js";

export type Role = "create" | "list" | "read" | "merge" | "replace" | "delete";

/** The document's record rule (the root `x-record-rule`): how a record shows a field without a value. */
export interface RecordRule {
  /** "null": a field without a value is null, never left out (where its schema admits null). */
  missing?: "null" | "omit";
  /** "array": a list without members is an empty array, never left out. */
  emptyCollection?: "array" | "omit";
}

export interface CollectionPlan {
  /** The name of its records in the workspace (`things`, `store.order`): no colon. */
  name: string;
  idField: string;
  /** How its messages name one record (`Pet not found: 7`). */
  label: string;
  /** `/v1/things`, and the item path `/v1/things/{thingId}` when there is one. */
  path: string;
  itemPath?: string;
  itemParam?: string;
  /** Path parameters of the collection path itself (`/users/{userId}/posts`): records carry them when their schema has them. */
  parentParams: string[];
  /** The record's schema as the document writes it (maybe a $ref). */
  recordSchema: unknown;
  /** Validates a record, when the document gives a schema to do it with. */
  recordCheck?: (record: unknown) => boolean;
  recordErrors?: () => { instancePath: string; message?: string }[];
  /** Its operations, in the document's order. */
  operations: { operationId: string; role: Role; idFrom: "path" | "body" }[];
}

export type Decision =
  | {
      kind: "collection";
      collection: CollectionPlan;
      role: Role;
      /** Where a change finds the record's id: the item path, or the body (PUT|PATCH /x). */
      idFrom: "path" | "body";
      /** A list's documented shape and paging. */
      list?: { shape: ListShape; paging: Paging };
    }
  | { kind: "schema" };

export interface Plan {
  collections: CollectionPlan[];
  decisions: Map<string, Decision>;
  recordRule?: RecordRule;
}

const cache = new WeakMap<Contract, Plan>();

/** The plan of a contract, made on first use and kept with it. */
export function planOf(contract: Contract): Plan {
  let plan = cache.get(contract);
  if (!plan) cache.set(contract, (plan = buildPlan(contract)));
  return plan;
}

/** The decision for one operation (schema, when the plan has none for it). */
export function decisionOf(contract: Contract, operationId: string): Decision {
  return planOf(contract).decisions.get(operationId) ?? { kind: "schema" };
}

const ITEM = /^\{([^}]+)\}$/;

interface Candidate {
  op: Operation;
  role: Role;
  idFrom: "path" | "body";
  /** The record this operation answers with, when it answers with one. */
  record?: unknown;
  list?: { shape: ListShape; paging: Paging };
}

function buildPlan(contract: Contract): Plan {
  const deref: Deref = (node) => contract.deref(node);
  const groups = new Map<string, { item?: string; param?: string; ops: Candidate[] }>();
  const decisions = new Map<string, Decision>();
  for (const op of contract.operations) {
    decisions.set(op.operationId, { kind: "schema" });
    const segments = op.path.split("/");
    const last = segments[segments.length - 1];
    const param = ITEM.exec(last)?.[1];
    const base = param ? segments.slice(0, -1).join("/") || "/" : op.path;
    if (base.includes(":")) continue;
    let group = groups.get(base);
    if (!group) groups.set(base, (group = { ops: [] }));
    if (param) {
      // One item path per collection: a second (another parameter's name) stays a schema operation.
      if (group.item && group.item !== op.path) continue;
      group.item = op.path;
      group.param = param;
    }
    const candidate = candidateOf(contract, deref, op, Boolean(param));
    if (candidate) group.ops.push(candidate);
  }
  const collections: CollectionPlan[] = [];
  const names = new Set<string>();
  for (const [path, group] of groups) {
    const collection = collectionOf(contract, deref, path, group, names);
    if (!collection) continue;
    collections.push(collection.plan);
    for (const c of collection.members)
      decisions.set(c.op.operationId, {
        kind: "collection",
        collection: collection.plan,
        role: c.role,
        idFrom: c.idFrom,
        ...(c.list && { list: c.list }),
      });
  }
  for (const op of contract.operations) {
    if (decisions.get(op.operationId)?.kind !== "schema") continue;
    const search = searchOf(contract, deref, op, collections);
    if (!search) continue;
    search.collection.operations.push({ operationId: op.operationId, role: "list", idFrom: "path" });
    decisions.set(op.operationId, { kind: "collection", role: "list", idFrom: "path", ...search });
  }
  const rule = (contract.document as Record<string, unknown>)["x-record-rule"];
  return {
    collections,
    decisions,
    ...(rule && typeof rule === "object" ? { recordRule: rule as RecordRule } : {}),
  };
}

/** The role an operation would have in a collection, and the record it answers with; none when it has no role. */
function candidateOf(contract: Contract, deref: Deref, op: Operation, onItem: boolean): Candidate | undefined {
  // Changes take JSON (a form or an upload is something else).
  if (op.bodyType && op.bodyType !== "application/json") return undefined;
  const response = (status: number) => op.responses.get(status)?.schema;
  const record = (status: number) => recordIn(response(status), deref);
  if (onItem) {
    if (op.method === "get") return { op, role: "read", idFrom: "path", record: record(op.successStatus) };
    if (op.method === "delete") return { op, role: "delete", idFrom: "path" };
    if (!op.bodyType) return undefined;
    const role = op.method === "patch" ? "merge" : op.method === "put" ? "replace" : undefined;
    return role && { op, role, idFrom: "path", record: record(op.successStatus) };
  }
  if (op.method === "get") {
    const shape = listShapeOf(response(op.successStatus), deref);
    if (!shape) return undefined;
    const paging = pagingOf(parameterSchemas(contract, op, "query"), deref);
    return { op, role: "list", idFrom: "path", record: shape.items, list: { shape, paging } };
  }
  if (op.method === "post") {
    const status = op.responses.has(201) ? 201 : op.successStatus;
    return { op, role: "create", idFrom: "path", record: record(status) };
  }
  if ((op.method === "put" || op.method === "patch") && op.bodyType)
    return { op, role: op.method === "put" ? "replace" : "merge", idFrom: "body", record: record(op.successStatus) };
  return undefined;
}

/**
 * A search of a collection: `GET /x/findByStatus`, `GET /x/search`, one static segment below the
 * collection's path, answering a list of its records. It lists them as the collection's list does,
 * filtered by the query's record fields.
 */
function searchOf(
  contract: Contract,
  deref: Deref,
  op: Operation,
  collections: CollectionPlan[],
): { collection: CollectionPlan; list: { shape: ListShape; paging: Paging } } | undefined {
  if (op.method !== "get") return undefined;
  const segments = op.path.split("/");
  if (ITEM.test(segments[segments.length - 1]) || segments.length < 3) return undefined;
  const parent = segments.slice(0, -1).join("/");
  const collection = collections.find((c) => c.path === parent);
  if (!collection) return undefined;
  const shape = listShapeOf(op.responses.get(op.successStatus)?.schema, deref);
  if (!shape) return undefined;
  const sameRecord =
    (refName(shape.items) !== undefined && refName(shape.items) === refName(collection.recordSchema)) ||
    agree(
      Object.keys(flatten(collection.recordSchema, deref).properties ?? {}),
      Object.keys(flatten(shape.items, deref).properties ?? {}),
    );
  if (!sameRecord || !isObjectSchema(shape.items, deref)) return undefined;
  return { collection, list: { shape, paging: pagingOf(parameterSchemas(contract, op, "query"), deref) } };
}

/** Names an envelope of one record may have (`{ "data": { ...record } }`). */
const ENVELOPES = ["data", "item", "result", "record", "resource", "value"];

/** The record a response schema holds: the schema when it is an object, or the one object in an envelope. */
export function recordIn(schema: unknown, deref: Deref): unknown {
  if (schema === undefined || !isObjectSchema(schema, deref)) return undefined;
  const properties = (flatten(schema, deref).properties ?? {}) as Record<string, unknown>;
  const keys = Object.keys(properties);
  if (keys.length === 1 && ENVELOPES.includes(nameKey(keys[0])) && isObjectSchema(properties[keys[0]], deref))
    return properties[keys[0]];
  return schema;
}

/** Read wins: it is the record as the collection serves it. */
const RECORD_PRIORITY: Role[] = ["read", "replace", "create", "merge", "list"];

function collectionOf(
  contract: Contract,
  deref: Deref,
  path: string,
  group: { item?: string; param?: string; ops: Candidate[] },
  names: Set<string>,
): { plan: CollectionPlan; members: Candidate[] } | undefined {
  // One operation per role (two lists on one path would be odd: the first is the list).
  const seen = new Set<string>();
  const ops = group.ops.filter((c) => {
    const key = `${c.role}:${c.idFrom}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (ops.length < 2) return undefined;
  const main = RECORD_PRIORITY.map((role) => ops.find((c) => c.role === role && c.record !== undefined)).find(Boolean);
  if (!main) return undefined;
  const mainKeys = Object.keys(flatten(main.record, deref).properties ?? {});
  const members = ops.filter(
    (c) => c.record === undefined || agree(mainKeys, Object.keys(flatten(c.record, deref).properties ?? {})),
  );
  if (members.length < 2) return undefined;
  const idField = idFieldOf(mainKeys, group.param);
  // Without the item path, a change by body needs the id in the body; without either, nothing to find a record by.
  const usable = members.filter((c) => c.idFrom === "path" || mainKeys.includes(idField));
  if (usable.length < 2) return undefined;
  const name = uniqueName(collectionName(path), names);
  const parentParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const checker = recordChecker(contract, main);
  const plan: CollectionPlan = {
    name,
    idField,
    label: labelOf(main.record, deref, path),
    path,
    ...(group.item && { itemPath: group.item, itemParam: group.param }),
    parentParams,
    recordSchema: main.record,
    ...checker,
    operations: usable.map((c) => ({ operationId: c.op.operationId, role: c.role, idFrom: c.idFrom })),
  };
  return { plan, members: usable };
}

/** Two records agree when one's fields are among the other's, or they share at least half of them. */
function agree(a: string[], b: string[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  const inA = new Set(a);
  const shared = b.filter((k) => inA.has(k)).length;
  if (shared === a.length || shared === b.length) return true;
  return shared / new Set([...a, ...b]).size >= 0.5;
}

function idFieldOf(fields: string[], param: string | undefined): string {
  if (param && fields.includes(param)) return param;
  if (fields.includes("id")) return "id";
  if (param) return param;
  return fields.find((f) => /(^|_)id$|[a-z]Id$/.test(f)) ?? "id";
}

/** `/v1/things` -> things, `/store/order` -> store.order, `/users/{userId}/posts` -> users.posts. */
export function collectionName(path: string): string {
  const segments = path
    .split("/")
    .filter((s) => s && !ITEM.test(s) && !/^v\d+(\.\d+)*$/i.test(s))
    .map((s) => s.replace(/[^A-Za-z0-9_-]+/g, "-"));
  while (segments.length > 1 && /^(api|rest)$/i.test(segments[0])) segments.shift();
  return segments.join(".") || "records";
}

function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name}-${n}`;
  taken.add(unique);
  return unique;
}

function labelOf(record: unknown, deref: Deref, path: string): string {
  const title = (flatten(record, deref) as Schema).title;
  if (typeof title === "string" && title.trim()) return title.trim();
  const ref = refName(record);
  if (ref) return ref;
  const last =
    path
      .split("/")
      .filter((s) => s && !ITEM.test(s))
      .pop() ?? "Record";
  return capitalise(singular(last));
}

/** A validator of the record: its component's, else the response check of the operation that answers with it. */
function recordChecker(contract: Contract, main: Candidate): Pick<CollectionPlan, "recordCheck" | "recordErrors"> {
  const component = refName(main.record);
  const validate = component
    ? (contract.validators.schemaValidators as Record<string, CompiledValidator | undefined>)[component]
    : undefined;
  if (validate)
    return {
      recordCheck: (record) => contract.validateCached(validate, record),
      recordErrors: () => validate.errors ?? [],
    };
  if (main.role === "list") return {};
  const status = main.role === "create" && main.op.responses.has(201) ? 201 : main.op.successStatus;
  const info = main.op.responses.get(status);
  if (!info?.check || info.schema !== main.record) return {};
  return { recordCheck: info.check, recordErrors: info.errors };
}
