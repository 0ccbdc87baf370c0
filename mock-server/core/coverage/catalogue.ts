/**
 * The response variants a consumer of the API can receive, read from the spec (DESIGN.md, "What was
 * exercised"): every documented status of every /v1 operation; the page shapes of each list (empty,
 * first, middle, last); in the answers of the reading operations (GET: what a UI renders; a create or an
 * update answers the same resources), every enum value and both sides of every nullable field; and one
 * webhook delivery per event kind of the spec's `webhooks`. Each variant says how to provoke it.
 *
 * The catalogue is built once per document object and holds, beside the list, what observe.ts follows
 * on the hot path: per operation, the status -> variant table, the list's page variants and the tree of
 * the resource's fields that can show a variant.
 */
import type { components } from "../../../generated/mock-control.js";
import { LIST_OPERATIONS } from "../exchange-rules/list-operations.js";
import { resolvePointer, type Json, type JsonObject } from "../exchange-rules/json-document.js";
import { operationTable, type OperationInfo } from "../exchange-rules/operation-table.js";
import { fieldHowTo, pageHowTo, resourceNoun, statusHowTo, webhookHowTo, type PageKind } from "./how-to.js";
import {
  atTop,
  fieldName,
  pageItems,
  walkFields,
  type FieldFacts,
  type FieldVariants,
  type Found,
  type ValueShape,
} from "./schema-fields.js";

export type VariantKind = "status" | "page" | "enum" | "nullable" | "webhook";

export interface VariantDef {
  /** `${operationId} ${kind} ${value}`, unique. */
  key: string;
  /** The /v1 operation; for a webhook, the spec webhook's operationId (conversationStartedEvent). */
  operationId: string;
  kind: VariantKind;
  /** `404`; `empty`; `status=error`; `recordingUrl=null`; `conversation_started`. */
  value: string;
  /** Upper case ("POST" for webhooks). */
  method: string;
  /** The spec's path template (/v1/calls/{callId}); for a webhook, the webhook's name. */
  path: string;
  /** One sentence for a person. */
  howTo: string;
  /** kind status. */
  status?: number;
  /** kind enum and nullable: path segments relative to the resource, "[]" for an array's items. */
  field?: string[];
  /** kind enum: the raw enum value. */
  enumValue?: unknown;
  /** kind webhook: the event kind. */
  event?: string;
}

export const PAGE_KINDS: readonly PageKind[] = ["empty", "first", "middle", "last"];

/** What observe.ts follows for one operation. */
export interface CompiledOperation {
  /** Documented status -> variant index. */
  statuses: Map<number, number>;
  /** Lists only: page kind -> variant index. */
  pages?: Record<PageKind, number>;
  /** Reading operations only: the resource's fields that can show a variant (for a list, one item of `data`). */
  fields?: ValueShape;
}

export interface Catalogue {
  /** In order: spec path order (status, page, enum, nullable within each operation), webhooks last. */
  readonly variants: readonly VariantDef[];
  readonly byKey: ReadonlyMap<string, VariantDef>;
  /** operationId -> what observe.ts follows. */
  readonly operations: ReadonlyMap<string, CompiledOperation>;
  /** Event kind -> variant index. */
  readonly webhooks: ReadonlyMap<string, number>;
}

export const variantKey = (operationId: string, kind: VariantKind, value: string) => `${operationId} ${kind} ${value}`;

const catalogues = new WeakMap<object, Catalogue>();

/** The catalogue of `document` (the bundled API document's shape), built once per document object. */
export function variantCatalogue(document: object): Catalogue {
  let catalogue = catalogues.get(document);
  if (!catalogue) catalogues.set(document, (catalogue = buildCatalogue(document)));
  return catalogue;
}

