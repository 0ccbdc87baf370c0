/**
 * Recording (`--record`): every record an upstream answer holds is kept in a workspace of the mock, by
 * its id, the last one seen winning, so the mock later serves staging-shaped data offline. Records are
 * kept whole (an agent with its settings and webhooks, a call with its agent), secrets replaced first.
 * A record the mock could not serve back (it fails the spec's schema for its collection) is not kept:
 * it is told once, as drift findings tell the rest. This maps the 17; the operations the generic layer
 * serves as a collection's are recorded the same way by generic/recording.ts (mock/upstream-step.ts
 * applies both).
 */
import type { RecordCheck } from "../store/record-checks.js";
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
}

/** Applies the changes to the workspace (inside a transaction of the store); secrets go first. */
export function applyRecorded(
  workspace: Workspace,
  changes: RecordedChange[],
  check: RecordCheck,
  redactor: Redactor,
): RecordOutcome {
  const outcome: RecordOutcome = { kept: 0, refused: [] };
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
    const id = collection.idOf(record);
    if (errors) {
      outcome.refused.push({ collection: change.collection, id: String(id), errors });
      continue;
    }
    if (collection.has(id)) collection.replace(id, record);
    else collection.create(record);
    outcome.kept++;
  }
  return outcome;
}
