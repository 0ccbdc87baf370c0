/**
 * The shared store (--store redis://) when a process dies (SIGKILL): every write it acknowledged is
 * there and none is there in part, and the work it had scheduled (test runs completing, calls moving
 * on, QA issues) is done by the process left, each piece exactly once. On a Redis Cluster, with writes
 * over every master: cluster-crash.test.ts.
 */
import { describe, expect, it } from "vitest";
import { mockOn, redisForTest, send, stopAfterEach, until, workspaceWithTestCases } from "./support.js";

stopAfterEach();

interface BatchRun {
  batchId: string;
  successfulAttempts: number;
  failedAttempts: number;
  totalAttempts: number;
}
interface TestRun {
  batchId: string;
  jobId: string;
  completedDate: string | null;
  isSuccessful: boolean | null;
}

describe("a process killed while it writes", () => {
  it("leaves every write it acknowledged, whole, and no write in part", async () => {
    const redis = await redisForTest();
    const a = await mockOn(redis, "--clock", "virtual");
    const b = await mockOn(redis, "--clock", "virtual");
    const { workspaceId, apiKey, agentId, testCaseIds } = await workspaceWithTestCases(a, [2, 3]);
    const runsPerBatch = 5;

    // 200 batch runs (a batch, its 5 test runs and their tasks in one write) and 100 integrations, all at once.
    const writes = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 2
        ? { kind: "integration" as const, path: "/v1/integrations", body: { name: `integration ${i}` } }
        : { kind: "batch" as const, path: "/v1/batch-runs", body: { agentId, testCases: testCaseIds } },
    );
    const acknowledged = { batch: [] as string[], integration: [] as string[] };
    let failed = 0;
    const KILL_AFTER = 60;
    await Promise.all(
      writes.map(async (write) => {
        try {
          const reply = await send(a, "POST", write.path, write.body, apiKey);
          if (reply.status !== 201)
            throw new Error(`${write.path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
          acknowledged[write.kind].push(write.kind === "batch" ? reply.body.batchId : reply.body.integrationId);
          if (acknowledged.batch.length + acknowledged.integration.length === KILL_AFTER) a.child.kill("SIGKILL");
        } catch (error) {
          // Only the kill may stop a write: a connection torn down, not an answer.
          if (error instanceof Error && / answered /.test(error.message)) throw error;
          failed++;
        }
      }),
    );
    expect((await a.exited).signal).toBe("SIGKILL");
    // Killed mid-stream: some writes were acknowledged, some never were.
    expect(acknowledged.batch.length + acknowledged.integration.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(failed).toBeGreaterThan(0);

    const records = async <T>(collection: string) =>
      (await send(b, "GET", `/__mock/workspaces/${workspaceId}/${collection}`)).body as T[];
    const batches = await records<BatchRun>("batchRuns");
    const runs = await records<TestRun>("testRuns");
    const integrations = await records<{ integrationId: string }>("integrations");
    const batchIds = new Set(batches.map((r) => r.batchId));
    for (const id of acknowledged.batch) expect(batchIds.has(id), `acknowledged batch ${id}`).toBe(true);
    const integrationIds = new Set(integrations.map((r) => r.integrationId));
    for (const id of acknowledged.integration)
      expect(integrationIds.has(id), `acknowledged integration ${id}`).toBe(true);
    // Whole or absent: each batch has all its runs, each run its batch, and the counters agree.
    const runsOf = new Map<string, number>();
    for (const run of runs) runsOf.set(run.batchId, (runsOf.get(run.batchId) ?? 0) + 1);
    for (const batch of batches) {
      expect(runsOf.get(batch.batchId), `runs of batch ${batch.batchId}`).toBe(runsPerBatch);
      expect(batch.successfulAttempts + batch.failedAttempts).toBe(batch.totalAttempts);
    }
    expect(runs.filter((run) => !batchIds.has(run.batchId))).toEqual([]);
    expect(runs.every((run) => run.completedDate === null)).toBe(true);
    // The API through B says the same of a batch A acknowledged last.
    const last = acknowledged.batch.at(-1)!;
    expect((await send(b, "GET", `/v1/test-runs?batchId=${last}&size=100`, undefined, apiKey)).body.totalCount).toBe(
      runsPerBatch,
    );

    // The runs' tasks were written with them: B alone completes every run, each once.
    expect((await send(b, "POST", "/__mock/clock/advance", { seconds: 120, workspaceId })).status).toBe(200);
    const done = await records<BatchRun>("batchRuns");
    expect(done).toHaveLength(batches.length);
    for (const batch of done) {
      expect(batch.totalAttempts).toBe(runsPerBatch);
      expect(batch.successfulAttempts + batch.failedAttempts).toBe(runsPerBatch);
    }
    const completed = await records<TestRun>("testRuns");
    expect(completed).toHaveLength(batches.length * runsPerBatch);
    expect(completed.every((run) => run.completedDate !== null && typeof run.isSuccessful === "boolean")).toBe(true);
    expect(b.stderr()).toBe("");
  });
});

describe("scheduled work when a process dies", () => {
  it("is done by the process left, each piece once: test runs, call transitions, QA issues", async () => {
    // 20x: test runs complete 15-90 s of clock time after their batch (0.75-4.5 s), the calls below end after 40 s (2 s).
    const clock = ["--clock", "real", "--clock-speed", "20"];
    const redis = await redisForTest();
    const a = await mockOn(redis, ...clock);
    const b = await mockOn(redis, ...clock);
    const { workspaceId, apiKey, agentId, testCaseIds, fill } = await workspaceWithTestCases(a, [3, 3]);
    const rules: string[] = [];
    for (let i = 0; i < 2; i++) rules.push((await fill("qaRules", { agents: [{ agentId }] })).qaRuleId);
    const callIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const call = await fill("calls", {
        agent: { agentId },
        callType: "web",
        status: "scheduled",
        outcome: { status: "ended", connectAfterSeconds: 10 + i, durationSeconds: 30 },
      });
      callIds.push(call.callId);
    }
    const batchIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await send(a, "POST", "/v1/batch-runs", { agentId, testCases: testCaseIds }, apiKey);
      expect(created.status).toBe(201);
      batchIds.push(created.body.batchId);
    }
    const runCount = batchIds.length * 6;

    const records = async <T>(collection: string) =>
      (await send(b, "GET", `/__mock/workspaces/${workspaceId}/${collection}`)).body as T[];
    const progress = async () => {
      const runs = await records<TestRun>("testRuns");
      const calls = await records<{ callId: string; status: string }>("calls");
      return {
        runsDone: runs.filter((r) => r.completedDate !== null).length,
        callsMoved: calls.filter((c) => c.status !== "scheduled").length,
        callsEnded: calls.filter((c) => c.status === "ended").length,
      };
    };
    // Both processes run due tasks (each polls the store); once calls have connected and runs started to
    // complete, A dies mid-work.
    await until("a first test run to complete and a first call to connect", async () => {
      const now = await progress();
      return now.runsDone > 0 && now.callsMoved > 0;
    });
    a.child.kill("SIGKILL");
    expect((await a.exited).signal).toBe("SIGKILL");
    const atDeath = await progress();
    expect(
      atDeath.runsDone < runCount || atDeath.callsEnded < callIds.length,
      `work left when A died: ${JSON.stringify(atDeath)}`,
    ).toBe(true);

    // B alone finishes it.
    await until("every run and call to finish", async () => {
      const now = await progress();
      return now.runsDone === runCount && now.callsEnded === callIds.length;
    });
    const runs = await records<TestRun>("testRuns");
    expect(runs).toHaveLength(runCount);
    for (const batchId of batchIds) {
      const batch = (await send(b, "GET", `/v1/batch-runs/${batchId}`, undefined, apiKey)).body as BatchRun;
      const mine = runs.filter((r) => r.batchId === batchId);
      // Each completion counted once: a run completed twice would count twice.
      expect(batch.totalAttempts).toBe(mine.length);
      expect(batch.successfulAttempts).toBe(mine.filter((r) => r.isSuccessful).length);
      expect(batch.successfulAttempts + batch.failedAttempts).toBe(batch.totalAttempts);
    }
    const calls = await records<{ callId: string; status: string; terminationReason: string | null }>("calls");
    expect(calls.map((c) => c.status)).toEqual(callIds.map(() => "ended"));
    // One QA issue per rule per ended call, none twice.
    const issues = await records<{ qaRuleId: string; conversationId: string }>("qaIssues");
    expect(issues).toHaveLength(callIds.length * rules.length);
    for (const callId of callIds)
      expect(
        issues
          .filter((i) => i.conversationId === callId)
          .map((i) => i.qaRuleId)
          .sort(),
      ).toEqual([...rules].sort());
    expect(b.stderr()).toBe("");
  });
});
