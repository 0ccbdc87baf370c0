/** E6-E7 batch runs, E10-E11 calls, E12-E13 QA rules, E14-E15 phone numbers, E16 chat. */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();
const json = { "Content-Type": "application/json" };

async function anyRecord<T>(collection: string): Promise<T> {
  return (await (await t.raw(`/__mock/workspaces/default/${collection}`)).json())[0] as T;
}

describe("batch runs", () => {
  it("creates a batch (201, four fields) whose runs complete on the clock with consistent counters", async () => {
    const testCase = await anyRecord<{ testCaseId: string; agent: { agentId: string }; attempt: number }>("testCases");
    const { data, response } = await t.api.POST("/v1/batch-runs", {
      body: { agentId: testCase.agent.agentId, testCases: [testCase.testCaseId] },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(data!).sort()).toEqual(["agent", "batchId", "createdDate", "workspaceId"]);
    const path = { params: { path: { batchId: data!.batchId } } };
    const running = (await t.api.GET("/v1/batch-runs/{batchId}", path)).data!;
    expect(running.totalAttempts).toBe(0);
    expect(running.testCases.map((c) => c.testCaseId)).toEqual([testCase.testCaseId]);
    const runs = (await t.api.GET("/v1/test-runs", { params: { query: { batchId: data!.batchId } } })).data!;
    expect(runs.totalCount).toBe(testCase.attempt ?? 1);
    expect(runs.data.every((r) => r.completedDate === null && r.isSuccessful === null)).toBe(true);
    await t.advance(120);
    const done = (await t.api.GET("/v1/batch-runs/{batchId}", path)).data!;
    expect(done.totalAttempts).toBe(runs.totalCount);
    expect(done.successfulAttempts + done.failedAttempts).toBe(done.totalAttempts);
    const finished = (await t.api.GET("/v1/test-runs", { params: { query: { batchId: data!.batchId } } })).data!;
    for (const run of finished.data) {
      expect(run.completedDate).toMatch(/Z$/);
      expect(typeof run.isSuccessful).toBe("boolean");
      expect(run.remarks).toBeTruthy();
      expect(run.conversation.length).toBeGreaterThan(1);
    }
    expect(finished.data.filter((r) => r.isSuccessful).length).toBe(done.successfulAttempts);
  });

  it("answers an unknown agent or test case with 404, an empty list with 400", async () => {
    const testCase = await anyRecord<{ testCaseId: string; agent: { agentId: string } }>("testCases");
    const unknownAgent = await t.raw("/v1/batch-runs", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agentId: "nope", testCases: [testCase.testCaseId] }),
    });
    expect(unknownAgent.status).toBe(404);
    const unknownCase = await t.raw("/v1/batch-runs", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agentId: testCase.agent.agentId, testCases: ["nope"] }),
    });
    expect(unknownCase.status).toBe(404);
    const empty = await t.raw("/v1/batch-runs", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agentId: testCase.agent.agentId, testCases: [] }),
    });
    expect(empty.status).toBe(400);
    expect((await empty.json()).validationErrors).toHaveProperty("testCases");
    expect((await t.raw("/v1/batch-runs/nope")).status).toBe(404);
  });

  it("answers a batch asked for with another agent with 404", async () => {
    const batch = await anyRecord<{ batchId: string; agent: { agentId: string } }>("batchRuns");
    expect((await t.raw(`/v1/batch-runs/${batch.batchId}?agentId=${batch.agent.agentId}`)).status).toBe(200);
    expect((await t.raw(`/v1/batch-runs/${batch.batchId}?agentId=someone-else`)).status).toBe(404);
  });
});

