/**
 * A replica killed with kill -9 on a Redis Cluster of 3 masters: every write it acknowledged is read
 * back through the other replica, whole, and no write is there in part, though one stream of writes
 * lands on every master (workspaces whose keys live on different nodes, workspaces being created, batch
 * runs whose scheduled work is indexed apart from them); and the work it scheduled just before dying is
 * run by the other replica, once. The same on one Redis: shared-store-crash.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { MockProcess } from "../process.js";
import { nodeCommand, type RedisCluster } from "../redis-cluster.js";
import { clusterForTest, mockOn, send, stopAfterEach, until, workspaceWithTestCases } from "./support.js";

stopAfterEach();

type Prepared = Awaited<ReturnType<typeof workspaceWithTestCases>>;

interface BatchRun {
  batchId: string;
  successfulAttempts: number;
  failedAttempts: number;
  totalAttempts: number;
}
interface TestRun {
  batchId: string;
  completedDate: string | null;
  isSuccessful: boolean | null;
}

/** For each node of `cluster`, the ids among `ids` that one of its keys names. */
function idsByNode(cluster: RedisCluster, ids: string[]): Promise<Set<string>[]> {
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const keys = (await nodeCommand(node.port, "KEYS", "*")) as string[];
      return new Set(ids.filter((id) => keys.some((key) => key.includes(id))));
    }),
  );
}

/**
 * At least `atLeast` workspaces (one agent, test cases of 2 and 3 attempts) made through `mock`, and more
 * until every master holds keys of one of them: writes to them reach every node.
 */
async function workspacesOnEveryMaster(cluster: RedisCluster, mock: MockProcess, atLeast: number) {
  const made: Prepared[] = [];
  const LIMIT = 30;
  while (made.length < LIMIT) {
    made.push(await workspaceWithTestCases(mock, [2, 3]));
    if (made.length < atLeast) continue;
    const byNode = await idsByNode(
      cluster,
      made.map((w) => w.workspaceId),
    );
    if (byNode.every((ids) => ids.size > 0)) return made;
  }
  throw new Error(`${LIMIT} workspaces, and a master holds keys of none: workspace keys do not spread over the slots`);
}

/** A collection of a workspace, read through the control plane of `mock`. */
async function records<T>(mock: MockProcess, workspaceId: string, collection: string): Promise<T[]> {
  const reply = await send(mock, "GET", `/__mock/workspaces/${workspaceId}/${collection}`);
  if (reply.status !== 200) throw new Error(`${collection} of ${workspaceId}: ${reply.status}`);
  return reply.body;
}

type Write =
  | { kind: "workspace"; path: string; body: unknown; key?: undefined; workspace?: undefined }
  | { kind: "batch" | "integration"; path: string; body: unknown; key: string; workspace: Prepared };

