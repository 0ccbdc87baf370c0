/**
 * The history checker of the shared store (scripts/soak/history/): short seeded runs on one Redis and
 * on a 3-master Cluster (a random seed with kills on each) find no anomaly and actually check (comparisons, register
 * reads, exactly-once, deliveries); and the checks do fail on hand-made histories that show a lost
 * write, a duplicate test run, an error log line, a stale read or a delivery seen twice.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAcked, checkBatchRuns, checkDeliveries, checkLogs, checkRegisters } from "../soak/history/checks.js";
import type { Entry } from "../soak/history/history.js";
import { figuresOf, printAnomalies } from "../soak/history/report.js";
import { type Rig, runChecker, startRig } from "../soak/history/run.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const REPLICAS = 3;

async function run(seed: number, ops: number, cluster: boolean, kill: boolean, rig?: Rig) {
  const options = {
    replicas: REPLICAS,
    ops,
    clients: 4,
    cluster,
    kill,
    seed,
    mockRoot: ROOT,
    shrinkMs: 0,
    log: () => undefined,
  };
  const { first } = await runChecker(options, rig);
  const f = figuresOf(first);
  if (f.anomalies > 0) console.log(printAnomalies(first, options));
  expect(f.anomalies).toBe(0);
  expect(f.operations).toBeGreaterThanOrEqual(ops * 0.9);
  expect(f.differentialComparisons).toBeGreaterThan(0);
  expect(f.endComparisons).toBeGreaterThan(0);
  expect(f.exactlyOnceChecks).toBeGreaterThan(0);
  return f;
}

/** A random seed, printed so that a failing run can be repeated (`npm run soak -- --replicas 3 --seed N ...`). */
function randomSeed(): number {
  const seed = Math.floor(Math.random() * 2 ** 31);
  console.log(`history checker seed: ${seed}`);
  return seed;
}

// The runs on one Redis go beside the Cluster's: each has its own Redis, replicas, receiver and model,
// and the checks hold at any speed (times are read, never assumed).
describe.concurrent("history checker on real replicas", () => {
  // One Redis and its replicas, started once for the three runs on it, one after the other: each run
  // gets fresh workspaces on them, as fast-check's shrink runs do.
  describe("on one Redis", () => {
    let rig: Rig | undefined;
    beforeAll(async () => {
      rig = await startRig({ replicas: REPLICAS, cluster: false, mockRoot: ROOT });
    }, 60_000);
    afterAll(() => rig?.close());

    it.sequential("finds nothing on one Redis (two fixed seeds)", { timeout: 120_000 }, async () => {
      const a = await run(7, 250, false, false, rig);
      const b = await run(20261129, 250, false, false, rig);
      expect(a.deliveriesVerified + b.deliveriesVerified).toBeGreaterThan(0);
      expect(a.registerChecks + b.registerChecks).toBeGreaterThan(0);
    });

    it.sequential("finds nothing on one Redis with a replica killed (a random seed)", {
      timeout: 120_000,
    }, async () => {
      const f = await run(randomSeed(), 250, false, true, rig);
      expect(f.kills).toBeGreaterThan(0);
    });
  });

  it("finds nothing on a 3-master Cluster with a replica killed (a random seed)", { timeout: 120_000 }, async () => {
    const f = await run(randomSeed(), 250, true, true);
    expect(f.kills).toBeGreaterThan(0);
  });
});

const entry = (over: Partial<Entry>): Entry => ({
  id: 1,
  client: 0,
  label: "x",
  method: "GET",
  path: "/",
  replica: "r1",
  invoke: 0,
  complete: 1,
  status: 200,
  digest: "",
  role: "owner",
  ...over,
});

describe("the checks can fail", () => {
  it("reports an error line in a replica's log", () => {
    const found = checkLogs([
      {
        replica: "r2",
        lines: [
          "listening on http://127.0.0.1:1/v1",
          "scheduled task failed: TypeError: Cannot read properties of undefined (reading 'values')",
        ],
      },
    ]);
    expect(found.map((a) => a.kind)).toEqual(["log-line"]);
    expect(found[0].message).toContain("TypeError");
  });

  it("reports a lost acknowledged write", () => {
    const found = checkAcked(
      "ws-1",
      new Map([["integrations", new Set(["i-1", "i-2"])]]),
      new Map([["integrations", ["i-1"]]]),
    );
    expect(found.map((a) => a.kind)).toEqual(["lost-write"]);
    expect(found[0].message).toContain("i-2");
  });

  it("reports a duplicate and a missing test run", () => {
    const batch = { batchId: "b", totalAttempts: 2, successfulAttempts: 1, failedAttempts: 1 };
    const run = (jobId: string) => ({ batchId: "b", jobId, completedDate: "2026-11-01T12:00:00Z" });
    const twice = checkBatchRuns("ws-1", { batchRuns: [batch], testRuns: [run("j1"), run("j1"), run("j2")] }, [2]);
    expect(twice.anomalies.map((a) => a.kind)).toContain("exactly-once");
    expect(twice.anomalies.some((a) => a.message.includes("twice"))).toBe(true);
    const missing = checkBatchRuns("ws-1", { batchRuns: [batch], testRuns: [run("j1")] }, [2]);
    expect(missing.anomalies.some((a) => a.message.includes("1 test runs, the model's twin 2"))).toBe(true);
    expect(checkBatchRuns("ws-1", { batchRuns: [batch], testRuns: [run("j1"), run("j2")] }, [2]).anomalies).toEqual([]);
  });

  it("reports a stale observer read, and accepts a concurrent one", () => {
    const writes = [
      entry({ id: 1, method: "POST", invoke: 0, complete: 10, writes: [{ register: "w/i", value: "a" }] }),
      entry({ id: 2, method: "PATCH", invoke: 20, complete: 30, writes: [{ register: "w/i", value: "b" }] }),
    ];
    const stale = entry({ id: 3, role: "observer", invoke: 40, complete: 45, read: { register: "w/i", value: "a" } });
    const concurrent = entry({
      id: 4,
      role: "observer",
      invoke: 25,
      complete: 28,
      read: { register: "w/i", value: "a" },
    });
    const found = checkRegisters([...writes, stale, concurrent]);
    expect(found.checked).toBe(2);
    expect(found.anomalies.map((a) => a.entry)).toEqual([3]);
  });

  it("reports a delivery the receiver saw twice with no kill, and a bad signature", () => {
    const delivery = {
      deliveryId: "d1",
      workspaceId: "ws-1",
      event: "conversation_started",
      url: "http://127.0.0.1:9/real/1/0/0",
      payload: '{"eventId":"e1"}',
      status: "delivered",
      attempts: [{ at: "2026-11-01T12:00:00.000Z", statusCode: 204 }],
    };
    const seen = {
      path: "/real/1/0/0",
      signature: "t=1,v1=00",
      webhookId: "h",
      event: "conversation_started",
      payload: '{"eventId":"e1"}',
      eventId: "e1",
      at: Date.now(),
      answered: 204,
    };
    const found = checkDeliveries([delivery], [seen, { ...seen }], {
      secrets: new Map([["/real/1/0/0", "whsec_x"]]),
      backoffSeconds: 10,
      kills: [],
    });
    expect(found.anomalies.map((a) => a.kind).sort()).toEqual(["delivery", "signature", "signature"]);
  });
});
