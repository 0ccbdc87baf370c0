/**
 * Part 3: a workspace holding 10^3, 10^5 and 10^6 calls, and a batch run with 10^2, 10^3 and 10^4
 * test runs, each size in a fresh mock process (scale-server.ts) bulk-loaded through the store API.
 * Pages are timed one request at a time (sequentialLatency), so the figure is what a page costs,
 * not how long it queued.
 */
import { ask, freePort, startChild, TSX_EXEC_ARGV, watchRss } from "./children.js";
import { BULK_STATUS } from "./bulk-loader.js";
import { exchange, sequentialLatency, type BenchRequest } from "./load.js";
import type { ScaleAnswer } from "./scale-server.js";

export interface ScaleQuery {
  name: string;
  p50: number;
  p99: number;
  errors: number;
}

export interface ScaleRow {
  calls: number;
  testRuns: number;
  loadCallsMs: number;
  loadTestRunsMs: number;
  /** After the load and a full GC (process.memoryUsage in the mock's process). */
  rss: number;
  heapUsed: number;
  /** Highest RSS seen from /proc while loading (garbage included). */
  peakRss?: number;
  queries: ScaleQuery[];
}

export const CALL_QUERIES = [
  "calls: first page",
  "calls: last page",
  `calls: status=${BULK_STATUS.large}, first page`,
  `calls: status=${BULK_STATUS.large}, last page`,
  `calls: status=${BULK_STATUS.small}, first page`,
  "call by id",
];
export const RUN_QUERIES = [
  "test runs: batch, first page",
  "test runs: batch, last page",
  "test runs: batch + agentId, first page",
];

async function lastPage(url: string, path: string, headers: Record<string, string>): Promise<number> {
  const res = await exchange(url, { method: "GET", path, headers, expect: 200 });
  const body = JSON.parse(res.body.toString()) as { totalPages: number };
  return Math.max(0, body.totalPages - 1);
}

export async function runScale(
  sizes: { calls: number; testRuns: number }[],
  samples: number,
  log: (line: string) => void,
): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const size of sizes) {
    const port = await freePort();
    const child = await startChild({
      name: "mock (scale)",
      args: ["scripts/bench/scale-server.ts", String(port)],
      ipc: { execArgv: [...TSX_EXEC_ARGV, "--expose-gc", "--max-old-space-size=4096"] },
      url: `http://127.0.0.1:${port}`,
      readyPath: "/__mock/health",
    });
    try {
      const pid = child.process.pid;
      const ws = await ask<ScaleAnswer>(child.process, { op: "workspace" });
      const peak = watchRss(pid, 50);
      const calls = await ask<ScaleAnswer>(child.process, { op: "calls", count: size.calls });
      const batch = await ask<ScaleAnswer>(child.process, { op: "batch", count: size.testRuns });
      const peakRss = peak.stop();
      const headers = { "X-API-Key": ws.apiKey! };
      const get = (name: string, path: string): [string, BenchRequest] => [
        name,
        { method: "GET", path, headers, expect: 200 },
      ];
      const callsLast = await lastPage(child.url, "/v1/calls?page=0&size=10", headers);
      const largeLast = await lastPage(child.url, `/v1/calls?status=${BULK_STATUS.large}&page=0&size=10`, headers);
      const runsPath = `/v1/test-runs?batchId=${batch.batchId}`;
      const runsLast = await lastPage(child.url, `${runsPath}&page=0&size=10`, headers);
      const lastCallId = `0ca11000-0000-4000-8000-${(size.calls - 1).toString(16).padStart(12, "0")}`;
      const queries = [
        get(CALL_QUERIES[0], "/v1/calls?page=0&size=10"),
        get(CALL_QUERIES[1], `/v1/calls?page=${callsLast}&size=10`),
        get(CALL_QUERIES[2], `/v1/calls?status=${BULK_STATUS.large}&page=0&size=10`),
        get(CALL_QUERIES[3], `/v1/calls?status=${BULK_STATUS.large}&page=${largeLast}&size=10`),
        get(CALL_QUERIES[4], `/v1/calls?status=${BULK_STATUS.small}&page=0&size=10`),
        get(CALL_QUERIES[5], `/v1/calls/${lastCallId}`),
        get(RUN_QUERIES[0], `${runsPath}&page=0&size=10`),
        get(RUN_QUERIES[1], `${runsPath}&page=${runsLast}&size=10`),
        get(RUN_QUERIES[2], `${runsPath}&agentId=${batch.agentId}&page=0&size=10`),
      ];
      const measured: ScaleQuery[] = [];
      for (const [name, request] of queries)
        measured.push({ name, ...(await sequentialLatency(child.url, request, samples)) });
      const row: ScaleRow = {
        calls: size.calls,
        testRuns: size.testRuns,
        loadCallsMs: calls.loadMs!,
        loadTestRunsMs: batch.loadMs!,
        rss: batch.rss,
        heapUsed: batch.heapUsed,
        peakRss,
        queries: measured,
      };
      log(
        `  ${size.calls} calls loaded in ${(row.loadCallsMs / 1000).toFixed(1)} s, RSS ${(row.rss / 2 ** 20).toFixed(0)} MiB; ` +
          measured.map((q) => `${q.name} ${q.p50.toFixed(2)} ms`).join(", "),
      );
      rows.push(row);
    } finally {
      await child.stop();
    }
  }
  return rows;
}
