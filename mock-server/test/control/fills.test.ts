/**
 * Fills stay coherent (issue 11, item 6), through both doors with plain fetch: every reference a
 * control-plane fill makes names a record of the same workspace (created when it has none), and a
 * call filled with an `outcome` lives the scripted life on its workspace's clock.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock, type RunningMock } from "../../server.js";
import { serializeState } from "../../store/state.js";

/** Reply bodies, read loosely: the cases check their fields one by one. */
type Json = Record<string, any>;

/** The requests the cases make, against a door's base URL. */
function client(base: () => string) {
  const send = async (method: string, path: string, body?: unknown, apiKey?: string) => {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...(body !== undefined && { "Content-Type": "application/json" }),
        ...(apiKey && { "X-API-Key": apiKey }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  return {
    async workspace(): Promise<{ workspaceId: string; apiKey: string }> {
      const created = await send("POST", "/__mock/workspaces", { empty: true });
      expect(created.status).toBe(201);
      return created.body as { workspaceId: string; apiKey: string };
    },
    fill: (workspaceId: string, collection: string, partial: Json) =>
      send("POST", `/__mock/workspaces/${workspaceId}/${collection}`, partial),
    async filled(workspaceId: string, collection: string, partial: Json = {}): Promise<Json> {
      const reply = await send("POST", `/__mock/workspaces/${workspaceId}/${collection}`, partial);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body;
    },
    async list(workspaceId: string, collection: string): Promise<Json[]> {
      return (await send("GET", `/__mock/workspaces/${workspaceId}/${collection}`)).body as unknown as Json[];
    },
    api: (apiKey: string, path: string) => send("GET", path, undefined, apiKey),
    advance: (workspaceId: string, seconds: number) => send("POST", "/__mock/clock/advance", { seconds, workspaceId }),
    deliveries: async (workspaceId: string) =>
      ((await send("GET", "/__mock/webhook-deliveries")).body as unknown as Json[]).filter(
        (d) => d.workspaceId === workspaceId,
      ),
  };
}

type Client = ReturnType<typeof client>;

function fillCases(c: Client) {
  it("fills a call's agent and number with records of its workspace, created when it has none", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const call = await c.filled(workspaceId, "calls", { callType: "outbound", status: "ended" });
    const [agent] = await c.list(workspaceId, "agents");
    expect(call.agent).toEqual({ name: agent.agentName, agentId: agent.agentId, status: "Live" });
    const numbers = await c.list(workspaceId, "phoneNumbers");
    expect(numbers).toEqual([call.phoneNumber]);
    expect(call.phoneNumber.outboundAgentId).toBe(agent.agentId);
    const read = await c.api(apiKey, `/v1/calls/${call.callId}`);
    expect(read.status).toBe(200);
    expect(read.body.agent).toEqual(call.agent);
    expect(read.body.phoneNumber).toEqual(call.phoneNumber);

    // A second fill points at what the workspace now holds rather than creating more.
    const again = await c.filled(workspaceId, "calls", { callType: "inbound" });
    expect(again.agent.agentId).toBe(agent.agentId);
    expect(again.phoneNumber.sipPhoneNumber).toBe(call.phoneNumber.sipPhoneNumber);
    expect(await c.list(workspaceId, "agents")).toHaveLength(1);
    expect(await c.list(workspaceId, "phoneNumbers")).toHaveLength(1);
  });

  it("fills a test run's batch, with its agent and test case, and GET /v1/batch-runs agrees", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const run = await c.filled(workspaceId, "testRuns");
    const [batch] = await c.list(workspaceId, "batchRuns");
    expect(batch.batchId).toBe(run.batchId);
    expect(batch.agent).toEqual(run.agent);
    expect(batch.testCases.map((t: Json) => t.testCaseId)).toContain(run.testCase.testCaseId);
    expect((await c.list(workspaceId, "testCases")).map((t) => t.testCaseId)).toContain(run.testCase.testCaseId);
    expect((await c.list(workspaceId, "agents")).map((a) => a.agentId)).toEqual([run.agent.agentId]);
    expect(Date.parse(batch.createdDate)).toBeLessThanOrEqual(Date.parse(run.createdDate));
    const read = await c.api(apiKey, `/v1/batch-runs/${run.batchId}?agentId=${run.agent.agentId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ batchId: run.batchId, agent: run.agent, totalAttempts: 1 });
  });

  it("points every other reference at a record of the workspace", async () => {
    const { workspaceId } = await c.workspace();
    const agentIds = async () => new Set((await c.list(workspaceId, "agents")).map((a) => a.agentId));
    // First, while the workspace has no agent: a number answers a new one rather than none.
    const number = await c.filled(workspaceId, "phoneNumbers");
    const issue = await c.filled(workspaceId, "qaIssues");
    const rule = (await c.list(workspaceId, "qaRules")).find((r) => r.qaRuleId === issue.qaRuleId);
    expect(rule?.ruleName).toBe(issue.ruleName);
    expect(rule?.agents.map((a: Json) => a.agentId)).toContain(issue.agentId);
    const judged = (await c.list(workspaceId, "calls")).find((call) => call.callId === issue.conversationId);
    expect(judged).toMatchObject({ status: "ended", agent: { agentId: issue.agentId } });
    const chat = await c.filled(workspaceId, "chats");
    const hook = await c.filled(workspaceId, "webhooks");
    const testCase = await c.filled(workspaceId, "testCases");
    const batch = await c.filled(workspaceId, "batchRuns");
    const known = await agentIds();
    for (const id of [chat.agentId, hook.agentId, number.inboundAgentId, testCase.agent.agentId, batch.agent.agentId])
      expect(known).toContain(id);
    expect(known.size).toBe(1);
    // The agent's settings list the webhook filled for it.
    const [agent] = await c.list(workspaceId, "agents");
    expect(agent.agentSettings.webhooks.map((w: Json) => w.webhookId)).toContain(hook.webhookId);
  });

  it("keeps a given id as given and names it from the record when there is one", async () => {
    const { workspaceId } = await c.workspace();
    const agent = await c.filled(workspaceId, "agents", { agentName: "Ada - Support" });
    const named = await c.filled(workspaceId, "calls", { agent: { agentId: agent.agentId, name: "wrong" } });
    expect(named.agent.name).toBe("Ada - Support");
    const unknown = await c.filled(workspaceId, "chats", { agentId: "agent-elsewhere" });
    expect(unknown.agentId).toBe("agent-elsewhere");
    expect(await c.list(workspaceId, "agents")).toHaveLength(1);
  });

  it("never points a fill in one workspace at records of another", async () => {
    const a = await c.workspace();
    const b = await c.workspace();
    const bAgent = await c.filled(b.workspaceId, "agents");
    const bNumber = await c.filled(b.workspaceId, "phoneNumbers");
    const call = await c.filled(a.workspaceId, "calls", { callType: "outbound" });
    expect(call.agent.agentId).not.toBe(bAgent.agentId);
    expect(
      call.phoneNumber.sipPhoneNumber === bNumber.sipPhoneNumber &&
        call.phoneNumber.inboundAgentId === bNumber.inboundAgentId,
    ).toBe(false);
    expect((await c.list(a.workspaceId, "agents")).map((x) => x.agentId)).toEqual([call.agent.agentId]);
    expect(await c.list(b.workspaceId, "agents")).toEqual([bAgent]);
    const run = await c.filled(a.workspaceId, "testRuns");
    expect((await c.list(a.workspaceId, "batchRuns")).map((x) => x.batchId)).toEqual([run.batchId]);
    expect(await c.list(b.workspaceId, "batchRuns")).toEqual([]);
  });
}

function outcomeCases(c: Client) {
  it("ends a scheduled call not_connected with dial_busy when its script says", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const call = await c.filled(workspaceId, "calls", {
      status: "scheduled",
      outcome: { status: "not_connected", terminationReason: "dial_busy", afterSeconds: 20 },
    });
    expect(call.status).toBe("scheduled");
    expect(call).not.toHaveProperty("outcome");
    await c.advance(workspaceId, 19);
    expect((await c.api(apiKey, `/v1/calls/${call.callId}`)).body.status).toBe("scheduled");
    await c.advance(workspaceId, 2);
    const done = (await c.api(apiKey, `/v1/calls/${call.callId}`)).body;
    expect(done).toMatchObject({ status: "not_connected", terminationReason: "dial_busy", startTime: null });
    expect(Date.parse(done.updatedAt) - Date.parse(call.createdAt)).toBe(20_000);
  });

  it("connects, talks and ends as scripted, with the webhooks and QA issues of any call", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const agent = await c.filled(workspaceId, "agents");
    await c.filled(workspaceId, "webhooks", {
      agentId: agent.agentId,
      active: true,
      events: "conversation_started,conversation_ended",
    });
    await c.filled(workspaceId, "qaRules", { agents: [{ agentId: agent.agentId }] });
    const outcome = {
      status: "ended",
      terminationReason: "user_ended_call",
      connectAfterSeconds: 5,
      durationSeconds: 60,
    };
    const call = await c.filled(workspaceId, "calls", { callType: "web", agent: { agentId: agent.agentId }, outcome });
    await c.advance(workspaceId, 6);
    const live = (await c.api(apiKey, `/v1/calls/${call.callId}`)).body;
    expect(live.status).toBe("in_progress");
    expect(Date.parse(live.startTime) - Date.parse(call.createdAt)).toBe(5_000);
    await c.advance(workspaceId, 60);
    const done = (await c.api(apiKey, `/v1/calls/${call.callId}`)).body;
    expect(done).toMatchObject({
      status: "ended",
      terminationReason: "user_ended_call",
      duration: 60,
      startTime: live.startTime,
    });
    const events = (await c.deliveries(workspaceId))
      .filter((d) => JSON.parse(d.payload).data?.callId === call.callId)
      .map((d) => d.event);
    expect(events.sort()).toEqual(["conversation_ended", "conversation_started"]);
    expect((await c.list(workspaceId, "qaIssues")).map((i) => i.conversationId)).toEqual([call.callId]);
  });

  it("ends a call in progress with the scripted error", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const call = await c.filled(workspaceId, "calls", {
      status: "in_progress",
      outcome: { status: "error", terminationReason: "error_llm", afterSeconds: 30 },
    });
    await c.advance(workspaceId, 29);
    expect((await c.api(apiKey, `/v1/calls/${call.callId}`)).body.status).toBe("in_progress");
    await c.advance(workspaceId, 1);
    const done = (await c.api(apiKey, `/v1/calls/${call.callId}`)).body;
    expect(done).toMatchObject({ status: "error", terminationReason: "error_llm", startTime: call.startTime });
    expect(done.endTime).not.toBeNull();
  });

  it("refuses an outcome the lifecycle does not allow with 400 naming the field, and stores nothing", async () => {
    const { workspaceId } = await c.workspace();
    const wrongReason = await c.fill(workspaceId, "calls", {
      status: "scheduled",
      outcome: { status: "ended", terminationReason: "dial_busy" },
    });
    expect(wrongReason.status).toBe(400);
    expect(wrongReason.body).toMatchObject({
      status: 400,
      error: "Bad Request",
      path: `/__mock/workspaces/${workspaceId}/calls`,
    });
    expect(Object.keys(wrongReason.body.validationErrors)).toEqual(["outcome.terminationReason"]);
    const wrongStatus = await c.fill(workspaceId, "calls", {
      status: "in_progress",
      outcome: { status: "not_connected" },
    });
    expect(Object.keys(wrongStatus.body.validationErrors)).toEqual(["outcome.status"]);
    const final = await c.fill(workspaceId, "calls", { status: "ended", outcome: { status: "ended" } });
    expect(Object.keys(final.body.validationErrors)).toEqual(["outcome"]);
    const never = await c.fill(workspaceId, "calls", {
      outcome: { status: "not_connected", connectAfterSeconds: 3, extra: 1 },
    });
    expect(Object.keys(never.body.validationErrors).sort()).toEqual(["outcome.connectAfterSeconds", "outcome.extra"]);
    // Refused after its agent was made (the given name is no string): the agent goes too.
    const badName = await c.fill(workspaceId, "calls", { agent: { name: 42 } });
    expect(badName.status).toBe(400);
    for (const collection of ["calls", "agents", "phoneNumbers"])
      expect(await c.list(workspaceId, collection), collection).toEqual([]);
  });
}

describe("the standalone server", () => {
  let running: RunningMock;
  const c = client(() => running.url);
  beforeAll(async () => void (running = await startMock({ host: "127.0.0.1", port: 0, log: () => undefined })));
  afterAll(async () => await running?.close());

  fillCases(c);
  outcomeCases(c);

  it("keeps a call's script across a restart from saved state", async () => {
    const { workspaceId, apiKey } = await c.workspace();
    const call = await c.filled(workspaceId, "calls", {
      status: "scheduled",
      outcome: { status: "error", terminationReason: "error_telephony", afterSeconds: 40 },
    });
    await c.advance(workspaceId, 10);
    const { workspaces, clock } = running.mock.services;
    const savedAt = clock.iso();
    const state = JSON.parse(serializeState(workspaces, savedAt));
    const restarted = await startMock({
      clock: { mode: "virtual", start: new Date(savedAt) },
      restore: state,
      log: () => undefined,
    });
    try {
      const r = client(() => restarted.url);
      await r.advance(workspaceId, 29);
      expect((await r.api(apiKey, `/v1/calls/${call.callId}`)).body.status).toBe("scheduled");
      await r.advance(workspaceId, 1);
      expect((await r.api(apiKey, `/v1/calls/${call.callId}`)).body).toMatchObject({
        status: "error",
        terminationReason: "error_telephony",
        startTime: null,
      });
    } finally {
      await restarted.close();
    }
  });
});

describe("the MSW handlers", () => {
  const baseUrl = "http://fills.test";
  const { handlers, mock } = createMockHandlers({ baseUrl, clock: "virtual", log: () => undefined });
  const server = setupServer(...handlers);
  const c = client(() => baseUrl);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(async () => {
    server.close();
    await mock.close();
  });

  fillCases(c);
  outcomeCases(c);
});
