/**
 * Recording (`--record`): every record an upstream answer holds is kept in a workspace of the mock, by
 * its id, the last one seen winning, so the mock later serves staging-shaped data offline. Records are
 * kept whole (an agent with its settings and webhooks, a call with its agent), secrets replaced first.
 * A record the spec's schema for its collection refuses is judged at the level drift calls documented
 * (store/record-rule.ts): what lacks only fields the spec's record rule adds (an x-assumption: `null`,
 * `[]`) is kept with them filled, so the mock can serve it back; what fails even there is not kept and
 * is told once, as drift findings tell the rest. This maps the 17; the operations the generic layer
 * serves as a collection's are recorded the same way by generic/recording.ts (mock/upstream-step.ts
 * applies both).
 */
import type { ValidationErrors } from "../core/errors.js";
import { type RecordCheck, SCHEMA_OF } from "../store/record-checks.js";
import type { FilledField, FullCheck, RuledRecord } from "../store/record-rule.js";
import type { CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import type { Redactor } from "./redact.js";

type Json = Record<string, unknown>;

export type RecordedChange =
  | { collection: CollectionName; record: Json }
  | { collection: CollectionName; deleteId: string }
  /** E5's answer is the auth summary embedded in its integration. */
  | { collection: "integrations"; id: string; field: "auth"; value: Json };

export interface AnsweredExchange {
  operationId: string;
  status: number;
  pathParams: Record<string, string>;
  /** The request's JSON body, when it had one. */
  requestBody: unknown;
  /** The answer's JSON body. */
  json: unknown;
}

/** Lists: the page's items; the rest: the record the answer is. */
const RECORDS_OF: Record<string, { collection: CollectionName; list?: true }> = {
  listAgents: { collection: "agents", list: true },
  createIntegration: { collection: "integrations" },
  getIntegration: { collection: "integrations" },
  updateIntegration: { collection: "integrations" },
  getBatchRun: { collection: "batchRuns" },
  listTestRuns: { collection: "testRuns", list: true },
  createKnowledgeBase: { collection: "knowledgeBases" },
  listCalls: { collection: "calls", list: true },
  getCall: { collection: "calls" },
  getQaRule: { collection: "qaRules" },
  listPhoneNumbers: { collection: "phoneNumbers", list: true },
  updatePhoneNumber: { collection: "phoneNumbers" },
  createChat: { collection: "chats" },
  listWebhooks: { collection: "webhooks", list: true },
};

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** What an answer changes in the recording; nothing for a failure, or for an answer that holds no record. */
export function recordedChanges(exchange: AnsweredExchange): RecordedChange[] {
  const { operationId, status, json } = exchange;
  if (status < 200 || status >= 300) return [];
  if (operationId === "deleteQaRule") return [{ collection: "qaRules", deleteId: exchange.pathParams.qaRuleId }];
  if (operationId === "createIntegrationAuth" && isObject(json))
    return [{ collection: "integrations", id: exchange.pathParams.integrationId, field: "auth", value: json }];
  const target = RECORDS_OF[operationId];
  if (!target) return [];
  if (target.list) {
    const data = isObject(json) && Array.isArray(json.data) ? json.data.filter(isObject) : [];
    // Newest first on the page; the mock lists the record kept last first, so they go in oldest first.
    return data.reverse().map((record) => ({ collection: target.collection, record }));
  }
  if (!isObject(json)) return [];
  if (target.collection === "chats") return [{ collection: "chats", record: chatRecord(json, exchange.requestBody) }];
  return [{ collection: target.collection, record: json }];
}

/** A chat as the mock stores it: the E16 answer plus what was asked, so a next turn can continue it. */
function chatRecord(answer: Json, request: unknown): Json {
  const asked = isObject(request) ? request : {};
  return {
    ...answer,
    agentId: typeof asked.agentId === "string" ? asked.agentId : "",
    conversation: typeof asked.conversation === "string" ? asked.conversation : "",
    variables: isObject(asked.variables) ? asked.variables : {},
  };
}

export interface RecordOutcome {
  kept: number;
  /** Records not kept: the spec's schema refuses them, so the mock could not serve them back. */
  refused: { collection: CollectionName; id: string; errors: Record<string, string> }[];
  /** Records kept once the record rule filled what they lacked (store/record-rule.ts). */
  filled: { collection: CollectionName; fields: FilledField[] }[];
}

/**
 * Settles a record the spec as written refuses (store/record-rule.ts's RecordRuler): kept filled, or
 * refused with its reasons. `schema`: the record's schema, a `$ref` or a node of the document.
 */
export type SettleRecord = (schema: unknown, record: Json, errors: ValidationErrors, check: FullCheck) => RuledRecord;

/** The `$ref` of each collection's schema, made once (the ruler places it in the document). */
const SCHEMA_REFS = Object.fromEntries(
  Object.entries(SCHEMA_OF).map(([collection, schema]) => [collection, { $ref: `#/components/schemas/${schema}` }]),
) as Partial<Record<CollectionName, { $ref: string }>>;

/**
 * Applies the changes to the workspace (inside a transaction of the store); secrets go first. Without
 * `settle`, a record the spec's schema refuses is not kept.
 */
export function applyRecorded(
  workspace: Workspace,
  changes: RecordedChange[],
  check: RecordCheck,
  redactor: Redactor,
  settle?: SettleRecord,
): RecordOutcome {
  const outcome: RecordOutcome = { kept: 0, refused: [], filled: [] };
  for (const change of changes) {
    const collection = workspace.collections[change.collection] as unknown as {
      idOf(record: unknown): string;
      has(id: string): boolean;
      get(id: string): Json | undefined;
      create(record: unknown): unknown;
      replace(id: string, record: unknown): unknown;
      delete(id: string): boolean;
    };
    if ("deleteId" in change) {
      collection.delete(change.deleteId);
      continue;
    }
    let record: Json;
    if ("field" in change) {
      const current = collection.get(change.id);
      if (!current) continue;
      record = { ...current, [change.field]: redactor.json(change.value) };
    } else record = redactor.json(change.record);
    const errors = check(change.collection, record);
    const schema = SCHEMA_REFS[change.collection];
    if (errors && settle && schema) {
      const ruled = settle(schema, record, errors, (filled) => check(change.collection, filled));
      if ("errors" in ruled) {
        outcome.refused.push({
          collection: change.collection,
          id: idText(collection.idOf(record)),
          errors: ruled.errors,
        });
        continue;
      }
      record = ruled.record;
      outcome.filled.push({ collection: change.collection, fields: ruled.filled });
    } else if (errors) {
      outcome.refused.push({ collection: change.collection, id: idText(collection.idOf(record)), errors });
      continue;
    }
    const id = collection.idOf(record);
    if (collection.has(id)) collection.replace(id, record);
    else collection.create(record);
    outcome.kept++;
  }
  return outcome;
}

/** A refused record's id as the console names it: `(no id)` for one without. */
function idText(id: unknown): string {
  return id === undefined || id === null || id === "" ? "(no id)" : String(id);
}
