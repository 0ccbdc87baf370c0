/**
 * The collections' operations, on records the workspace keeps (`workspace.generic`, in the same Store
 * as everything else, so replicas on Redis share them): create, read, list, merge (PATCH), replace
 * (PUT) and delete, with the statuses the document gives them. Ids are compared as strings (an
 * integer path parameter arrives coerced to a number).
 */
import type { Contract } from "../core/contract.js";
import { ApiError, invalid } from "../core/errors.js";
import type { Reply } from "../core/exchange.js";
import type { Operation } from "../core/operations.js";
import type { GenericRecord } from "../store/generic-records.js";
import { replyFor } from "./answer.js";
import { type FillContext, mergedRecord, newRecord } from "./fill.js";
import type { GenericContext } from "./context.js";
import { listBody, type Paging, pagingParams, type Window, windowOf } from "./list-shape.js";
import { type Decision, planOf } from "./plan.js";
import { seededSampler } from "../core/sampling/sample.js";
import { type Deref, flatten, propertiesOf } from "../core/sampling/schema.js";
import { dayOf, requestSeed } from "./seed.js";

type CollectionDecision = Extract<Decision, { kind: "collection" }>;

/** The status a role answers with: create 201 when documented, delete 204 when no 2xx is, else the documented one. */
export function statusOf(op: Operation, role: CollectionDecision["role"]): number {
  const documented = [...op.responses.keys()].filter((s) => s >= 200 && s < 300);
  if (role === "create" && op.responses.has(201)) return 201;
  if (role === "delete" && documented.length === 0) return 204;
  return op.successStatus;
}

export function collectionHandler(
  contract: Contract,
  op: Operation,
  decision: CollectionDecision,
): (ctx: GenericContext) => Reply {
  const deref: Deref = (node) => contract.deref(node);
  const { collection: plan, role } = decision;
  const rule = planOf(contract).recordRule;
  const status = statusOf(op, role);
  const fields = filterFields(plan.recordSchema, deref);

  return (ctx) => {
    const records = ctx.workspace.generic.collection(plan.name, plan.idField);
    const fill: FillContext = { plan, deref, rule, records, workspace: ctx.workspace, params: ctx.params };
    const reply = (record: GenericRecord) => replyFor(contract, op, status, record, ctx);
    const notFound = (id: string) => new ApiError(404, `${plan.label} not found: ${id}`);
    /** The id a change or read is about: from the path, or from the body for PUT|PATCH /x. */
    const targetId = (): string => {
      if (decision.idFrom === "path") return String(ctx.params[plan.itemParam!]);
      const id = (ctx.body as GenericRecord | undefined)?.[plan.idField];
      if (id === undefined || id === null) throw invalid({ [plan.idField]: "is required" });
      return String(id);
    };

    switch (role) {
      case "create": {
        const given = (ctx.body as GenericRecord | undefined)?.[plan.idField];
        if (given !== undefined && given !== null && records.has(String(given))) {
          throw new ApiError(op.responses.has(409) ? 409 : 400, `${plan.label} already exists: ${String(given)}`);
        }
        const record = newRecord(fill, ctx.body);
        records.create(record);
        return reply(record);
      }
      case "read": {
        const id = targetId();
        const record = records.get(id);
        if (!record) throw notFound(id);
        return reply(record);
      }
      case "merge":
      case "replace": {
        const id = targetId();
        const current = records.get(id);
        if (!current) throw notFound(id);
        const next = role === "merge" ? mergedRecord(fill, current, ctx.body) : newRecord(fill, ctx.body, current);
        records.replace(id, next);
        return reply(next);
      }
      case "delete": {
        const id = targetId();
        const record = records.get(id);
        if (!record) throw notFound(id);
        records.delete(id);
        return reply(record);
      }
      case "list":
        return { status, body: list(contract, op, decision, ctx, records.all(), fields) };
    }
  };
}

/** The list answer: newest first, filtered by the query's record fields, paged and shaped as documented. */
function list(
  contract: Contract,
  op: Operation,
  decision: CollectionDecision,
  ctx: GenericContext,
  all: GenericRecord[],
  fields: Map<string, string[]>,
): unknown {
  const { shape, paging } = decision.list!;
  const deref: Deref = (node) => contract.deref(node);
  const skip = new Set(pagingParams(paging));
  const filters = Object.entries({ ...ctx.params, ...ctx.query })
    .filter(([name, value]) => !skip.has(name) && fields.has(name) && value !== undefined)
    .map(([name, want]) => [fields.get(name)!, want] as const);
  const selected: GenericRecord[] = [];
  for (let i = all.length - 1; i >= 0; i--)
    if (filters.every(([path, want]) => matches(valueAt(all[i], path), want))) selected.push(all[i]);
  const window = windowOf(paging, ctx.query);
  return listBody(shape, selected, window, {
    deref,
    link: (start, w) => pageLink(contract, op, ctx, paging, start, w),
    sample: (schema, name) =>
      seededSampler(deref, requestSeed(ctx, op), dayOf(ctx.workspace.clock.nowMs())).value(schema, name, 1),
  });
}

/**
 * The names a list's query may filter by, each with where its value is in a record: the record's
 * fields, and the fields of an object field the record does not name itself (`agentId` for a record
 * with `agent: { agentId }`, as this API's lists filter).
 */
function filterFields(recordSchema: unknown, deref: Deref): Map<string, string[]> {
  const own = propertiesOf(recordSchema, deref);
  const out = new Map<string, string[]>(Object.keys(own).map((name) => [name, [name]]));
  for (const [name, sub] of Object.entries(own)) {
    const flat = flatten(sub, deref);
    for (const branch of [flat, ...((flat.oneOf ?? flat.anyOf ?? []) as unknown[])])
      for (const inner of Object.keys(propertiesOf(branch, deref))) if (!out.has(inner)) out.set(inner, [name, inner]);
  }
  return out;
}

function valueAt(record: GenericRecord, path: string[]): unknown {
  let at: unknown = record;
  for (const key of path) at = at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/**
 * Equality as strings; a list in the query matches any of its values, a list in the record any of its
 * members, and an object member (Petstore's tag `{ id, name }`) by any of its own values.
 */
function matches(value: unknown, want: unknown): boolean {
  const wanted = (Array.isArray(want) ? want : [want]).map(String);
  const have = Array.isArray(value) ? value : [value];
  return have.some((v) => {
    if (v === undefined) return false;
    if (v === null || typeof v !== "object") return wanted.includes(String(v));
    return Object.values(v).some(
      (inner) => inner !== null && typeof inner !== "object" && wanted.includes(String(inner)),
    );
  });
}

/** The URL of another page of this list: the request's path and query with the page (or offset) moved. */
function pageLink(
  contract: Contract,
  op: Operation,
  ctx: GenericContext,
  paging: Paging,
  start: number,
  window: Window,
): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(ctx.params[name])));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(ctx.query))
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) query.append(name, String(v));
  if (paging.kind === "page") query.set(paging.page, String(Math.floor(start / (window.size ?? 1)) + window.base));
  if (paging.kind === "offset" && paging.offset) query.set(paging.offset, String(start));
  const server = (contract.document as { servers?: { url?: string }[] }).servers?.[0]?.url ?? "";
  const base = /^https?:\/\//.test(server) ? server.replace(/\/$/, "") : "http://localhost";
  return `${base}${path}?${query}`;
}
