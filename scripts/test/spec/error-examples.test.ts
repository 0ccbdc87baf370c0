/**
 * Error examples a reader can trust (issue 9): every error response of every reference operation (E1
 * to E17) in generated/openapi.json shows its own situation (status, section 7 text, a concrete path of
 * that operation, a message naming what went wrong there), and every example the kit's mock can
 * reproduce is replayed against it: the mock must answer exactly that body (the timestamp aside).
 * An operation a spec author adds is left out: its error responses need no example, and its error
 * bodies are the generic layer's, tested with it (mock-server/generic/).
 */
import { describe, expect, it } from "vitest";
import { STATUS_TEXT } from "../../../conformance/lib/spec.js";
import { useMock } from "../../../mock-server/test/harness.js";
import { type Json, type JsonObject, derefObject, isObject, loadGenerated, operationsOf } from "../lib/openapi-doc.js";
import { isReferenceOperation, REFERENCE_OPERATION_IDS } from "../lib/reference-operations.js";

const doc = loadGenerated("openapi.json");

/** Section 7 of the reference: status -> the error body's `error`. */
const SECTION_7 = STATUS_TEXT;

interface ErrorExample {
  /** `operationId status exampleName`, the key of the replay table and of the list of the others. */
  key: string;
  operationId: string;
  method: string;
  template: string;
  status: number;
  name: string;
  response: JsonObject;
  value: JsonObject;
  /** Path parameter -> the example id the spec gives it. */
  pathExamples: Record<string, string>;
}

function errorExamples(): ErrorExample[] {
  const out: ErrorExample[] = [];
  for (const op of operationsOf(doc)) {
    if (!isReferenceOperation(op.operation.operationId)) continue;
    const operationId = String(op.operation.operationId);
    const pathExamples: Record<string, string> = {};
    for (const raw of op.parameters) {
      const param = derefObject(doc, raw, `${operationId} parameter`);
      if (param.in === "path") pathExamples[String(param.name)] = String(param.example);
    }
    const responses = derefObject(doc, op.operation.responses, `${operationId} responses`);
    for (const [code, raw] of Object.entries(responses)) {
      const status = Number(code);
      if (status < 400) continue;
      const response = derefObject(doc, raw, `${operationId} ${code}`);
      const media = isObject(response.content) ? response.content["application/json"] : undefined;
      const examples = isObject(media) && isObject(media.examples) ? media.examples : {};
      // A response without examples still gets a row, so the "at least one example" check sees it.
      if (Object.keys(examples).length === 0)
        out.push({
          key: `${operationId} ${code} (none)`,
          operationId,
          method: op.method,
          template: op.path,
          status,
          name: "",
          response,
          value: {},
          pathExamples,
        });
      for (const [name, example] of Object.entries(examples)) {
        const value = derefObject(
          doc,
          derefObject(doc, example, `${operationId} ${code} ${name}`).value,
          `${operationId} ${code} ${name} value`,
        );
        out.push({
          key: `${operationId} ${code} ${name}`,
          operationId,
          method: op.method,
          template: op.path,
          status,
          name,
          response,
          value,
          pathExamples,
        });
      }
    }
  }
  return out;
}

const examples = errorExamples();
const rows = examples.map((e) => [e.key, e] as const);

/** The resource a 404 of an operation with a path parameter is about (as its message begins), then the ones its body may name. */
const NOT_FOUND_NOUNS: Record<string, string[]> = {
  getIntegration: ["Integration"],
  updateIntegration: ["Integration"],
  createIntegrationAuth: ["Integration"],
  getBatchRun: ["Batch run"],
  getCall: ["Call"],
  getQaRule: ["QA rule"],
  deleteQaRule: ["QA rule"],
  // E15's body names agents (inboundAgentId, outboundAgentId): an unknown one is not found either.
  updatePhoneNumber: ["Phone number", "Agent"],
};