describe("calls", () => {
  it("gets a call by id and answers an unknown id with 404", async () => {
    const call = await anyRecord<{ callId: string }>("calls");
    const res = await t.raw(`/v1/calls/${call.callId}`);
    expect(res.status).toBe(200);
    expect((await res.json()).callId).toBe(call.callId);
    const missing = await t.raw("/v1/calls/does-not-exist");
    expect(missing.status).toBe(404);
    expectErrorBody(await missing.json(), 404, "/v1/calls/does-not-exist");
  });

  it("moves a scheduled call through its states on the clock, coherently", async () => {
    const { data } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId: "default", collection: "calls" } },
      body: { status: "scheduled", callType: "outbound" },
    });
    const callId = (data as { callId: string }).callId;
    await t.advance(600);
    const call = (await t.api.GET("/v1/calls/{callId}", { params: { path: { callId } } })).data!;
    expect(["ended", "not_connected", "error"]).toContain(call.status);
    expect(call.terminationReason).not.toBeNull();
    if (call.status === "not_connected")
      expect([call.startTime, call.endTime, call.duration, call.recordingUrl]).toEqual([null, null, null, null]);
    if (call.startTime && call.endTime)
      expect(call.duration).toBe(Math.round((Date.parse(call.endTime) - Date.parse(call.startTime)) / 1000));
  });
});

