/**
 * Examples paired by name, as Specmatic and Microcks read them: for every operation, a request
 * example (a parameter's `examples`, the request body's `examples`) and the response example of the
 * same name are one scenario. This file checks
 *  (a) the pairing: every request example names a response example (or, for a response without
 *      content, is listed in its `x-microcks-refs`), every required parameter and a required body have
 *      an example of each scenario, and every response example is paired unless it says why not;
 *  (b) the replay: each scenario, sent to the mock with its default seed (the state reset before each),
 *      answers the status of its response example;
 *  (c) the ids: every id the success examples name exists in the mock's default workspace (the
 *      documented records of mock-server/seed/documented.ts), and the not-found scenarios' do not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMock, startMock } from "../../mock-server/server.js";
import {
  type Json,
  type JsonObject,
  deref,
  derefObject,
  isObject,
  loadGenerated,
  operationsOf,
} from "./lib/openapi-doc.js";

const doc = loadGenerated("openapi.json");

interface Scenario {
  name: string;
  status: number;
  path: Record<string, Json>;
  query: Record<string, Json>;
  body?: Json;
}

interface Operation {
  operationId: string;
  method: string;
  template: string;
  /** Request-side example names, by where they are ("path integrationId", "body"). */
  requestNames: Map<string, string[]>;
  required: string[];
  /** Response example names (and x-microcks-refs) with their status. */
  responseNames: Map<string, number[]>;
  successStatus: number;
  takesInput: boolean;
  scenarios: Scenario[];
  mediaType?: string;
}

const examplesOf = (node: Json | undefined): JsonObject =>
  isObject(node) && isObject(node.examples) ? node.examples : {};
const valueOf = (example: Json): Json => derefObject(doc, example, "example").value ?? null;

function read(): Operation[] {
  return operationsOf(doc).map(({ path, method, operation, parameters }) => {
    const operationId = String(operation.operationId);
    const requestNames = new Map<string, string[]>();
    const values = new Map<string, { in: string; name: string; value: Json }[]>();
    const required: string[] = [];
    const add = (where: string, name: string, entry: { in: string; name: string; value: Json }) => {
      requestNames.set(name, [...(requestNames.get(name) ?? []), where]);
      values.set(name, [...(values.get(name) ?? []), entry]);
    };
    // An operation's parameter overrides its path item's of the same name and place.
    const params = new Map<string, JsonObject>();
    for (const raw of parameters) {
      const p = derefObject(doc, raw, `${operationId} parameter`);
      params.set(`${p.in} ${p.name}`, p);
    }
    for (const [where, p] of params) {
      if (p.required === true) required.push(where);
      for (const [name, example] of Object.entries(examplesOf(p)))
        add(where, name, { in: String(p.in), name: String(p.name), value: valueOf(example) });
    }
    let mediaType: string | undefined;
    const body = operation.requestBody ? derefObject(doc, operation.requestBody, `${operationId} body`) : undefined;
    if (body) {
      if (body.required === true) required.push("body");
      const [type, media] = Object.entries(derefObject(doc, body.content, "content"))[0];
      mediaType = type;
      for (const [name, example] of Object.entries(examplesOf(media)))
        add("body", name, { in: "body", name: "body", value: valueOf(example) });
    }
    const responseNames = new Map<string, number[]>();
    let successStatus = 0;
    for (const [code, raw] of Object.entries(derefObject(doc, operation.responses, `${operationId} responses`))) {
      const response = derefObject(doc, raw, `${operationId} ${code}`);
      const status = Number(code);
      if (status < 300 && !successStatus) successStatus = status;
      const names = [
        ...Object.values(isObject(response.content) ? response.content : {}).flatMap((m) => Object.keys(examplesOf(m))),
        ...(Array.isArray(response["x-microcks-refs"]) ? response["x-microcks-refs"].map(String) : []),
      ];
      for (const name of names) responseNames.set(name, [...(responseNames.get(name) ?? []), status]);
    }
    const scenarios: Scenario[] = [...values].map(([name, entries]) => {
      const scenario: Scenario = { name, status: responseNames.get(name)?.[0] ?? 0, path: {}, query: {} };
      for (const e of entries) {
        if (e.in === "path") scenario.path[e.name] = e.value;
        else if (e.in === "query") scenario.query[e.name] = e.value;
        else if (e.in === "body") scenario.body = e.value;
      }
      return scenario;
    });
    // An operation that needs no input has its bare request as the request of its success examples.
    const takesInput = required.length > 0;
    if (!takesInput)
      for (const [name, statuses] of responseNames)
        if (statuses[0] === successStatus && !requestNames.has(name))
          scenarios.push({ name, status: successStatus, path: {}, query: {} });
    return {
      operationId,
      method,
      template: path,
      requestNames,
      required,
      responseNames,
      successStatus,
      takesInput,
      scenarios,
      mediaType,
    };
  });
}

const operations = read();

/**
 * Response examples no request example can go with, and why. A status alone covers every example
 * of that status; `op status name` covers one.
 */