describe("error examples of every operation", () => {
  it("covers the 17 operations and every error status they declare", () => {
    expect([...new Set(examples.map((e) => e.operationId))].sort()).toEqual([...REFERENCE_OPERATION_IDS].sort());
    expect(
      examples.filter((e) => e.name === "").map((e) => e.key),
      "error responses without an example",
    ).toEqual([]);
  });

  it.each(rows)("%s: status, section 7 text, a concrete path of the operation, a message", (_key, e) => {
    expect(e.response.description, "description").toMatch(/\.$/);
    const content = e.response.content as JsonObject;
    expect((content["application/json"] as JsonObject).schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(e.value.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(e.value.status).toBe(e.status);
    expect(e.value.error).toBe(SECTION_7[e.status]);
    expect(typeof e.value.message === "string" && e.value.message.length > 0, "message is non-empty").toBe(true);
    const path = String(e.value.path);
    expect(path).not.toMatch(/[{}?#]/);
    const pattern = new RegExp(`^${e.template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    expect(path, `path of ${e.template}`).toMatch(pattern);
    if (e.value.validationErrors !== undefined) {
      expect(e.status).toBe(400);
      expect(
        Object.values(e.value.validationErrors as JsonObject).every((m) => typeof m === "string" && m.length > 0),
      ).toBe(true);
    }
  });

  const notFoundWithId = rows.filter(([, e]) => e.status === 404 && Object.keys(e.pathExamples).length > 0);
  it.each(notFoundWithId)("%s: the path carries the example id and the message names the resource", (_key, e) => {
    let expected = e.template;
    for (const [name, id] of Object.entries(e.pathExamples)) expected = expected.replace(`{${name}}`, id);
    expect(e.value.path).toBe(expected);
    const nouns = NOT_FOUND_NOUNS[e.operationId];
    expect(nouns, `resource nouns of ${e.operationId}`).toBeDefined();
    const message = String(e.value.message);
    const noun = nouns.find((n) => message.startsWith(`${n} not found`));
    expect(noun, `"${message}" begins with one of ${nouns.join(", ")}`).toBeDefined();
    // The resource of the path is named with the path's own id.
    if (noun === nouns[0]) for (const id of Object.values(e.pathExamples)) expect(message).toContain(id);
  });

  it.each(rows.filter(([, e]) => e.status === 403 || e.status === 404))(
    "%s: the response states its decision (x-assumption)",
    (_key, e) => {
      const assumption = String(e.response["x-assumption"] ?? "");
      expect(assumption).not.toBe("");
      if (e.status === 403)
        expect(assumption).toMatch(e.method === "get" ? /does not answer it to this read/ : /read-only key/);
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Replay against the kit's mock.

const INT = "3f1c2a9e-7b4d-4e61-9a0f-2d5c8e7b1a40";
const BATCH = "8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f";
const CALL = "5b7c9d1e-2f3a-4b5c-9d6e-7f8a9b0c1d2e";
const QA = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const AGENT = "7c1e5a2b-9d3f-4e8a-b6c0-1f2e3d4c5b6a";
const TEST_CASE = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c";
const TEST_CASE_2 = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
const PHONE = "+14155550123";
const MB = 1024 * 1024;

type Form = () => FormData;
function form(fields: Record<string, string>, files: [string, BlobPart][] = []): Form {
  return () => {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.set(k, v);
    for (const [name, content] of files)
      data.append("knowledge_base_files", new Blob([content], { type: "application/octet-stream" }), name);
    return data;
  };
}

interface Replay {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string>;
  json?: Json;
  form?: Form;
  /** default: the mock's own key (its seeded workspace, where the examples' ids do not exist). */
  key: "default" | "none" | "readOnly";
  /**
   * Records created first, in this order, through the control plane in a fresh seeded workspace whose
   * key then replaces the default one. A partial record is completed by the mock (a test case or batch
   * run takes the workspace's most recent agent).
   */
  setup?: [collection: string, record: JsonObject][];
}

/** Valid bodies, for the requests whose failure comes before the body matters (401, 403) or after it (404). */
const BODY = {
  createIntegration: { name: "CRM", description: "Use to look up customers and their orders." },
  updateIntegration: { description: "Use to look up customers, orders and invoices." },
  createIntegrationAuth: { authType: "BEARER", token: "<TOKEN>" },
  createBatchRun: { agentId: AGENT, testCases: [TEST_CASE, TEST_CASE_2] },
  createKnowledgeBase: form({ name: "Support FAQ", knowledge_base_texts: '["Opening hours are 9 to 5."]' }),
  updatePhoneNumber: { friendlyName: "Support line" },
  createChat: {
    agentId: AGENT,
    conversation: "Can I move my appointment to Friday?",
    variables: { customerName: "Dana" },
  },
} satisfies Record<string, Json | Form>;

const REPLAYS: Record<string, Replay> = {
  "listAgents 400 sizeZero": { method: "GET", path: "/v1/agents", query: { size: "0" }, key: "default" },
  "listAgents 401 missingKey": { method: "GET", path: "/v1/agents", key: "none" },

  "createIntegration 400 missingName": {
    method: "POST",
    path: "/v1/integrations",
    json: { description: "Use to look up customers and their orders." },
    key: "default",
  },
  "createIntegration 401 missingKey": {
    method: "POST",
    path: "/v1/integrations",
    json: BODY.createIntegration,
    key: "none",
  },
  "createIntegration 403 readOnlyKey": {
    method: "POST",
    path: "/v1/integrations",
    json: BODY.createIntegration,
    key: "readOnly",
  },

  "getIntegration 400 idTooLong": { method: "GET", path: `/v1/integrations/${INT.repeat(4)}`, key: "default" },
  "getIntegration 401 missingKey": { method: "GET", path: `/v1/integrations/${INT}`, key: "none" },
  "getIntegration 404 unknownIntegration": { method: "GET", path: `/v1/integrations/${INT}`, key: "default" },

  "updateIntegration 400 unknownField": {
    method: "PATCH",
    path: `/v1/integrations/${INT}`,
    json: { label: "CRM" },
    key: "default",
  },
  "updateIntegration 400 emptyName": {
    method: "PATCH",
    path: `/v1/integrations/${INT}`,
    json: { name: "" },
    key: "default",
  },
  "updateIntegration 401 missingKey": {
    method: "PATCH",
    path: `/v1/integrations/${INT}`,
    json: BODY.updateIntegration,
    key: "none",
  },
  "updateIntegration 403 readOnlyKey": {
    method: "PATCH",
    path: `/v1/integrations/${INT}`,
    json: BODY.updateIntegration,
    key: "readOnly",
  },
  "updateIntegration 404 unknownIntegration": {
    method: "PATCH",
    path: `/v1/integrations/${INT}`,
    json: BODY.updateIntegration,
    key: "default",
  },

  "createIntegrationAuth 400 bearerWithoutToken": {
    method: "POST",
    path: `/v1/integrations/${INT}/auth`,
    json: { authType: "BEARER" },
    key: "default",
  },
  "createIntegrationAuth 401 missingKey": {
    method: "POST",
    path: `/v1/integrations/${INT}/auth`,
    json: BODY.createIntegrationAuth,
    key: "none",
  },
  "createIntegrationAuth 403 readOnlyKey": {
    method: "POST",
    path: `/v1/integrations/${INT}/auth`,
    json: BODY.createIntegrationAuth,
    key: "readOnly",
  },
  "createIntegrationAuth 404 unknownIntegration": {
    method: "POST",
    path: `/v1/integrations/${INT}/auth`,
    json: BODY.createIntegrationAuth,
    key: "default",
  },

  "createBatchRun 400 noTestCases": {
    method: "POST",
    path: "/v1/batch-runs",
    json: { agentId: AGENT, testCases: [] },
    key: "default",
  },
  "createBatchRun 401 missingKey": { method: "POST", path: "/v1/batch-runs", json: BODY.createBatchRun, key: "none" },
  "createBatchRun 403 readOnlyKey": {
    method: "POST",
    path: "/v1/batch-runs",
    json: BODY.createBatchRun,
    key: "readOnly",
  },
  "createBatchRun 404 unknownAgent": {
    method: "POST",
    path: "/v1/batch-runs",
    json: BODY.createBatchRun,
    key: "default",
  },
  "createBatchRun 404 unknownTestCase": {
    method: "POST",
    path: "/v1/batch-runs",
    json: BODY.createBatchRun,
    key: "default",
    setup: [["agents", { agentId: AGENT }]],
  },
  "createBatchRun 404 testCaseOfAnotherAgent": {
    method: "POST",
    path: "/v1/batch-runs",
    json: BODY.createBatchRun,
    key: "default",
    // The test case is made before the agent, so it takes a seeded agent, not this one.
    setup: [
      ["testCases", { testCaseId: TEST_CASE }],
      ["agents", { agentId: AGENT }],
    ],
  },

  "getBatchRun 400 agentIdTooLong": {
    method: "GET",
    path: `/v1/batch-runs/${BATCH}`,
    query: { agentId: AGENT.repeat(4) },
    key: "default",
  },
  "getBatchRun 401 missingKey": { method: "GET", path: `/v1/batch-runs/${BATCH}`, key: "none" },
  "getBatchRun 404 unknownBatch": { method: "GET", path: `/v1/batch-runs/${BATCH}`, key: "default" },
  "getBatchRun 404 otherAgent": {
    method: "GET",
    path: `/v1/batch-runs/${BATCH}`,
    query: { agentId: AGENT },
    key: "default",
    setup: [["batchRuns", { batchId: BATCH }]],
  },

  "listTestRuns 400 pageNegative": { method: "GET", path: "/v1/test-runs", query: { page: "-1" }, key: "default" },
  "listTestRuns 401 missingKey": { method: "GET", path: "/v1/test-runs", key: "none" },

  "createKnowledgeBase 400 textsNotAnArray": {
    method: "POST",
    path: "/v1/knowledge-bases",
    key: "default",
    form: form({ name: "Support FAQ", knowledge_base_texts: '{"title": "Returns", "text": "30 days."}' }),
  },
  "createKnowledgeBase 401 missingKey": {
    method: "POST",
    path: "/v1/knowledge-bases",
    form: BODY.createKnowledgeBase,
    key: "none",
  },
  "createKnowledgeBase 403 readOnlyKey": {
    method: "POST",
    path: "/v1/knowledge-bases",
    form: BODY.createKnowledgeBase,
    key: "readOnly",
  },
  "createKnowledgeBase 413 fileTooLarge": {
    method: "POST",
    path: "/v1/knowledge-bases",
    key: "default",
    form: () => {
      const big = new Uint8Array(25 * MB + 1).fill(0x20);
      big.set(new TextEncoder().encode("%PDF-1.7\n"));
      return form({ name: "Support FAQ" }, [["price-list.pdf", big]])();
    },
  },
  "createKnowledgeBase 415 fileTypeRefused": {
    method: "POST",
    path: "/v1/knowledge-bases",
    key: "default",
    form: form({ name: "Support FAQ" }, [
      ["photo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ]),
  },

  "listCalls 400 unknownStatus": { method: "GET", path: "/v1/calls", query: { status: "finished" }, key: "default" },
  "listCalls 401 missingKey": { method: "GET", path: "/v1/calls", key: "none" },

  "getCall 400 idTooLong": { method: "GET", path: `/v1/calls/${CALL.repeat(4)}`, key: "default" },
  "getCall 401 missingKey": { method: "GET", path: `/v1/calls/${CALL}`, key: "none" },
  "getCall 404 unknownCall": { method: "GET", path: `/v1/calls/${CALL}`, key: "default" },

  "getQaRule 400 idTooLong": { method: "GET", path: `/v1/qa-rules/${QA.repeat(4)}`, key: "default" },
  "getQaRule 401 missingKey": { method: "GET", path: `/v1/qa-rules/${QA}`, key: "none" },
  "getQaRule 404 unknownQaRule": { method: "GET", path: `/v1/qa-rules/${QA}`, key: "default" },

  "deleteQaRule 400 idTooLong": { method: "DELETE", path: `/v1/qa-rules/${QA.repeat(4)}`, key: "default" },
  "deleteQaRule 401 missingKey": { method: "DELETE", path: `/v1/qa-rules/${QA}`, key: "none" },
  "deleteQaRule 403 readOnlyKey": { method: "DELETE", path: `/v1/qa-rules/${QA}`, key: "readOnly" },
  "deleteQaRule 404 unknownQaRule": { method: "DELETE", path: `/v1/qa-rules/${QA}`, key: "default" },

  "listPhoneNumbers 400 sizeZero": { method: "GET", path: "/v1/phone-number", query: { size: "0" }, key: "default" },
  "listPhoneNumbers 401 missingKey": { method: "GET", path: "/v1/phone-number", key: "none" },

  "updatePhoneNumber 400 unknownField": {
    method: "PATCH",
    path: `/v1/phone-number/${PHONE}`,
    json: { label: "Support line" },
    key: "default",
  },
  "updatePhoneNumber 401 missingKey": {
    method: "PATCH",
    path: `/v1/phone-number/${PHONE}`,
    json: BODY.updatePhoneNumber,
    key: "none",
  },
  "updatePhoneNumber 403 readOnlyKey": {
    method: "PATCH",
    path: `/v1/phone-number/${PHONE}`,
    json: BODY.updatePhoneNumber,
    key: "readOnly",
  },
  "updatePhoneNumber 404 unknownNumber": {
    method: "PATCH",
    path: `/v1/phone-number/${PHONE}`,
    json: BODY.updatePhoneNumber,
    key: "default",
  },
  "updatePhoneNumber 404 unknownInboundAgent": {
    method: "PATCH",
    path: `/v1/phone-number/${PHONE}`,
    json: { inboundAgentId: AGENT },
    key: "default",
    setup: [["phoneNumbers", { sipPhoneNumber: PHONE }]],
  },

  "createChat 400 missingAgentId": {
    method: "POST",
    path: "/v1/chat",
    json: { conversation: "Can I move my appointment to Friday?" },
    key: "default",
  },
  "createChat 401 missingKey": { method: "POST", path: "/v1/chat", json: BODY.createChat, key: "none" },
  "createChat 403 readOnlyKey": { method: "POST", path: "/v1/chat", json: BODY.createChat, key: "readOnly" },
  "createChat 404 unknownAgent": { method: "POST", path: "/v1/chat", json: BODY.createChat, key: "default" },

  "listWebhooks 400 activeNotBoolean": {
    method: "GET",
    path: "/v1/webhooks",
    query: { active: "maybe" },
    key: "default",
  },
  "listWebhooks 401 missingKey": { method: "GET", path: "/v1/webhooks", key: "none" },
};

const OPERATIONS = [...new Set(examples.map((e) => e.operationId))];
const READS = [...new Set(examples.filter((e) => e.method === "get").map((e) => e.operationId))];
/** Operations whose 404 has nothing to miss: lists, and creations that name no other resource. */
const NOTHING_TO_MISS = [
  "listAgents",
  "createIntegration",
  "listTestRuns",
  "createKnowledgeBase",
  "listCalls",
  "listPhoneNumbers",
  "listWebhooks",
];

/** Examples the mock does not reproduce on its own, with the reason. */
const NOT_REPLAYED = new Map<string, string>([
  ...OPERATIONS.map(
    (op) =>
      [
        `${op} 500 unexpected`,
        "the mock answers 500 only to a fault inside it, which no request causes on purpose",
      ] as const,
  ),
  ...READS.map(
    (op) =>
      [`${op} 403 accessDenied`, "the mock answers 403 to a read only when forced (a read-only key may read)"] as const,
  ),
  ...NOTHING_TO_MISS.map(
    (op) =>
      [
        `${op} 404 notFound`,
        "nothing to miss here: the mock answers 404 only when forced, with a message saying so",
      ] as const,
  ),
]);

/** The fields the replay compares: all of the body but the timestamp. */
const compared = (body: any) => ({
  status: body?.status,
  error: body?.error,
  message: body?.message,
  path: body?.path,
  validationErrors: body?.validationErrors,
});

describe("replay of the error examples against the kit's mock", () => {
  const t = useMock();
  const byKey = new Map(examples.map((e) => [e.key, e]));

  it("replays every example or says why not, and names no example the spec does not have", () => {
    const replayed = Object.keys(REPLAYS);
    const skipped = [...NOT_REPLAYED.keys()];
    expect(
      replayed.filter((k) => NOT_REPLAYED.has(k)),
      "both replayed and not",
    ).toEqual([]);
    expect([...replayed, ...skipped].sort()).toEqual([...byKey.keys()].sort());
  });

  async function keyFor(replay: Replay): Promise<string | null> {
    if (replay.key === "none") return null;
    if (replay.key === "readOnly") return (await t.workspace({ readOnly: true })).apiKey;
    if (!replay.setup) return t.mock.apiKey;
    const ws = await t.workspace();
    for (const [collection, record] of replay.setup) {
      const res = await fetch(`${t.url}/__mock/workspaces/${ws.workspaceId}/${collection}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(record),
      });
      expect(res.status, `setup ${collection} ${JSON.stringify(record)}: ${await res.text()}`).toBe(201);
    }
    return ws.apiKey;
  }

  function send(
    replay: Pick<Replay, "method" | "path" | "query" | "json" | "form">,
    key: string | null,
    headers: Record<string, string> = {},
  ) {
    const query = replay.query ? `?${new URLSearchParams(replay.query)}` : "";
    const init: RequestInit & { key: string | null } = { method: replay.method, key, headers: { ...headers } };
    if (replay.json !== undefined) {
      init.body = JSON.stringify(replay.json);
      (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    } else if (replay.form) init.body = replay.form();
    return t.raw(replay.path + query, init);
  }

  it.each(Object.entries(REPLAYS))("%s: the mock answers the example", async (key, replay) => {
    const example = byKey.get(key);
    expect(example, `${key} is an example of the spec`).toBeDefined();
    expect(replay.method.toLowerCase()).toBe(example!.method);
    const res = await send(replay, await keyFor(replay));
    const body = await res.json();
    expect(res.status).toBe(example!.status);
    expect(compared(body)).toEqual(compared(example!.value));
  });

  /** A valid body of each operation that takes one, for forcing a status with Prefer (answered after validation). */
  const VALID = Object.fromEntries(
    Object.entries(BODY).map(([op, body]) => [
      op,
      typeof body === "function" ? { form: body } : { json: body as Json },
    ]),
  ) as Record<string, Pick<Replay, "json" | "form">>;

  it.each([...NOT_REPLAYED.keys()].map((k) => [k, NOT_REPLAYED.get(k)!] as const))(
    "%s (%s): forced with Prefer, the mock answers its status, error and path",
    async (key) => {
      const example = byKey.get(key);
      expect(example, `${key} is an example of the spec`).toBeDefined();
      const e = example!;
      const replay = {
        method: e.method.toUpperCase() as Replay["method"],
        path: String(e.value.path),
        ...VALID[e.operationId],
      };
      const res = await send(replay, t.mock.apiKey, { Prefer: `code=${e.status}` });
      const body = await res.json();
      expect(res.status).toBe(e.status);
      expect({ status: body.status, error: body.error, path: body.path }).toEqual({
        status: e.value.status,
        error: e.value.error,
        path: e.value.path,
      });
    },
  );
});
