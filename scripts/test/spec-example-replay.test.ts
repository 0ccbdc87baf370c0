/**
 * The named example pairs, replayed against the mock: for every operation, a request example and the
 * response example of the same name are one scenario (scripts/test/lib/example-pairs.ts reads them;
 * that they pair is scripts/test/spec/spec-example-pairs.test.ts). This file checks
 *  (b) the replay: each scenario, sent to the mock with its default seed (the state reset before each),
 *      answers the status of its response example, and every success example has its scenario;
 *  (c) the ids: every id the success examples name exists in the mock's default workspace (the
 *      documented records of mock-server/seed/documented.ts), and the not-found scenarios' do not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMock, startMock } from "../../mock-server/server.js";
import { type OperationExamples, type RequestExample, operationExamples } from "./lib/example-pairs.js";
import { type Json, type JsonObject, isObject, loadGenerated } from "./lib/openapi-doc.js";
import { REFERENCE_OPERATION_IDS } from "./lib/reference-operations.js";

const doc = loadGenerated("openapi.json");
const operations = operationExamples(doc);
/** The webhook deliveries the mock sends: their request bodies are examples too. */
const webhooks = operationExamples(doc, "", "webhooks");

/** A request example with the status of the response example of its name. */
interface Scenario {
  op: OperationExamples;
  name: string;
  status: number;
  request: RequestExample;
}

/** One scenario per pair: a response example whose name has a request example. */
const scenarios: Scenario[] = operations.flatMap((op) =>
  [...op.requests].flatMap(([name, request]) => {
    const response = op.responses.find((r) => r.name === name);
    return response ? [{ op, name, status: response.status, request }] : [];
  }),
);

// ---------------------------------------------------------------------------------------------------

let mock: RunningMock;
beforeAll(async () => void (mock = await startMock({ host: "127.0.0.1", port: 0, log: () => undefined })));
afterAll(async () => mock?.close());

function requestOf({ op, request }: Scenario): { url: string; init: RequestInit } {
  let path = op.path;
  for (const [name, value] of Object.entries(request.path))
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(request.query).map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = { "X-API-Key": mock.apiKey };
  for (const [name, value] of Object.entries(request.header)) headers[name] = String(value);
  let body: BodyInit | undefined;
  if (request.body !== undefined && request.mediaType === "multipart/form-data") {
    const form = new FormData();
    for (const [field, value] of Object.entries(request.body as JsonObject)) form.append(field, String(value));
    body = form;
  } else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers["Content-Type"] = request.mediaType ?? "application/json";
  }
  const search = query.size > 0 ? `?${query}` : "";
  return { url: `${mock.url}${path}${search}`, init: { method: op.method.toUpperCase(), headers, body } };
}

describe("(b) each scenario, sent to the mock with its default seed, answers its response example's status", () => {
  it("replays a scenario of every operation of the reference, and every success example", () => {
    const replayed = new Set(scenarios.map((s) => `${s.op.operationId} ${s.status} ${s.name}`));
    expect([...new Set(scenarios.map((s) => s.op.operationId))]).toEqual(
      expect.arrayContaining([...REFERENCE_OPERATION_IDS]),
    );
    const success = operations.flatMap((op) => op.responses.filter((r) => r.status < 300).map((r) => r.key));
    expect(success.length).toBeGreaterThanOrEqual(REFERENCE_OPERATION_IDS.length);
    expect(success.filter((key) => !replayed.has(key))).toEqual([]);
  });

  it.each(scenarios.map((s) => [`${s.op.operationId} ${s.name}`, s] as const))("%s", async (_key, scenario) => {
    const reset = await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    const { url, init } = requestOf(scenario);
    const res = await fetch(url, init);
    const text = await res.text();
    expect(res.status, `${init.method} ${url}: ${text.slice(0, 300)}`).toBe(scenario.status);
  });
});

// ---------------------------------------------------------------------------------------------------

/** Fields that name a record, and the collection it is in. */
const ID_FIELDS: Record<string, string> = {
  agentId: "agents",
  inboundAgentId: "agents",
  outboundAgentId: "agents",
  integrationId: "integrations",
  batchId: "batchRuns",
  testCaseId: "testCases",
  testCases: "testCases",
  callId: "calls",
  qaRuleId: "qaRules",
  webhookId: "webhooks",
  mockToolDataId: "mockToolData",
  kbId: "knowledgeBases",
  sipPhoneNumber: "phoneNumbers",
  outboundPhoneNumber: "phoneNumbers",
  phoneNumber: "phoneNumbers",
  jobId: "testRuns",
};
const ID_OF: Record<string, string> = {
  agents: "agentId",
  integrations: "integrationId",
  batchRuns: "batchId",
  testCases: "testCaseId",
  calls: "callId",
  qaRules: "qaRuleId",
  webhooks: "webhookId",
  mockToolData: "mockToolDataId",
  knowledgeBases: "kbId",
  phoneNumbers: "sipPhoneNumber",
  testRuns: "jobId",
};

/** Every [collection, id] a value names, through the fields above, at any depth. */
function idsIn(value: Json, field?: string): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v) => idsIn(v, field));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => idsIn(v, k));
  if (typeof value === "string" && field && ID_FIELDS[field]) return [[ID_FIELDS[field], value]];
  return [];
}

describe("(c) the ids the examples name", () => {
  let known: Map<string, Set<string>>;
  beforeAll(async () => {
    await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
    known = new Map();
    for (const [collection, idField] of Object.entries(ID_OF)) {
      const res = await fetch(`${mock.url}/__mock/workspaces/default/${collection}`);
      const records = (await res.json()) as JsonObject[];
      known.set(collection, new Set(records.map((r) => String(r[idField]))));
    }
  });

  /** [where, the [collection, id] pairs it names, "all exist" or "one is unknown" (a not-found scenario)]. */
  const named: [string, [string, string][], "all exist" | "one is unknown"][] = [];
  for (const { op, name, status, request } of scenarios) {
    if (status >= 300 && status !== 404) continue;
    const sent = { ...request.path, ...request.query, ...(isObject(request.body) ? request.body : {}) };
    named.push([`${op.operationId} ${name} (request)`, idsIn(sent), status < 300 ? "all exist" : "one is unknown"]);
  }
  // Every success response example (a name of x-microcks-refs has no body), and the webhook deliveries
  // the mock sends.
  for (const op of [...operations, ...webhooks])
    for (const r of op.responses)
      if (r.status < 300 && r.value !== null) named.push([r.key, idsIn(r.value), "all exist"]);
  for (const op of webhooks)
    for (const [name, { body }] of op.requests)
      named.push([`${op.operationId} ${name} (delivery)`, idsIn(body ?? null), "all exist"]);

  it("finds ids to check", () => expect(named.flatMap(([, ids]) => ids).length).toBeGreaterThan(50));

  it.each(named)("%s: %j, %s", (_where, ids, rule) => {
    const unknown = ids.filter(([collection, id]) => !known.get(collection)?.has(id)).map((pair) => pair.join(" "));
    if (rule === "all exist") expect(unknown).toEqual([]);
    else expect(unknown.length, "a not-found scenario names an id the workspace does not have").toBeGreaterThan(0);
  });
});
