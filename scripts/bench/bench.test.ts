/**
 * Smoke run of `npm run bench -- --quick`: a few seconds of every part, so the bench keeps working.
 * No thresholds: it asserts only that every row of every table got figures.
 */
import { describe, expect, it } from "vitest";
import { TARGETS } from "./compare.js";
import { MSW_SCENARIOS } from "./msw.js";
import { renderResults } from "./report.js";
import { runBench } from "./run.js";
import { CALL_QUERIES, RUN_QUERIES } from "./scale.js";
import { STORE_SCENARIOS, STORE_TARGETS } from "./shared-store.js";

const finite = (n: number | undefined) => typeof n === "number" && Number.isFinite(n);

describe("npm run bench -- --quick", () => {
  it("produces figures for every row", async () => {
    const r = await runBench(["--quick"], () => undefined);
    expect(r.compare.map((row) => row.scenario)).toHaveLength(6);
    for (const row of r.compare) {
      for (const { id } of TARGETS) {
        const cell = row.cells[id];
        expect(cell.requests, `${row.scenario} ${id}`).toBeGreaterThan(0);
        expect([cell.rps, cell.p50, cell.p99].every(finite), `${row.scenario} ${id}`).toBe(true);
      }
      // Every server but Prism (which refuses the multipart upload with 400) answers as expected.
      for (const id of ["a", "b", "c", "cprod"] as const) expect(row.cells[id].errors, `${row.scenario} ${id}`).toBe(0);
    }
    // The MSW door: the two GET requests, through setupServer in its own process.
    expect(r.msw?.map((row) => row.scenario)).toEqual(MSW_SCENARIOS);
    for (const { scenario, cell } of r.msw ?? []) {
      expect(cell.requests, scenario).toBeGreaterThan(0);
      expect([cell.rps, cell.p50, cell.p99].every(finite) && cell.errors === 0, scenario).toBe(true);
    }
    expect(r.scale).toHaveLength(2);
    for (const size of r.scale) {
      expect(size.queries.map((q) => q.name)).toEqual([...CALL_QUERIES, ...RUN_QUERIES]);
      for (const q of size.queries) expect(finite(q.p50) && q.errors === 0, `${size.calls}: ${q.name}`).toBe(true);
      expect([size.loadCallsMs, size.loadTestRunsMs, size.rss].every(finite)).toBe(true);
    }
    expect([...r.starts.mock, ...r.starts.npmStart, ...r.starts.prism].every(finite)).toBe(true);
    expect([...r.installed.starts, r.installed.idleRss].every(finite)).toBe(true);
    expect(r.installed.processes).toBe(1);
    expect(r.tooling.generateIdentical).toBe(true);
    expect(r.tooling.conformanceExit).toBe(0);
    expect(r.uploads.statuses25).toEqual([201]);
    expect(r.uploads.oversizeStatus).toBe(413);
    expect(r.uploads.peakRss).toBeGreaterThan(0);
    // The shared store: every target answered the load, its CPU figures were read (a tick of CPU time
    // may or may not fall in ten requests, so they are numbers, perhaps 0), and a read costs at most 2
    // round trips to Redis, a write 3 (one process, requests one after the other).
    const store = r.sharedStore!;
    expect(store.rows.map((row) => row.scenario)).toEqual(STORE_SCENARIOS);
    for (const row of store.rows) {
      for (const { id } of STORE_TARGETS) {
        const cell = row.cells[id];
        expect(cell.requests, `${row.scenario} ${id}`).toBeGreaterThan(0);
        expect(cell.errors, `${row.scenario} ${id}: ${JSON.stringify(cell.unexpected)}`).toBe(0);
        expect([cell.rps, cell.p50, cell.p99, cell.mockCpuMs].every(finite), `${row.scenario} ${id}`).toBe(true);
        if (id !== "memory") expect([cell.redisCpuMs, cell.scriptCallsPerRequest].every(finite), `${row.scenario} ${id}`).toBe(true);
      }
      expect(row.cells.memory.mockProcesses).toBe(1);
      expect(row.cells.redis.mockProcesses).toBe(1);
      expect(row.cells.workers.mockProcesses).toBe(3);
    }
    expect(store.roundTrips.length).toBeGreaterThanOrEqual(4);
    for (const t of store.roundTrips) {
      expect(t.errors, t.operation).toBe(0);
      // MONITOR's script calls and commandstats' agree.
      expect((t.sentBy.evalsha ?? 0) + (t.sentBy.eval ?? 0), t.operation).toBe(t.scriptCalls);
      expect(t.sent, t.operation).toBeGreaterThan(0);
      expect(t.sent, t.operation).toBeLessThanOrEqual(t.kind === "read" ? 2 : 3);
    }
    expect(store.roundTrips.filter((t) => t.kind === "read").map((t) => t.operation)).toEqual(["GET /v1/calls?size=20", "GET /v1/calls/{callId}"]);
    // CPU ratios may read n/a here: ten requests can use less than one 10 ms tick of CPU time.
    const markdown = renderResults(r, "/nonexistent");
    expect(markdown).not.toMatch(/NaN|undefined/);
    expect(markdown).toMatch(/## 6\. Shared store[\s\S]*\| GET \/v1\/calls\?size=20 \| 2\.00 \|[\s\S]*### Scaling/);
  }, 180_000);
});