const UNPAIRED: [RegExp, string][] = [
  [/ 401 missingKey$/, "the key is the security scheme's header, not a parameter: no example can leave it out"],
  [/ 403 \w+$/, "a read-only key (a mock workspace option) or a forced answer: nothing in the request"],
  [/ 500 unexpected$/, "no request causes a failure inside the server"],
  [/ 404 notFound$/, "the operation refers to no other resource: the mock answers 404 only when forced"],
  [
    / 400 (sizeZero|missingName|idTooLong|unknownField|emptyName|bearerWithoutToken|noTestCases|agentIdTooLong|pageNegative|unknownStatus|missingAgentId|activeNotBoolean)$/,
    "the request breaks the schema, and every example must satisfy its schema (lint: no-invalid-*-examples)",
  ],
  [
    /^(createBatchRun 404 testCaseOfAnotherAgent|getBatchRun 404 otherAgent|updatePhoneNumber 404 unknownInboundAgent)$/,
    "its body names ids that the not-found scenarios of the same operation need unknown (the agent, the batch run, the number)",
  ],
  [/^createKnowledgeBase (413|415) \w+$/, "a file of 25 MB or of another type: a multipart example holds no file"],
];

const unpairedReason = (key: string) => UNPAIRED.find(([pattern]) => pattern.test(key))?.[1];

describe("(a) request and response examples pair by name", () => {
  it("reads the 17 operations", () => expect(operations).toHaveLength(17));

  it.each(operations.map((op) => [op.operationId, op] as const))("%s", (_id, op) => {
    const problems: string[] = [];
    for (const [name, where] of op.requestNames) {
      const statuses = op.responseNames.get(name) ?? [];
      if (statuses.length !== 1)
        problems.push(`request example ${name} (${where.join(", ")}) names ${statuses.length} responses`);
      for (const need of op.required)
        if (!where.includes(need)) problems.push(`scenario ${name} has no example for the required ${need}`);
    }
    for (const [name, statuses] of op.responseNames) {
      for (const status of statuses) {
        const key = `${op.operationId} ${status} ${name}`;
        const paired = op.requestNames.has(name) || (status === op.successStatus && !op.takesInput);
        const reason = unpairedReason(key);
        if (!paired && !reason) problems.push(`response example ${key} has no request example of its name`);
        if (paired && reason) problems.push(`response example ${key} is paired, yet listed as unpaired: ${reason}`);
      }
    }
    const success = [...op.responseNames].filter(([, s]) => s.includes(op.successStatus)).map(([n]) => n);
    if (success.length === 0) problems.push(`no example of the success status ${op.successStatus}`);
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

let mock: RunningMock;
beforeAll(async () => void (mock = await startMock({ host: "127.0.0.1", port: 0, log: () => undefined })));
afterAll(async () => mock?.close());

function requestOf(op: Operation, scenario: Scenario): { url: string; init: RequestInit } {
  let path = op.template;
  for (const [name, value] of Object.entries(scenario.path))
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(scenario.query).map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = { "X-API-Key": mock.apiKey };
  let body: BodyInit | undefined;
  if (scenario.body !== undefined && op.mediaType === "multipart/form-data") {
    const form = new FormData();
    for (const [field, value] of Object.entries(scenario.body as JsonObject)) form.append(field, String(value));
    body = form;
  } else if (scenario.body !== undefined) {
    body = JSON.stringify(scenario.body);
    headers["Content-Type"] = op.mediaType ?? "application/json";
  }
  const search = query.size > 0 ? `?${query}` : "";
  return { url: `${mock.url}${path}${search}`, init: { method: op.method.toUpperCase(), headers, body } };
}

const scenarios = operations.flatMap((op) =>
  op.scenarios.map((s) => [`${op.operationId} ${s.name}`, { op, scenario: s }] as const),
);

describe("(b) each scenario, sent to the mock with its default seed, answers its response example's status", () => {
  it("replays a scenario of every operation", () => {
    expect(new Set(scenarios.map(([, { op }]) => op.operationId)).size).toBe(17);
  });

  it.each(scenarios)("%s", async (_key, { op, scenario }) => {
    const reset = await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    const { url, init } = requestOf(op, scenario);
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
  for (const op of operations) {
    for (const s of op.scenarios) {
      if (s.status >= 300 && s.status !== 404) continue;
      const request = { ...s.path, ...s.query, ...(isObject(s.body) ? s.body : {}) } as JsonObject;
      named.push([
        `${op.operationId} ${s.name} (request)`,
        idsIn(request),
        s.status < 300 ? "all exist" : "one is unknown",
      ]);
    }
  }
  // Every success response example, and the webhook deliveries the mock sends.
  for (const section of ["paths", "webhooks"] as const) {
    for (const { operation } of operationsOf(doc, section)) {
      const responses = derefObject(doc, operation.responses, "responses");
      for (const [code, raw] of Object.entries(responses)) {
        if (!code.startsWith("2")) continue;
        const content = derefObject(doc, raw, code).content;
        for (const media of Object.values(isObject(content) ? content : {}))
          for (const [name, example] of Object.entries(examplesOf(media)))
            named.push([`${operation.operationId} ${code} ${name}`, idsIn(valueOf(example)), "all exist"]);
      }
      if (section === "webhooks") {
        const body = deref(doc, operation.requestBody);
        const content = isObject(body) && isObject(body.content) ? body.content : {};
        for (const media of Object.values(content))
          for (const [name, example] of Object.entries(examplesOf(media)))
            named.push([`${operation.operationId} ${name} (delivery)`, idsIn(valueOf(example)), "all exist"]);
      }
    }
  }

  it("finds ids to check", () => expect(named.flatMap(([, ids]) => ids).length).toBeGreaterThan(50));

  it.each(named)("%s: %j, %s", (_where, ids, rule) => {
    const unknown = ids.filter(([collection, id]) => !known.get(collection)?.has(id)).map((pair) => pair.join(" "));
    if (rule === "all exist") expect(unknown).toEqual([]);
    else expect(unknown.length, "a not-found scenario names an id the workspace does not have").toBeGreaterThan(0);
  });
});