/** The last `/`-segment of a `$ref`: the schema's name. */
function refName(found: Found[]): string | undefined {
  const ref = (found[0]?.schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === "string" ? ref.slice(ref.lastIndexOf("/") + 1) : undefined;
}

/**
 * The control plane's collections (spec/mock-control.yaml's CollectionName): the kit's own records, which
 * the every-variant scenario seeds and POST /__mock/workspaces/{workspaceId}/{collection} fills. Typed
 * by the generated name, so the control plane cannot gain or lose one unseen.
 */
const CONTROL_COLLECTIONS: Record<components["schemas"]["CollectionName"], true> = {
  agents: true,
  calls: true,
  phoneNumbers: true,
  integrations: true,
  knowledgeBases: true,
  webhooks: true,
  qaRules: true,
  qaIssues: true,
  testCases: true,
  batchRuns: true,
  testRuns: true,
  mockToolData: true,
  chats: true,
  apiKeys: true,
};

/**
 * `Call` -> `calls`, `PhoneNumber` -> `phoneNumbers`: the control plane's collection of the resource;
 * none for a resource the control plane does not keep (one an operation a spec author adds answers).
 */
function collectionOf(name: string | undefined): string | undefined {
  const collection = name ? `${name[0].toLowerCase()}${name.slice(1)}s` : undefined;
  return collection && Object.hasOwn(CONTROL_COLLECTIONS, collection) ? collection : undefined;
}

function buildCatalogue(document: object): Catalogue {
  const doc = document as JsonObject;
  const variants: VariantDef[] = [];
  const byKey = new Map<string, VariantDef>();
  const add = (variant: Omit<VariantDef, "key">): number => {
    const key = variantKey(variant.operationId, variant.kind, variant.value);
    const known = byKey.get(key);
    if (known) return variants.indexOf(known);
    const def = { key, ...variant };
    byKey.set(key, def);
    return variants.push(def) - 1;
  };
  const operations = new Map<string, CompiledOperation>();
  for (const op of operationTable(doc).values()) {
    if (!/^\/v1(\/|$)/.test(op.path)) continue;
    operations.set(op.operationId, compileOperation(document, op, add));
  }
  const webhooks = new Map<string, number>();
  for (const [name, item] of Object.entries((doc.webhooks ?? {}) as JsonObject))
    for (const [method, operation] of Object.entries((item ?? {}) as JsonObject)) {
      const operationId = (operation as JsonObject | null)?.operationId;
      if (typeof operationId !== "string" || webhooks.has(name)) continue;
      webhooks.set(
        name,
        add({
          operationId,
          kind: "webhook",
          value: name,
          method: method.toUpperCase(),
          path: name,
          howTo: webhookHowTo(name),
          event: name,
        }),
      );
    }
  return { variants, byKey, operations, webhooks };
}

function compileOperation(
  document: object,
  op: OperationInfo,
  add: (variant: Omit<VariantDef, "key">) => number,
): CompiledOperation {
  const where = { operationId: op.operationId, method: op.method, path: op.path };
  const compiled: CompiledOperation = { statuses: new Map() };
  for (const status of op.statuses) {
    const code = Number(status);
    if (!Number.isInteger(code)) continue; // "default" or "2XX": no one status to count
    compiled.statuses.set(
      code,
      add({ ...where, kind: "status", value: status, howTo: statusHowTo(document, op, status), status: code }),
    );
  }
  const list = op.method === "GET" && op.operationId in LIST_OPERATIONS;
  if (list) {
    const pages = {} as Record<PageKind, number>;
    for (const kind of PAGE_KINDS)
      pages[kind] = add({ ...where, kind: "page", value: kind, howTo: pageHowTo(op, kind) });
    compiled.pages = pages;
  }
  if (op.method !== "GET") return compiled;
  // The success answers' schemas: a list's resource is an item of its `data`.
  const success: Found[] = op.statuses
    .filter((s) => /^2\d\d$/.test(s) && op.bodySchemas[s])
    .flatMap((s) => atTop(resolvePointer(document as Json, op.bodySchemas[s]!)));
  const resource = list ? success.flatMap((page) => pageItems(document, page.schema)) : success;
  const name = refName(resource);
  const about = { noun: resourceNoun(name), collection: collectionOf(name), list };
  // Enum variants before nullable ones: the walk finds both, the slots are filled in that order after it.
  const found: { facts: FieldFacts; slot: FieldVariants }[] = [];
  compiled.fields = walkFields(document, resource, (facts) => {
    const slot: FieldVariants = { enums: new Map() };
    found.push({ facts, slot });
    return slot;
  });
  for (const { facts, slot } of found)
    for (const enumValue of facts.enumValues) {
      const field = fieldName(facts.field);
      slot.enums.set(
        enumValue,
        add({
          ...where,
          kind: "enum",
          value: `${field}=${String(enumValue)}`,
          howTo: fieldHowTo(op, about, field, String(enumValue)),
          field: facts.field,
          enumValue,
        }),
      );
    }
  for (const { facts, slot } of found) {
    if (!facts.nullable) continue;
    const field = fieldName(facts.field);
    slot.nullIndex = add({
      ...where,
      kind: "nullable",
      value: `${field}=null`,
      howTo: fieldHowTo(op, about, field, "null"),
      field: facts.field,
    });
    slot.setIndex = add({
      ...where,
      kind: "nullable",
      value: `${field}=set`,
      howTo: fieldHowTo(op, about, field, "set (present, not null)"),
      field: facts.field,
    });
  }
  return compiled;
}
