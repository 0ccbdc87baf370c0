/**
 * Collections read from a document's paths and methods, as the suite sees them (inferred here, not
 * taken from the mock, so the suite judges a target on the document alone):
 *   POST /x creates, GET /x lists, GET|PATCH|PUT|DELETE /x/{p} read, merge, replace, delete;
 *   PUT|PATCH /x with the id in the body also change.
 * The id field is the path parameter's name when the record schema has that property, else `id`.
 * A collection's path may hang under another's record (`/agents/{agentId}/notes`): its parent's id
 * is then needed to reach it, and comes from the parent collection.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import type { SuiteDocument } from "../lib/document.js";
import { propertiesOf, schemaAt, typesOf } from "./schema-walk.js";

export type Role = "create" | "list" | "read" | "update" | "replace" | "remove" | "bodyUpdate" | "bodyReplace";

export interface Collection {
  /** `/special-events`, `/agents/{agentId}/notes`. */
  path: string;
  /** What the ledger calls one record: the path's last segment (`special-events`). */
  kind: string;
  /** The record path's parameter (`eventId` of `/special-events/{eventId}`), when the document has one. */
  idParam?: string;
  /** The record's id property: idParam when the record schema has it, else `id`. */
  idField: string;
  /** Pointer of the record's schema: the read's success body, else the create's, else a listed item's. */
  recordSchema?: string;
  create?: OperationInfo;
  list?: OperationInfo;
  read?: OperationInfo;
  update?: OperationInfo;
  replace?: OperationInfo;
  remove?: OperationInfo;
  bodyUpdate?: OperationInfo;
  bodyReplace?: OperationInfo;
}

const ITEM = /^(.*)\/\{([^}/]+)\}$/;

/** The documented 2xx statuses of an operation, lowest first (`2XX` counts as 200). */
export function successStatuses(op: OperationInfo): string[] {
  return op.statuses.filter((s) => /^2(\d\d|XX)$/i.test(s)).sort();
}

/** The pointer of the JSON body of the operation's first documented success, if it documents one. */
export function successSchema(op: OperationInfo | undefined): string | undefined {
  if (!op) return undefined;
  for (const status of successStatuses(op)) if (op.bodySchemas[status]) return op.bodySchemas[status];
  return undefined;
}

function collectionAt(byPath: Map<string, Collection>, path: string): Collection {
  let collection = byPath.get(path);
  if (!collection) {
    const segments = path.split("/").filter((s) => s && !s.startsWith("{"));
    collection = { path, kind: segments[segments.length - 1] ?? path, idField: "id" };
    byPath.set(path, collection);
  }
  return collection;
}

/** Every collection of the document, in the order of their paths. */
export function collectionsOf(document: SuiteDocument): Collection[] {
  const cached = cache.get(document);
  if (cached) return cached;
  const byPath = new Map<string, Collection>();
  const itemRoles: Record<string, Role> = { GET: "read", PATCH: "update", PUT: "replace", DELETE: "remove" };
  const rootRoles: Record<string, Role> = { POST: "create", GET: "list", PATCH: "bodyUpdate", PUT: "bodyReplace" };
  for (const op of document.operations.values()) {
    const item = ITEM.exec(op.path);
    if (item && itemRoles[op.method]) {
      const collection = collectionAt(byPath, item[1] || "/");
      collection.idParam ??= item[2];
      collection[itemRoles[op.method]] ??= op;
    } else if (rootRoles[op.method]) {
      collectionAt(byPath, op.path)[rootRoles[op.method]] ??= op;
    }
  }
  // A path reached only through deeper ones (`/tickets/{ticketId}/qr`) names its id parameter too.
  for (const op of document.operations.values()) {
    const deeper = /^(.*?)\/\{([^}/]+)\}\/.+$/.exec(op.path);
    if (deeper && byPath.has(deeper[1])) byPath.get(deeper[1])!.idParam ??= deeper[2];
  }
  // A path with a POST alone is a collection only when its records have a path of their own below it
  // (`/tickets` and `/tickets/{ticketId}/qr`); otherwise the POST is an action (`/pets/{id}/vaccinate`).
  const collections = [...byPath.values()].filter(
    (c) => c.read || c.remove || c.update || c.replace || ((c.create || c.list) && c.idParam),
  );
  for (const c of collections) {
    c.recordSchema = successSchema(c.read) ?? successSchema(c.create) ?? listedItemSchema(document, c);
    const properties = c.recordSchema ? propertiesOf(document.doc, c.recordSchema) : {};
    c.idField = c.idParam && c.idParam in properties ? c.idParam : "id";
  }
  cache.set(document, collections);
  return collections;
}

const cache = new WeakMap<SuiteDocument, Collection[]>();

/** Where a list's items sit in its answer: the whole body (a plain array) or one array property of it. */
export function listedItems(document: SuiteDocument, list: OperationInfo): { property?: string; itemSchema?: string } {
  const pointer = successSchema(list);
  if (!pointer) return {};
  const node = schemaAt(document.doc, pointer);
  if (node && typesOf(node.schema).includes("array")) return { itemSchema: `${node.pointer}/items` };
  const properties = propertiesOf(document.doc, pointer);
  const arrays = Object.entries(properties).filter(([, p]) => typesOf(p.schema).includes("array"));
  const preferred = ["data", "items", "results", "content", "records", "elements", "values"];
  const chosen = arrays.find(([name]) => preferred.includes(name)) ?? (arrays.length === 1 ? arrays[0] : undefined);
  return chosen ? { property: chosen[0], itemSchema: `${chosen[1].pointer}/items` } : {};
}

function listedItemSchema(document: SuiteDocument, c: Collection): string | undefined {
  return c.list ? listedItems(document, c.list).itemSchema : undefined;
}

/** The collection and role of an operation, when it plays one. */
export function roleOf(
  document: SuiteDocument,
  operationId: string,
): { collection: Collection; role: Role } | undefined {
  for (const collection of collectionsOf(document))
    for (const role of ROLES) if (collection[role]?.operationId === operationId) return { collection, role };
  return undefined;
}

export const ROLES: Role[] = ["create", "list", "read", "update", "replace", "remove", "bodyUpdate", "bodyReplace"];

/** The collection whose records a path parameter names: the one at the path before `/{name}`. */
export function collectionOfParameter(document: SuiteDocument, template: string, name: string): Collection | undefined {
  const at = template.indexOf(`/{${name}}`);
  if (at < 0) return undefined;
  const path = template.slice(0, at) || "/";
  return collectionsOf(document).find((c) => c.path === path && c.idParam === name);
}
