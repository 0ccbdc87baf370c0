/**
 * The seed and the builders against the contract: every record validates against its spec schema,
 * calls obey the lifecycle rules, references point at records that exist, and the same seed gives
 * byte-identical data.
 */
import { readFileSync } from "node:fs";
import { describe, it, expect } from "vitest";
import { createOpenApiAjv } from "../core/openapi-ajv.js";
import { Clock } from "../core/clock.js";
import { Workspace } from "../store/workspace.js";
import { SCHEMA_OF } from "../store/record-checks.js";
import { collectionNames, type Call, type CallStatus, type CollectionName } from "../store/records.js";
import { buildRecord, createBuildContext, seedWorkspace, settleCall, terminationReasonsFor } from "./index.js";
import { ALL_TERMINATION_REASONS, CALL_STATUSES, NEXT_STATUSES } from "./call-lifecycle.js";

const NOW = new Date("2026-11-01T12:00:00.000Z");
const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
const ajv = createOpenApiAjv();
ajv.addSchema(doc, "openapi.json");

function schemaErrors(collection: CollectionName, record: unknown): string | null {
  const name = SCHEMA_OF[collection];
  if (!name) return null;
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  return validate(record) ? null : ajv.errorsText(validate.errors);
}

function workspace(seed: number, empty = false): Workspace {
  const ws = new Workspace(
    { workspaceId: "t", apiKey: "k", seed, empty, readOnly: false },
    new Clock({ mode: "virtual", start: NOW }),
  );
  if (!empty) seedWorkspace(ws, NOW);
  return ws;
}

function snapshot(ws: Workspace): string {
  const collections = Object.fromEntries(collectionNames.map((n) => [n, ws.collections[n].all()]));
  return JSON.stringify({ collections, credentials: [...ws.credentials.entries()] });
}

const t = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