describe("a replica killed with kill -9 on a Redis Cluster", () => {
  it("loses no write it acknowledged, on any master, and leaves none in part", async () => {
    const cluster = await clusterForTest();
    const a = await mockOn(cluster, "--clock", "virtual");
    const b = await mockOn(cluster, "--clock", "virtual");
    const workspaces = await workspacesOnEveryMaster(cluster, a, 6);
    const runsPerBatch = 5;

    // 300 writes at once, over every workspace: batch runs (a batch, its runs, their scheduled completion),
    // integrations, and new workspaces (the registry's slot, and the new workspace's own).
    const writes: Write[] = Array.from({ length: 300 }, (_, i) => {
      const workspace = workspaces[i % workspaces.length];
      const { apiKey: key, agentId, testCaseIds } = workspace;
      if (i % 4 === 0) return { kind: "workspace", path: "/__mock/workspaces", body: { empty: true } };
      if (i % 4 === 2)
        return { kind: "integration", path: "/v1/integrations", body: { name: `integration ${i}` }, key, workspace };
      return { kind: "batch", path: "/v1/batch-runs", body: { agentId, testCases: testCaseIds }, key, workspace };
    });
    const acknowledged = {
      batch: new Map<string, string[]>(workspaces.map((w) => [w.workspaceId, []])),
      integration: new Map<string, string[]>(workspaces.map((w) => [w.workspaceId, []])),
      workspace: [] as { workspaceId: string; apiKey: string }[],
    };
    let count = 0;
    let failed = 0;
    const KILL_AFTER = 80;
    await Promise.all(
      writes.map(async (write) => {
        try {
          const reply = await send(a, "POST", write.path, write.body, write.key);
          if (reply.status !== 201)
            throw new Error(`${write.path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
          if (write.kind === "workspace") acknowledged.workspace.push(reply.body);
          else
            acknowledged[write.kind]
              .get(write.workspace.workspaceId)!
              .push(write.kind === "batch" ? reply.body.batchId : reply.body.integrationId);
          if (++count === KILL_AFTER) a.child.kill("SIGKILL");
        } catch (error) {
          // Only the kill may stop a write: a connection torn down, not an answer.
          if (error instanceof Error && / answered /.test(error.message)) throw error;
          failed++;
        }
      }),
    );
    expect((await a.exited).signal).toBe("SIGKILL");
    expect(count).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(failed).toBeGreaterThan(0);
    expect(acknowledged.workspace.length).toBeGreaterThan(0);

    // Each workspace, through B: what A acknowledged is there, and every batch is whole.
    const batchesOf = new Map<string, BatchRun[]>();
    for (const { workspaceId } of workspaces) {
      const batches = await records<BatchRun>(b, workspaceId, "batchRuns");
      const runs = await records<TestRun>(b, workspaceId, "testRuns");
      const integrations = await records<{ integrationId: string }>(b, workspaceId, "integrations");
      batchesOf.set(workspaceId, batches);
      const batchIds = new Set(batches.map((r) => r.batchId));
      for (const id of acknowledged.batch.get(workspaceId)!)
        expect(batchIds.has(id), `acknowledged batch ${id} of ${workspaceId}`).toBe(true);
      const integrationIds = new Set(integrations.map((r) => r.integrationId));
      for (const id of acknowledged.integration.get(workspaceId)!)
        expect(integrationIds.has(id), `acknowledged integration ${id} of ${workspaceId}`).toBe(true);
      const runsOf = new Map<string, number>();
      for (const run of runs) runsOf.set(run.batchId, (runsOf.get(run.batchId) ?? 0) + 1);
      for (const batch of batches)
        expect(runsOf.get(batch.batchId), `runs of batch ${batch.batchId}`).toBe(runsPerBatch);
      expect(runs.filter((run) => !batchIds.has(run.batchId))).toEqual([]);
      expect(runs.every((run) => run.completedDate === null)).toBe(true);
    }

    // Workspaces: each one A acknowledged is listed, and its key works through B; each one listed (those
    // A was creating when it died included) is whole: its key answers, its collections are there.
    const listed = (await send(b, "GET", "/__mock/workspaces")).body as { workspaceId: string; apiKey: string }[];
    const listedKeys = new Map(listed.map((w) => [w.workspaceId, w.apiKey]));
    for (const created of acknowledged.workspace)
      expect(listedKeys.get(created.workspaceId), `acknowledged workspace ${created.workspaceId}`).toBe(created.apiKey);
    for (const { workspaceId, apiKey } of listed) {
      expect((await send(b, "GET", "/v1/agents?size=1", undefined, apiKey)).status, workspaceId).toBe(200);
      expect((await send(b, "GET", `/__mock/workspaces/${workspaceId}/agents`)).status, workspaceId).toBe(200);
    }

    // The batches' scheduled work was written with them: B alone completes every run, each once.
    for (const { workspaceId } of workspaces) {
      expect((await send(b, "POST", "/__mock/clock/advance", { seconds: 120, workspaceId })).status).toBe(200);
      const done = await records<BatchRun>(b, workspaceId, "batchRuns");
      expect(done).toHaveLength(batchesOf.get(workspaceId)!.length);
      for (const batch of done) {
        expect(batch.totalAttempts).toBe(runsPerBatch);
        expect(batch.successfulAttempts + batch.failedAttempts).toBe(runsPerBatch);
      }
      const completed = await records<TestRun>(b, workspaceId, "testRuns");
      expect(completed).toHaveLength(done.length * runsPerBatch);
      expect(completed.every((run) => run.completedDate !== null && typeof run.isSuccessful === "boolean")).toBe(true);
    }
    expect(b.stderr()).toBe("");
  });

  it("leaves the work it scheduled just before dying to the other replica, done once", async () => {
    // 40x: calls connect 60 s of clock time after they are scheduled (1.5 s) and end 30 s later; test
    // runs complete 15-90 s after their batch (0.4-2.3 s).
    const clock = ["--clock", "real", "--clock-speed", "40"];
    const cluster = await clusterForTest();
    const a = await mockOn(cluster, ...clock);
    const b = await mockOn(cluster, ...clock);
    const workspaces = await workspacesOnEveryMaster(cluster, a, 3);

    // A's last acts: a batch run and two scheduled calls in each workspace; it dies at once.
    const batches: { workspace: Prepared; batchId: string }[] = [];
    const calls: { workspace: Prepared; callId: string }[] = [];
    for (const workspace of workspaces) {
      const created = await send(
        a,
        "POST",
        "/v1/batch-runs",
        { agentId: workspace.agentId, testCases: workspace.testCaseIds },
        workspace.apiKey,
      );
      expect(created.status).toBe(201);
      batches.push({ workspace, batchId: created.body.batchId });
    }
    for (const workspace of workspaces)
      for (let i = 0; i < 2; i++) {
        const call = await workspace.fill("calls", {
          agent: { agentId: workspace.agentId },
          callType: "web",
          status: "scheduled",
          outcome: { status: "ended", connectAfterSeconds: 60 + i, durationSeconds: 30 },
        });
        calls.push({ workspace, callId: call.callId });
      }
    a.child.kill("SIGKILL");
    expect((await a.exited).signal).toBe("SIGKILL");

    const statuses = async () =>
      (
        await Promise.all(workspaces.map((w) => records<{ callId: string; status: string }>(b, w.workspaceId, "calls")))
      ).flat();
    expect((await statuses()).filter((call) => call.status === "ended")).toEqual([]);
    await until("every call to end and every test run to complete, through B", async () => {
      const ended = (await statuses()).filter((call) => call.status === "ended").length;
      const runs = (await Promise.all(workspaces.map((w) => records<TestRun>(b, w.workspaceId, "testRuns")))).flat();
      return ended === calls.length && runs.every((run) => run.completedDate !== null);
    });
    expect((await statuses()).map((call) => call.callId).sort()).toEqual(calls.map((call) => call.callId).sort());
    for (const { workspace, batchId } of batches) {
      const runs = await records<TestRun>(b, workspace.workspaceId, "testRuns");
      const batch = (await send(b, "GET", `/v1/batch-runs/${batchId}`, undefined, workspace.apiKey)).body as BatchRun;
      // Each completion counted once: a run completed twice would count twice.
      expect(runs.filter((run) => run.batchId === batchId)).toHaveLength(5);
      expect(batch.totalAttempts).toBe(5);
      expect(batch.successfulAttempts).toBe(runs.filter((run) => run.isSuccessful).length);
      expect(batch.successfulAttempts + batch.failedAttempts).toBe(5);
    }
    expect(b.stderr()).toBe("");
  });
});