describe("QA rules", () => {
  it("gets a rule, deletes it with 204 and no body, then answers 404, and the rule yields no new issues", async () => {
    const rule = await anyRecord<{ qaRuleId: string; agents: { agentId: string }[] }>("qaRules");
    expect((await t.raw(`/v1/qa-rules/${rule.qaRuleId}`)).status).toBe(200);
    const deleted = await t.raw(`/v1/qa-rules/${rule.qaRuleId}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await t.raw(`/v1/qa-rules/${rule.qaRuleId}`)).status).toBe(404);
    expect((await t.raw(`/v1/qa-rules/${rule.qaRuleId}`, { method: "DELETE" })).status).toBe(404);
    const issuesBefore = (await (await t.raw("/__mock/workspaces/default/qaIssues")).json()).filter(
      (i: { qaRuleId: string }) => i.qaRuleId === rule.qaRuleId,
    ).length;
    await t.api.POST("/v1/chat", { body: { agentId: rule.agents[0].agentId, conversation: "Hello" } });
    const issuesAfter = (await (await t.raw("/__mock/workspaces/default/qaIssues")).json()).filter(
      (i: { qaRuleId: string }) => i.qaRuleId === rule.qaRuleId,
    ).length;
    expect(issuesAfter).toBe(issuesBefore);
  });
});

describe("phone numbers", () => {
  it("updates by E.164 path, keeps the trunk password out of every response", async () => {
    const phone = await anyRecord<{ sipPhoneNumber: string }>("phoneNumbers");
    const agent = await anyRecord<{ agentId: string }>("agents");
    const path = `/v1/phone-number/${encodeURIComponent(phone.sipPhoneNumber)}`;
    const body = {
      friendlyName: "Support",
      inboundAgentId: agent.agentId,
      terminationSipUri: "sip:t.example.com",
      trunkPassword: "pw-SECRET-9",
      trunkUsername: "u",
    };
    const res = await t.raw(path, { method: "PATCH", headers: json, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/SECRET|trunkPassword|trunkUsername/);
    const updated = JSON.parse(text);
    expect([updated.friendlyName, updated.inboundAgentId, updated.terminationSipURI]).toEqual([
      "Support",
      agent.agentId,
      "sip:t.example.com",
    ]);
    const listed = await (await t.raw("/v1/phone-number?size=100")).text();
    expect(listed).not.toMatch(/SECRET/);
    expect(JSON.stringify(await (await t.raw("/__mock/workspaces/default/phoneNumbers")).json())).not.toMatch(/SECRET/);
  });

  it("rejects a non-E.164 path with 400 and an unknown number with 404", async () => {
    const bad = await t.raw("/v1/phone-number/4155550123", { method: "PATCH", headers: json, body: "{}" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).validationErrors).toHaveProperty("phoneNumber");
    expect(
      (await t.raw("/v1/phone-number/%2B19999999999", { method: "PATCH", headers: json, body: "{}" })).status,
    ).toBe(404);
  });
});

describe("chat", () => {
  it("answers in the 2.14 shape, following the agent and substituting variables", async () => {
    const { data: created } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId: "default", collection: "agents" } },
      body: {
        welcomeMessageType: "static",
        welcomeMessage: "Hi {{customerName}}!",
        instructions: "You are a florist.",
        agentSettings: { aiStartsConversation: true },
      },
    });
    const agentId = (created as { agentId: string }).agentId;
    const { data, response } = await t.api.POST("/v1/chat", {
      body: { agentId, conversation: "Do you sell tulips?", variables: { customerName: "Dana" } },
    });
    expect(response.status).toBe(200);
    expect(data!.status).toBe("completed");
    expect(data!.response[0].content[0]).toBe("Hi Dana!");
    expect(data!.response[1].content[0]).toContain("I am a florist.");
    const again = await t.api.POST("/v1/chat", {
      body: { agentId, conversation: "Do you sell tulips?", variables: { customerName: "Eve" } },
    });
    expect(again.data!.id).not.toBe(data!.id);
    expect(again.data!.response.map((r) => r.content[0])).toEqual(["Hi Eve!", data!.response[1].content[0]]);
  });

  it("keeps a conversation whose history is resent each turn in one chat and one call (x-assumption of createChat)", async () => {
    const { data: created } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId: "default", collection: "agents" } },
      body: {
        welcomeMessageType: "static",
        welcomeMessage: "Hello!",
        instructions: "You are a baker.",
        agentSettings: { aiStartsConversation: true, endCallOnSilenceDuration: 5 },
      },
    });
    const agentId = (created as { agentId: string }).agentId;
    const ask = (conversation: string, variables: Record<string, string> = { customerName: "Dana" }) =>
      t.api.POST("/v1/chat", { body: { agentId, conversation, variables } }).then((r) => r.data!);
    const first = await ask("Do you bake rye bread?");
    await t.advance(60);
    const history = `User: Do you bake rye bread?\nAgent: ${first.response.map((r) => r.content[0]).join(" ")}\nUser: Can I order two loaves?`;
    const second = await ask(history);
    expect(second.id).toBe(first.id);
    expect(second.createdAt).toBe(first.createdAt);
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
    expect(second.response.map((r) => r.content[0])).toEqual([expect.stringContaining("Can I order two loaves?")]);
    // Other variables, or a text that does not contain the last one, is another conversation.
    expect((await ask(history, { customerName: "Eve" })).id).not.toBe(first.id);
    expect((await ask("Do you sell cakes?")).id).not.toBe(first.id);

    const call = async () => (await t.api.GET("/v1/calls/{callId}", { params: { path: { callId: first.id } } })).data!;
    expect(await call()).toMatchObject({ callType: "chat", status: "in_progress", transcript: null, endTime: null });
    await t.advance(4 * 60);
    expect((await call()).status).toBe("in_progress");
    await t.advance(60);
    const ended = await call();
    expect(ended).toMatchObject({ status: "ended", terminationReason: "silence_timed_out", duration: 6 * 60 });
    expect(ended.transcript!.split("\n")).toEqual([
      "User: Do you bake rye bread?",
      ...first.response.map((r) => `Agent: ${r.content[0]}`),
      "User: Can I order two loaves?",
      ...second.response.map((r) => `Agent: ${r.content[0]}`),
    ]);
    // Once ended, the same history starts a new conversation.
    expect((await ask(`${history}\nUser: Are you still there?`)).id).not.toBe(first.id);
  });

  it("needs agentId (400) of an existing agent (404)", async () => {
    const missing = await t.raw("/v1/chat", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ conversation: "hi" }),
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).validationErrors).toHaveProperty("agentId");
    const unknown = await t.raw("/v1/chat", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agentId: "nope" }),
    });
    expect(unknown.status).toBe(404);
  });
});