/** Every call rule of the kit; an empty list means coherent. */
function callProblems(call: Call, now = NOW): string[] {
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${call.callId} (${call.status}): ${what}`);
  const connected = call.startTime !== null;
  const final = call.status === "ended" || call.status === "not_connected" || call.status === "error";
  if (call.status === "scheduled" || call.status === "not_connected") {
    if (connected) fail("startTime set although never connected");
  }
  if (call.status === "in_progress" || call.status === "ended") {
    if (!connected) fail("startTime missing");
  }
  if (call.status === "ended" || (call.status === "error" && connected)) {
    if (call.endTime === null) fail("endTime missing");
    if (call.duration === null) fail("duration missing");
  } else {
    if (call.endTime !== null) fail("endTime set");
    if (call.duration !== null) fail("duration set");
  }
  if (call.endTime && call.startTime && call.duration !== Math.round((t(call.endTime) - t(call.startTime)) / 1000))
    fail("duration mismatch");
  if (final) {
    if (!call.terminationReason || !terminationReasonsFor(call.status).includes(call.terminationReason))
      fail(`reason ${call.terminationReason}`);
  } else if (call.terminationReason !== null) fail("reason before final");
  if (call.recordingUrl !== null && !(call.status === "ended" && connected))
    fail("recordingUrl without an ended connected call");
  if (call.status === "ended" ? typeof call.transcript !== "string" : call.transcript !== null) fail("transcript");
  if (
    (call.callType === "web" || call.callType === "chat") !==
    (call.phoneNumber === null || call.phoneNumber === undefined)
  )
    fail("phoneNumber vs callType");
  if (call.campaign && call.callType !== "outbound") fail("campaign on a non-outbound call");
  if (call.dynamicVariables && Object.values(call.dynamicVariables).some((v) => typeof v !== "string"))
    fail("dynamicVariables not strings");
  const stamps = [call.createdAt, call.startTime, call.endTime].filter((s): s is string => s !== null).map(t);
  for (let i = 1; i < stamps.length; i++) if (stamps[i] < stamps[i - 1]) fail("timestamps out of order");
  if (Math.max(...stamps) > t(call.updatedAt)) fail("updatedAt before another timestamp");
  if (t(call.updatedAt) > now.getTime()) fail("updatedAt in the future");
  for (const s of [call.createdAt, call.updatedAt, call.startTime, call.endTime]) {
    if (s !== null && s !== new Date(s).toISOString()) fail(`timestamp format ${s}`);
  }
  return problems;
}

describe("seedWorkspace", () => {
  const ws = workspace(1);

  it("creates every collection", () => {
    const counts = ws.counts();
    for (const name of collectionNames) expect(counts[name], name).toBeGreaterThan(0);
    expect(counts.calls).toBeGreaterThanOrEqual(55);
  });

  it("validates every record against its spec schema", () => {
    for (const name of collectionNames) {
      for (const record of ws.collections[name].all())
        expect(schemaErrors(name, record), `${name} ${JSON.stringify(record).slice(0, 200)}`).toBeNull();
    }
  });

  it("gives the records without a spec schema their documented shape", () => {
    for (const issue of ws.collections.qaIssues.all()) {
      const rule = ws.collections.qaRules.get(issue.qaRuleId);
      expect(rule?.ruleName).toBe(issue.ruleName);
      expect(rule?.agents.some((a) => a.agentId === issue.agentId)).toBe(true);
      expect(ws.collections.calls.get(issue.conversationId)?.endTime).toBeTruthy();
      expect(["Success", "Fail"]).toContain(issue.status);
      expect(t(issue.createdAt)).toBeGreaterThanOrEqual(t(ws.collections.calls.get(issue.conversationId)!.endTime));
    }
    for (const m of ws.collections.mockToolData.all()) {
      expect(m.statusCode).toBeGreaterThanOrEqual(100);
      expect(() => JSON.parse(m.responseBody)).not.toThrow();
    }
    for (const k of ws.collections.apiKeys.all()) expect(["full", "read_only"]).toContain(k.scope);
  });

  it("keeps every call coherent and covers every type, status and termination reason", () => {
    const calls = ws.collections.calls.all();
    expect(calls.flatMap((c) => callProblems(c))).toEqual([]);
    expect(new Set(calls.map((c) => c.terminationReason).filter(Boolean))).toEqual(new Set(ALL_TERMINATION_REASONS));
    expect(new Set(calls.map((c) => c.status))).toEqual(new Set(CALL_STATUSES));
    expect(new Set(calls.map((c) => c.callType))).toEqual(new Set(["inbound", "outbound", "web", "chat"]));
    expect(calls.some((c) => c.status === "error" && c.startTime !== null)).toBe(true);
    expect(calls.some((c) => c.campaign)).toBe(true);
    for (const call of calls) {
      const agent = ws.collections.agents.get(call.agent.agentId);
      expect(agent?.agentName).toBe(call.agent.name);
      if (call.phoneNumber) expect(ws.collections.phoneNumbers.has(call.phoneNumber.sipPhoneNumber)).toBe(true);
    }
    // The live calls are recent; the finished ones spread over the last 30 days.
    for (const call of calls.filter((c) => c.status === "scheduled" || c.status === "in_progress")) {
      expect(NOW.getTime() - t(call.createdAt)).toBeLessThan(30 * 60_000);
    }
    expect(NOW.getTime() - t(calls[0].createdAt)).toBeGreaterThan(20 * 86_400_000);
  });

  it("creates each collection oldest first", () => {
    const dated: [CollectionName, (r: never) => string][] = [
      ["calls", (r: Call) => r.createdAt],
      ["integrations", (r: { createdAt: string }) => r.createdAt],
      ["knowledgeBases", (r: { createdAt: string }) => r.createdAt],
      ["mockToolData", (r: { createdAt: string }) => r.createdAt],
      ["qaIssues", (r: { createdAt: string }) => r.createdAt],
      ["chats", (r: { createdAt: string }) => r.createdAt],
      ["apiKeys", (r: { createdAt: string }) => r.createdAt],
      ["batchRuns", (r: { createdDate: string }) => r.createdDate],
      ["testRuns", (r: { createdDate: string }) => r.createdDate],
    ];
    for (const [name, stamp] of dated) {
      const stamps = (ws.collections[name].all() as never[]).map((r) => t(stamp(r)));
      expect(
        [...stamps].sort((a, b) => a - b),
        name,
      ).toEqual(stamps);
      expect(Math.max(...stamps), name).toBeLessThanOrEqual(NOW.getTime());
    }
  });

  it("covers providers and active states of phone numbers", () => {
    const numbers = ws.collections.phoneNumbers.all();
    expect(new Set(numbers.map((n) => n.provider))).toEqual(new Set(["<carrier_a>", "<carrier_b>", "byo"]));
    expect(new Set(numbers.map((n) => n.active))).toEqual(new Set([true, false]));
    for (const n of numbers) {
      expect(n.sipPhoneNumber).toMatch(/^\+[1-9][0-9]{1,14}$/);
      expect(n.terminationSipURI).toMatch(/^sip:trunk-[a-z0-9]{2}\.example\.com$/);
      for (const id of [n.inboundAgentId, n.outboundAgentId]) if (id) expect(ws.collections.agents.has(id)).toBe(true);
    }
  });

  it("keeps webhooks, agents, integrations and knowledge bases consistent", () => {
    const hooks = ws.collections.webhooks.all();
    expect(new Set(hooks.map((h) => h.active))).toEqual(new Set([true, false]));
    for (const h of hooks) {
      expect(ws.collections.agents.has(h.agentId)).toBe(true);
      expect(h.workspaceId).toBe("t");
      expect(h.secret).toMatch(/^whsec_[0-9a-f]{32}$/);
      expect(new URL(h.url).hostname).toBe("hooks.example.com");
      expect(["conversation_started", "conversation_started,conversation_ended"]).toContain(h.events);
    }
    for (const a of ws.collections.agents.all()) {
      expect(a.tools.some((tool) => tool.type === "voice_transfer_call" && tool.transferSettings)).toBe(true);
      const own = hooks.filter((h) => h.agentId === a.agentId);
      expect(a.agentSettings.webhooks?.map((w) => w.webhookId)).toEqual(own.map((h) => h.webhookId));
      for (const w of a.agentSettings.webhooks ?? []) expect(Array.isArray(w.events)).toBe(true);
    }
    const integrations = ws.collections.integrations.all();
    expect(integrations.some((i) => i.authentication === null)).toBe(true);
    for (const i of integrations) {
      expect(ws.credentials.has(i.integrationId)).toBe(i.authentication !== null);
      if (i.authentication)
        expect((ws.credentials.get(i.integrationId) as { authType: string }).authType).toBe(i.authentication.authType);
      expect(i.tools.length).toBeLessThanOrEqual(3);
      for (const tool of i.tools) expect(tool.integrationId).toBe(i.integrationId);
    }
    // No secret of the credentials store leaks into a record.
    const json = JSON.stringify(integrations);
    for (const cred of ws.credentials.values()) {
      const c = cred as { token?: string; password?: string; apiKey?: { value: string } };
      for (const secret of [c.token, c.password, c.apiKey?.value]) if (secret) expect(json).not.toContain(secret);
    }
    const order = ["text", "url", "file"];
    const fileOrder = [".pdf", ".txt", ".html", ".md", ".docx"];
    for (const kb of ws.collections.knowledgeBases.all()) {
      expect(kb.kbId).toMatch(/^kb_[a-z0-9]{20}$/);
      const ranks = kb.files.map((f) => order.indexOf(f.type));
      expect(ranks).not.toContain(-1);
      expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
      const fileRanks = kb.files
        .filter((f) => f.type === "file")
        .map((f) => fileOrder.indexOf(f.content.slice(f.content.lastIndexOf("."))));
      expect(fileRanks).not.toContain(-1);
      expect([...fileRanks].sort((a, b) => a - b)).toEqual(fileRanks);
    }
  });

  it("keeps batch counters equal to the completed test runs", () => {
    const runs = ws.collections.testRuns.all();
    expect(new Set(runs.map((r) => r.jobId)).size).toBe(runs.length);
    for (const batch of ws.collections.batchRuns.all()) {
      const own = runs.filter((r) => r.batchId === batch.batchId);
      const done = own.filter((r) => r.completedDate !== null);
      expect(batch.totalAttempts).toBe(done.length);
      expect(batch.successfulAttempts + batch.failedAttempts).toBe(batch.totalAttempts);
      expect(batch.successfulAttempts).toBe(done.filter((r) => r.isSuccessful).length);
      for (const r of own) {
        expect(r.agent).toEqual(batch.agent);
        expect(batch.testCases.map((c) => c.testCaseId)).toContain(r.testCase.testCaseId);
        expect(t(r.createdDate)).toBeGreaterThanOrEqual(t(batch.createdDate));
        expect(r.conversation.length).toBeGreaterThan(0);
      }
    }
    for (const tc of ws.collections.testCases.all()) {
      for (const ref of tc.mockToolData ?? [])
        expect(ws.collections.mockToolData.get(ref.mockToolDataId)?.name).toBe(ref.name);
    }
  });

  it("is byte-identical for the same seed and differs for another", () => {
    expect(snapshot(workspace(1))).toBe(snapshot(ws));
    expect(snapshot(workspace(2))).not.toBe(snapshot(ws));
    // Another workspace with the same seed shares no ids (isolation is checked by id).
    const other = new Workspace(
      { workspaceId: "u", apiKey: "k2", seed: 1, empty: false, readOnly: false },
      new Clock({ mode: "virtual", start: NOW }),
    );
    seedWorkspace(other, NOW);
    const ids = new Set(ws.collections.calls.all().map((c) => c.callId));
    expect(other.collections.calls.all().some((c) => ids.has(c.callId))).toBe(false);
  });

  it("seeds a workspace well under 300 ms", () => {
    workspace(7);
    const start = performance.now();
    for (let i = 0; i < 5; i++) workspace(100 + i);
    expect((performance.now() - start) / 5).toBeLessThan(100);
  });
});

describe("buildRecord", () => {
  it("fills a call given only a status coherently", () => {
    for (const ws of [workspace(3), workspace(4, true)]) {
      const ctx = createBuildContext(ws, NOW);
      for (const status of CALL_STATUSES) {
        for (let i = 0; i < 25; i++) {
          const call = buildRecord("calls", ctx, { status }) as Call;
          expect(call.status).toBe(status);
          expect(schemaErrors("calls", call)).toBeNull();
          expect(callProblems(call)).toEqual([]);
        }
      }
      const ended = buildRecord("calls", ctx, { status: "ended" }) as Call;
      expect(ended.startTime && ended.endTime && ended.duration !== null && ended.terminationReason).toBeTruthy();
    }
  });

  it("honours what is given", () => {
    const ws = workspace(5);
    const ctx = createBuildContext(ws, NOW);
    const agent = ws.collections.agents.all()[2];
    const call = buildRecord("calls", ctx, {
      callId: "given-id",
      agent: { agentId: agent.agentId },
      callType: "web",
      status: "ended",
    }) as Call;
    expect(call.callId).toBe("given-id");
    expect(call.agent).toEqual({ name: agent.agentName, agentId: agent.agentId, status: "Live" });
    expect(call.phoneNumber).toBeNull();
    const busy = buildRecord("calls", ctx, { terminationReason: "dial_busy" }) as Call;
    expect(busy.status).toBe("not_connected");
    const timed = buildRecord("calls", ctx, {
      status: "ended",
      startTime: "2026-10-31T10:00:00.000Z",
      duration: 125,
    }) as Call;
    expect(timed.endTime).toBe("2026-10-31T10:02:05.000Z");
    expect(callProblems(timed)).toEqual([]);
    const unrecorded = buildRecord("calls", ctx, { status: "ended", recordingUrl: null }) as Call;
    expect(unrecorded.recordingUrl).toBeNull();
    const wrong = buildRecord("calls", ctx, { status: "ended", terminationReason: "dial_busy" }) as Call;
    expect(callProblems(wrong)).toEqual([]);
  });

  it("builds every collection into a schema-valid record, in seeded and empty workspaces", () => {
    for (const ws of [workspace(6), workspace(8, true)]) {
      const ctx = createBuildContext(ws, NOW);
      for (const name of collectionNames) {
        for (let i = 0; i < 5; i++) {
          const record = buildRecord(name, ctx, {});
          expect(schemaErrors(name, record), `${name} ${JSON.stringify(record).slice(0, 300)}`).toBeNull();
          ws.collections[name].create(record as never);
        }
      }
      for (const i of ws.collections.integrations.all())
        expect(ws.credentials.has(i.integrationId)).toBe(i.authentication != null);
    }
  });

  it("is deterministic for a workspace's random sequence", () => {
    const a = createBuildContext(workspace(9, true), NOW);
    const b = createBuildContext(workspace(9, true), NOW);
    expect(JSON.stringify(buildRecord("agents", a, {}))).toBe(JSON.stringify(buildRecord("agents", b, {})));
  });

  it("builds running and completed test runs", () => {
    const ws = workspace(10);
    const ctx = createBuildContext(ws, NOW);
    const running = buildRecord("testRuns", ctx, { completedDate: null });
    expect(running).toMatchObject({ completedDate: null, isSuccessful: null, remarks: null, conversation: [] });
    const done = buildRecord("testRuns", ctx, {});
    expect(
      done.completedDate && done.remarks && typeof done.isSuccessful === "boolean" && done.conversation.length > 0,
    ).toBeTruthy();
    expect(ws.collections.batchRuns.has(done.batchId)).toBe(true);
  });
});

describe("settleCall", () => {
  const ws = workspace(11);
  const ctx = createBuildContext(ws, NOW);
  const rand = () => ctx.faker.number.float();
  const base = Date.parse("2026-10-31T09:00:00.000Z");

  it("keeps a call coherent along every transition", () => {
    for (let i = 0; i < 40; i++) {
      const scheduled = buildRecord("calls", ctx, {
        status: "scheduled",
        createdAt: new Date(base).toISOString(),
      }) as Call;
      expect(callProblems(scheduled)).toEqual([]);
      for (const next of NEXT_STATUSES.scheduled) {
        const moved = settleCall(scheduled, next, new Date(base + 12_345), rand);
        expect(callProblems(moved)).toEqual([]);
        if (next === "in_progress") {
          expect(moved.startTime).toBe(new Date(base + 12_345).toISOString());
          for (const last of NEXT_STATUSES.in_progress) {
            const done = settleCall(moved, last, new Date(base + 12_345 + 90_600), rand);
            expect(callProblems(done)).toEqual([]);
            expect(done.startTime).toBe(moved.startTime);
            expect(done.duration).toBe(91);
            expect(done.updatedAt).toBe(done.endTime);
          }
        } else {
          expect(moved.startTime).toBeNull();
        }
      }
    }
  });

  it("maps statuses to their termination reasons", () => {
    const all = (["ended", "not_connected", "error"] as CallStatus[]).flatMap((s) => [...terminationReasonsFor(s)]);
    expect(all.sort()).toEqual([...ALL_TERMINATION_REASONS].sort());
    expect(terminationReasonsFor("scheduled")).toEqual([]);
    expect(terminationReasonsFor("in_progress")).toEqual([]);
  });

  it("never dates a settled call before its creation or start", () => {
    const call = buildRecord("calls", ctx, { status: "in_progress", createdAt: new Date(base).toISOString() }) as Call;
    const early = settleCall(call, "ended", new Date(base - 60_000), rand);
    expect(callProblems(early)).toEqual([]);
    expect(early.duration).toBe(0);
  });
});
