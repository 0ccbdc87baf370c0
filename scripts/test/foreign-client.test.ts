/**
 * A client the kit did not write: @hey-api/openapi-ts generates a fetch client from
 * generated/openapi.json (once, in beforeAll, into a temporary folder), and it calls every operation
 * of the spec against the mock, in process. Each call must get the operation's documented success
 * status; E9's texts and URLs, sent as this generator sends them, must be stored as sources. An
 * operationId of the spec without an entry in the tables fails the test (the webhooks' too, whose
 * payload types the generator must write), so a new operation needs one.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMock, startMock } from "../../mock-server/server.js";

const SPEC = join(import.meta.dirname, "..", "..", "generated", "openapi.json");
const METHODS = ["get", "put", "post", "patch", "delete"];

/** The spec's operations (its paths and its webhooks): operationId -> documented success status. */
function operations(section: "paths" | "webhooks"): Map<string, number> {
  const doc = JSON.parse(readFileSync(SPEC, "utf8"));
  const out = new Map<string, number>();
  for (const item of Object.values<any>(doc[section] ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const success = Object.keys(op.responses).find((status) => /^2\d\d$/.test(status));
      out.set(op.operationId, Number(success));
    }
  }
  return out;
}

/** The generated SDK: one function per operation, plus the client it configures. */
type Sdk = Record<
  string,
  (options?: Record<string, unknown>) => Promise<{ data?: any; error?: any; response: Response }>
> & {
  client: { setConfig(config: Record<string, unknown>): void };
};

let dir: string;
let sdk: Sdk;
let mock: RunningMock;
/** The last request the client sent, as it went on the wire (a clone, body unread). */
let lastRequest: Request | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "foreign-client-"));
  const { createClient } = await import("@hey-api/openapi-ts");
  await createClient({
    input: SPEC,
    output: { path: dir },
    plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
    logs: { level: "silent", file: false },
  });
  sdk = (await import(pathToFileURL(join(dir, "index.ts")).href)) as Sdk;
  sdk.client = (await import(pathToFileURL(join(dir, "client.gen.ts")).href)).client;
  mock = await startMock({ host: "127.0.0.1", port: 0, log: () => undefined });
  sdk.client.setConfig({
    baseUrl: mock.url,
    headers: { "X-API-Key": mock.apiKey },
    fetch: (request: Request) => {
      lastRequest = request.clone();
      return fetch(request);
    },
  });
}, 120_000);

