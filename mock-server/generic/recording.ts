/**
 * Recording (`--record`) for the operations the generic layer serves as a collection's: what an
 * upstream's answer holds goes into the generic collection (workspace.generic), as upstream/record.ts
 * keeps the 17's records in theirs. A list's items (oldest first, so the newest ends first, as the
 * collection lists), the record a create, read, merge or replace answers (out of its envelope), and a
 * delete removes; the last one seen wins. Secrets are replaced first; a record its schema refuses is
 * kept when it lacks only what the document's record rule adds (filled, as upstream/record.ts does),
 * else not kept (the mock could not serve it back) and the door says so once.
 */
import type { Contract } from "../core/contract.js";
import { propertiesOf, typesOf } from "../core/sampling/schema.js";
import { toValidationErrors } from "../core/validation.js";
import type { GenericRecord } from "../store/generic-records.js";
import type { Workspace } from "../store/workspace.js";
import type { FilledField } from "../store/record-rule.js";
import type { AnsweredExchange, SettleRecord } from "../upstream/record.js";
import type { Redactor } from "../upstream/redact.js";
import { type CollectionPlan, decisionOf, recordIn } from "./plan.js";

export type GenericRecordedChange = { plan: CollectionPlan } & ({ record: GenericRecord } | { deleteId: string });

const isObject = (value: unknown): value is GenericRecord =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * What an answer of `exchange.operationId` changes in the generic collections: nothing for an
 * operation that is no collection's, one a hand-written handler serves (`handled`: its records are the
 * 17's, upstream/record.ts), a failure, or an answer that holds no record.
 */
export function genericRecordedChanges(
  contract: Contract,
  exchange: AnsweredExchange,
  handled: (operationId: string) => boolean,
): GenericRecordedChange[] {
  const { operationId, status, json } = exchange;
  if (status < 200 || status >= 300 || handled(operationId)) return [];
  const decision = decisionOf(contract, operationId);
  if (decision.kind !== "collection") return [];
  const { collection: plan, role, idFrom } = decision;
  const deref = (node: unknown) => contract.deref(node);
  /** The id the request named: the item path's parameter, or the body's id field (PUT|PATCH /x). */
  const requestedId = (): unknown =>
    idFrom === "path" && plan.itemParam
      ? exchange.pathParams[plan.itemParam]
      : isObject(exchange.requestBody)
        ? exchange.requestBody[plan.idField]
        : undefined;
  switch (role) {
    case "delete": {
      const id = requestedId();
      return id === undefined || id === null ? [] : [{ plan, deleteId: String(id) }];
    }
    case "list": {
      const items = itemsOf(json, decision.list?.shape);
      // Newest first on the page; the collection lists the record kept last first, so they go in oldest first.
      return items
        .filter(isObject)
        .filter((item) => item[plan.idField] !== undefined && item[plan.idField] !== null)
        .reverse()
        .map((record) => ({ plan, record }));
    }
    default: {
      const operation = contract.operation(operationId);
      const schema = operation.responses.get(status)?.schema;
      const inner = recordIn(schema, deref);
      // `{ "data": { ...record } }`: the envelope's one field, as the document names it.
      const envelope =
        inner !== undefined && inner !== schema ? Object.keys(propertiesOf(schema, deref))[0] : undefined;
      const record = envelope !== undefined && isObject(json) ? json[envelope] : json;
      if (!isObject(record)) return [];
      if (record[plan.idField] !== undefined && record[plan.idField] !== null) return [{ plan, record }];
      // A record that does not name its id (the item path does): it is kept under the path's.
      const id = requestedId();
      if (id === undefined || id === null) return [];
      return [{ plan, record: { ...record, [plan.idField]: idValue(plan, id, deref) } }];
    }
  }
}

/** The items a list answer holds: the array itself, or the wrapper's items field. */
function itemsOf(json: unknown, shape: { kind: string; itemsField?: string } | undefined): unknown[] {
  if (Array.isArray(json)) return json;
  if (shape?.kind === "wrapper" && shape.itemsField && isObject(json)) {
    const items = json[shape.itemsField];
    return Array.isArray(items) ? items : [];
  }
  return [];
}

/** A path's id (text) as the record's schema types it: `7` for an integer id. */
function idValue(plan: CollectionPlan, id: unknown, deref: (node: unknown) => unknown): unknown {
  const sub = propertiesOf(plan.recordSchema, deref)[plan.idField];
  const types = sub === undefined ? [] : typesOf(sub, deref);
  const numeric = (types.includes("integer") || types.includes("number")) && !types.includes("string");
  return numeric && /^-?\d+(\.\d+)?$/.test(String(id)) ? Number(id) : id;
}

export interface GenericRecordOutcome {
  kept: number;
  /** Records not kept: the record's schema refuses them, so the mock could not serve them back. */
  refused: { collection: string; id: string; errors: Record<string, string> }[];
  /** Records kept once the record rule filled what they lacked (store/record-rule.ts). */
  filled: { collection: string; fields: FilledField[] }[];
}

/**
 * Applies the changes to the workspace's generic collections (inside a transaction of the store);
 * secrets go first. Without `settle`, a record its schema refuses is not kept.
 */
export function applyGenericRecorded(
  workspace: Workspace,
  changes: GenericRecordedChange[],
  redactor: Redactor,
  settle?: SettleRecord,
): GenericRecordOutcome {
  const outcome: GenericRecordOutcome = { kept: 0, refused: [], filled: [] };
  for (const change of changes) {
    const { plan } = change;
    const records = workspace.generic.collection(plan.name, plan.idField);
    if ("deleteId" in change) {
      records.delete(change.deleteId);
      continue;
    }
    let record = redactor.json(change.record);
    const id = String(record[plan.idField]);
    const errors = errorsOf(plan, record);
    if (errors && settle) {
      const ruled = settle(plan.recordSchema, record, errors, (filled) => errorsOf(plan, filled));
      if ("errors" in ruled) {
        outcome.refused.push({ collection: plan.name, id, errors: ruled.errors });
        continue;
      }
      record = ruled.record;
      outcome.filled.push({ collection: plan.name, fields: ruled.filled });
    } else if (errors) {
      outcome.refused.push({ collection: plan.name, id, errors });
      continue;
    }
    if (records.has(id)) records.replace(id, record);
    else records.create(record);
    outcome.kept++;
  }
  return outcome;
}

/** What the record's schema says is wrong with a record, field by field; undefined when nothing (or no schema). */
function errorsOf(plan: CollectionPlan, record: GenericRecord): Record<string, string> | undefined {
  if (!plan.recordCheck || plan.recordCheck(record)) return undefined;
  return toValidationErrors((plan.recordErrors?.() ?? []) as Parameters<typeof toValidationErrors>[0]);
}
