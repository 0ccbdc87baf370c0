/** Authentication (401), read-only keys (403) and workspace isolation (404), on every operation. */
import { describe, expect, it } from "vitest";
import { loadOperations } from "../http/operations.js";
import { expectErrorBody, useMock } from "./harness.js";

const t = useMock();

/** A concrete path for each operation: unknown ids are fine, auth comes first. */
const concrete = (path: string) => path.replace("{phoneNumber}", "%2B14155550100").replace(/\{[^}]+\}/g, "some-id");

describe("API key", () => {
  const operations = loadOperations();

  it("covers all 17 operations", () => expect(operations.length).toBe(17));

  it.each(operations.map((op) => [op.operationId, op] as const))("%s answers 401 to a missing, empty, wrong, wrong-case or query-string key", async (_id, op) => {
    const path = concrete(op.path);
    const wrongCase = t.mock.apiKey.toUpperCase();
    for (const key of [null, "", "wrong-key", wrongCase]) {
      const res = await t.raw(path, { method: op.method.toUpperCase(), key, headers: key === "" ? { "X-API-Key": "" } : {} });
      expect(res.status, `key ${JSON.stringify(key)}`).toBe(401);
      expectErrorBody(await res.json(), 401, path);
    }
    const inQuery = await t.raw(`${path}?api_key=${t.mock.apiKey}&X-API-Key=${t.mock.apiKey}`, { method: op.method.toUpperCase(), key: null });
    expect(inQuery.status).toBe(401);
  });

  it("answers 403 to a read-only key on a write, and serves its reads", async () => {
    const { api, apiKey } = await t.workspace({ readOnly: true });
    expect((await api.GET("/v1/calls")).response.status).toBe(200);
    const res = await t.raw("/v1/integrations", { method: "POST", key: apiKey, headers: { "Content-Type": "application/json" }, body: '{"name":"x"}' });
    expect(res.status).toBe(403);
    expectErrorBody(await res.json(), 403, "/v1/integrations");
  });
});

describe("workspace isolation", () => {
  it("never shows or changes another workspace's records", async () => {
    const a = await t.workspace({ seed: 11 });
    const b = await t.workspace({ seed: 11 });
    const callsA = (await a.api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    const callsB = (await b.api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    const idsA = new Set(callsA.data.map((c) => c.callId));
    expect(callsB.data.some((c) => idsA.has(c.callId))).toBe(false);

    const { data: integration } = await a.api.POST("/v1/integrations", { body: { name: "A only" } });
    const path = { params: { path: { integrationId: integration!.integrationId } } };
    expect((await b.api.GET("/v1/integrations/{integrationId}", path)).response.status).toBe(404);
    expect((await b.api.PATCH("/v1/integrations/{integrationId}", { ...path, body: { name: "hijack" } })).response.status).toBe(404);
    expect((await b.api.POST("/v1/integrations/{integrationId}/auth", { ...path, body: { authType: "NONE" } })).response.status).toBe(404);
    expect((await a.api.GET("/v1/integrations/{integrationId}", path)).data!.name).toBe("A only");

    const callA = callsA.data[0].callId;
    expect((await b.api.GET("/v1/calls/{callId}", { params: { path: { callId: callA } } })).response.status).toBe(404);
    const rule = (await (await t.raw(`/__mock/workspaces/${a.workspaceId}/qaRules`)).json())[0];
    expect((await b.api.DELETE("/v1/qa-rules/{qaRuleId}", { params: { path: { qaRuleId: rule.qaRuleId } } })).response.status).toBe(404);
    expect((await a.api.GET("/v1/qa-rules/{qaRuleId}", { params: { path: { qaRuleId: rule.qaRuleId } } })).response.status).toBe(200);
    const agentA = (await a.api.GET("/v1/agents")).data!.data[0].agentId;
    expect((await b.api.POST("/v1/chat", { body: { agentId: agentA } })).response.status).toBe(404);
  });
});