afterAll(async () => {
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A collection of the default workspace, oldest first, through the control plane. */
async function records(collection: string): Promise<any[]> {
  const res = await fetch(`${mock.url}/__mock/workspaces/default/${collection}`);
  expect(res.status, `control plane ${collection}`).toBe(200);
  return (await res.json()) as any[];
}

/** What earlier calls made, for the later ones. */
const made: Record<string, string> = {};

type Call = () => Promise<{ data?: any; error?: any; response: Response }>;

/** Every operation, in an order where each finds what it needs; the check after the status is optional. */
const CALLS: Record<string, { call: Call; check?: (data: any) => Promise<void> | void }> = {
  listAgents: {
    call: () => sdk.listAgents({ query: { page: 0, size: 5 } }),
    check: (page) => expect(page.data.length).toBeGreaterThan(0),
  },
  createIntegration: {
    call: () => sdk.createIntegration({ body: { name: "Foreign CRM", description: "Use to look up customers." } }),
    check: (integration) => void (made.integrationId = integration.integrationId),
  },
  getIntegration: {
    call: () => sdk.getIntegration({ path: { integrationId: made.integrationId } }),
    check: (integration) => expect(integration.name).toBe("Foreign CRM"),
  },
  updateIntegration: {
    call: () =>
      sdk.updateIntegration({
        path: { integrationId: made.integrationId },
        body: { description: "Use to look up customers and orders." },
      }),
    check: (integration) => expect(integration.description).toBe("Use to look up customers and orders."),
  },
  createIntegrationAuth: {
    call: () =>
      sdk.createIntegrationAuth({
        path: { integrationId: made.integrationId },
        body: { authType: "BEARER", token: "<TOKEN>" },
      }),
    check: (auth) => expect(auth.authType).toBe("BEARER"),
  },
  createBatchRun: {
    call: async () => {
      const [testCase] = await records("testCases");
      made.agentId = testCase.agent.agentId;
      return sdk.createBatchRun({ body: { agentId: made.agentId, testCases: [testCase.testCaseId] } });
    },
    check: (batch) => void (made.batchId = batch.batchId),
  },
  getBatchRun: {
    call: () => sdk.getBatchRun({ path: { batchId: made.batchId }, query: { agentId: made.agentId } }),
    check: (batch) => expect(batch.testCases).toHaveLength(1),
  },
  listTestRuns: {
    call: () => sdk.listTestRuns({ query: { batchId: made.batchId, page: 0, size: 10 } }),
    check: (page) => expect(page.data.every((run: any) => run.batchId === made.batchId)).toBe(true),
  },
  createKnowledgeBase: {
    call: () =>
      sdk.createKnowledgeBase({
        body: {
          name: "Foreign FAQ",
          knowledge_base_texts: JSON.stringify(["Opening hours are 9 to 5.", { title: "Returns", text: "30 days." }]),
          knowledge_base_urls: JSON.stringify(["https://example.com/faq"]),
        },
      }),
    check: async (kb) => {
      // As this generator sends them: plain form fields, no filename.
      const sent = await lastRequest!.formData();
      expect(typeof sent.get("knowledge_base_texts")).toBe("string");
      expect(typeof sent.get("knowledge_base_urls")).toBe("string");
      const expected = [
        { type: "text", content: "Opening hours are 9 to 5." },
        { type: "text", content: "Returns\n\n30 days." },
        { type: "url", content: "https://example.com/faq" },
      ];
      const sources = (files: any[]) => files.map(({ type, content }) => ({ type, content }));
      expect(sources(kb.files)).toEqual(expected);
      const stored = (await records("knowledgeBases")).find((k) => k.kbId === kb.kbId);
      expect(sources(stored.files)).toEqual(expected);
    },
  },
  listCalls: {
    call: () => sdk.listCalls({ query: { status: "ended", page: 0, size: 3 } }),
    check: (page) => {
      expect(page.data.every((call: any) => call.status === "ended")).toBe(true);
      made.callId = page.data[0].callId;
    },
  },
  getCall: {
    call: () => sdk.getCall({ path: { callId: made.callId } }),
    check: (call) => expect(call.callId).toBe(made.callId),
  },
  getQaRule: {
    call: async () => {
      const [first, second] = await records("qaRules");
      made.qaRuleId = first.qaRuleId;
      made.qaRuleToDelete = second.qaRuleId;
      return sdk.getQaRule({ path: { qaRuleId: made.qaRuleId } });
    },
    check: (rule) => expect(rule.qaRuleId).toBe(made.qaRuleId),
  },
  deleteQaRule: {
    call: () => sdk.deleteQaRule({ path: { qaRuleId: made.qaRuleToDelete } }),
  },
  listPhoneNumbers: {
    call: () => sdk.listPhoneNumbers({ query: { page: 0, size: 10 } }),
    check: (page) => {
      expect(page).toHaveProperty("totalCounts");
      made.phoneNumber = page.data[0].sipPhoneNumber;
    },
  },
  updatePhoneNumber: {
    call: () =>
      sdk.updatePhoneNumber({ path: { phoneNumber: made.phoneNumber }, body: { friendlyName: "Foreign line" } }),
    check: (number) => expect(number.friendlyName).toBe("Foreign line"),
  },
  createChat: {
    call: () =>
      sdk.createChat({
        body: { agentId: made.agentId, conversation: "Can I move my appointment?", variables: { name: "Dana" } },
      }),
    check: (chat) => expect(Array.isArray(chat.response)).toBe(true),
  },
  listWebhooks: {
    call: () => sdk.listWebhooks({ query: { active: true } }),
    check: (page) => expect(page.data.every((webhook: any) => webhook.active)).toBe(true),
  },
};

/**
 * The webhooks of the spec: the platform calls the receiver, so a client has nothing to call; the
 * generator gives the receiver the payload's type instead.
 */
const DELIVERIES: Record<string, string> = {
  conversationStartedEvent: "ConversationStartedEventWebhookPayload",
  conversationEndedEvent: "ConversationEndedEventWebhookPayload",
};

describe("a client generated by @hey-api/openapi-ts", () => {
  const spec = operations("paths");
  const webhooks = operations("webhooks");

  it("has an entry for every operationId of the spec, and the SDK a function for each operation", () => {
    expect(Object.keys(CALLS).sort()).toEqual([...spec.keys()].sort());
    expect(Object.keys(DELIVERIES).sort()).toEqual([...webhooks.keys()].sort());
    for (const operationId of spec.keys()) expect(typeof sdk[operationId], operationId).toBe("function");
  });

  it("types the payload of every webhook delivery", () => {
    const types = readFileSync(join(dir, "types.gen.ts"), "utf8");
    for (const [operationId, payload] of Object.entries(DELIVERIES)) {
      expect(types, operationId).toContain(`export type ${payload} =`);
      expect(sdk[operationId], `${operationId} is not the client's to call`).toBeUndefined();
    }
  });

  it.each(Object.keys(CALLS))("%s answers its documented success status", async (operationId) => {
    const entry = CALLS[operationId];
    const { data, error, response } = await entry.call();
    expect(response.status, `${operationId}: ${JSON.stringify(error)}`).toBe(spec.get(operationId));
    await entry.check?.(data);
  });
});
