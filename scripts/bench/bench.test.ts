/**
 * Smoke run of `npm run bench -- --quick`: a few seconds of every part, so the bench keeps working.
 * No thresholds: it asserts only that every row of every table got figures. The smoke run and part 7's
 * --only run go side by side (describe.concurrent): each starts its own processes on ephemeral ports and
 * writes only its own files, and neither asserts a figure that needs the machine to itself.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findChromium } from "../ensure-tools.mjs";
import { TARGETS } from "./compare.js";
import { DASHBOARD_VIEWERS, type DashboardFigures } from "./dashboard.js";
import { EXERCISED_ANSWERS, EXERCISED_SCENARIOS, PROFILED, type ExercisedFigures } from "./exercised.js";
import { GATEWAY_CASES, gatewayDerived, gatewayGoals, type GatewayFigures, type GatewayRun } from "./gateway.js";
import { MSW_SCENARIOS } from "./msw.js";
import { renderResults, type Results } from "./report.js";
import { renderMarkdown, runBench } from "./run.js";
import { CALL_QUERIES, RUN_QUERIES } from "./scale.js";
import { STORE_SCENARIOS, STORE_TARGETS } from "./shared-store.js";
import {
  arithmetic,
  CORES,
  parseRoundTrips,
  renderSharing,
  SHARING_SCENARIOS,
  type SharingFigures,
} from "./sharing.js";
import { UPSTREAM_SCENARIOS, UPSTREAM_TARGETS, type UpstreamFigures } from "./upstream.js";

const finite = (n: number | undefined) => typeof n === "number" && Number.isFinite(n);
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Part 7's figures agree with each other: what the suite counted is what the gateway saw. */
function expectGatewayConsistent(g: GatewayFigures | undefined): void {
  expect(g?.runs.map((run) => run.id)).toEqual(GATEWAY_CASES.map((c) => c.id));
  for (const run of g!.runs) {
    expect(run.exit, run.id).toBe(0);
    expect([run.rules.failed, run.rules.inconclusive, run.environment.inconclusive], run.id).toEqual([0, 0, 0]);
    expect(run.rules.passed, run.id).toBeGreaterThan(0);
    expect(run.environment.requests, run.id).toBe(run.gateway.received);
    expect(run.environment.rateLimited, run.id).toBe(run.gateway.rateLimited);
    expect(run.environment.gatewayErrors, run.id).toEqual(run.gateway.errorPages);
    // Every request the gateway received was forwarded, refused with a 429, answered with its own page or reset.
    expect(
      run.gateway.forwarded + run.gateway.rateLimited + sum(run.gateway.errorPages) + run.gateway.resets,
      run.id,
    ).toBe(run.gateway.received);
    expect(run.environment.retries.rateLimited, run.id).toBe(run.gateway.rateLimited);
    expect(run.gateway.early, run.id).toBe(0);
    expect(finite(run.wallSec) && run.wallSec > 0, run.id).toBe(true);
    expect(run.limited, run.id).toBe(run.id !== "clean");
  }
  const clean = g!.runs[0];
  expect([clean.gateway.rateLimited, clean.environment.waitedSeconds, clean.environment.pace]).toEqual([0, 0, null]);
}

/** Part 8's figures: every cell measured without an error, every upload through both proxies answered 201. */
function expectUpstreamFigures(u: UpstreamFigures | undefined): void {
  expect(u?.rows.map((row) => row.scenario)).toEqual(UPSTREAM_SCENARIOS);
  for (const row of u!.rows)
    for (const { id } of UPSTREAM_TARGETS) {
      const { atRate, max } = row.cells[id];
      expect(
        [atRate.requests, max.requests].every((n) => n > 0),
        `${row.scenario} ${id}`,
      ).toBe(true);
      expect([atRate.errors, max.errors], `${row.scenario} ${id}`).toEqual([0, 0]);
      expect([atRate.p50, atRate.p99, max.rps, max.p50, max.p99].every(finite), `${row.scenario} ${id}`).toBe(true);
    }
  for (const { id } of UPSTREAM_TARGETS) {
    const m = u!.memory[id];
    expect(m.statuses, id).toEqual(Array(u!.plan.uploads).fill(201));
    expect([m.before, m.peakFirst, m.afterFirst, m.peak, m.after].every(finite), id).toBe(true);
  }
}

/**
 * Part 9's figures: every measure taken without an error; the journal kept exactly its size, cut the
 * page of 100 (and only it) to exactly the capture limit; the HAR holds the whole journal.
 */
function expectExercisedFigures(e: ExercisedFigures | undefined): void {
  const size = e!.plan.journalSize;
  const limit = e!.memory.captureLimit;
  expect(e?.observe.map((row) => row.answer)).toEqual([...EXERCISED_ANSWERS]);
  for (const row of e!.observe) {
    expect(row.keys, row.answer).toBeGreaterThan(0);
    expect([row.observeUs, row.cappedUs, row.cappedFaults].every(finite), row.answer).toBe(true);
    expect(row.cut, row.answer).toBe(row.bytes > limit);
  }
  expect(e!.observe.find((row) => row.answer === "listCalls, page of 100")?.cut).toBe(true);
  expect(e!.requests.map((row) => row.scenario)).toEqual(EXERCISED_SCENARIOS.map((s) => s.scenario));
  for (const row of e!.requests) {
    for (const r of [...row.atRate, ...row.max]) {
      expect(r.requests, row.scenario).toBeGreaterThan(0);
      expect(r.errors, row.scenario).toBe(0);
      expect([r.p50, r.p99].every(finite), row.scenario).toBe(true);
    }
    // The profiled run's samples were read; a function's samples are some of the busy ones.
    const { busySamples, samples } = row.profile;
    expect(busySamples, row.scenario).toBeGreaterThan(0);
    for (const f of PROFILED) expect(samples[f], `${row.scenario} ${f}`).toBeLessThanOrEqual(busySamples);
  }
  expect(e!.memory.rows.map((row) => row.answer)).toEqual([...EXERCISED_ANSWERS]);
  for (const row of e!.memory.rows) {
    expect([row.entries, row.unexpected], row.answer).toEqual([size, 0]);
    // Every answer measured is a GET's JSON: kept by reference, with no text held and nothing cut until read.
    expect([row.byReference, row.cut, row.heldBytes], row.answer).toEqual([size, 0, 0]);
    expect([row.before.rss, row.after.rss, row.after.heapUsed].every(finite), row.answer).toBe(true);
  }
  expect(e!.coverage.map((c) => [c.status, c.count])).toEqual([
    [200, e!.catalogue.variants],
    [200, e!.catalogue.variants],
  ]);
  expect(e!.harStatus).toBe(200);
  expect(e!.har?.count).toBe(size);
}

/**
 * Part 10's figures: a page row exactly when there is a Chromium; every run answered without an error;
 * the paused reader got or was told of one event per request sent while it was paused, and the reader at
 * full speed lost none.
 */
function expectDashboardFigures(d: DashboardFigures | undefined): void {
  const viewers = DASHBOARD_VIEWERS.map((v) => v.id).filter((id) => id !== "page" || findChromium());
  expect(d?.rows.map((row) => row.viewer)).toEqual(viewers);
  for (const row of d!.rows) {
    expect([row.max.length, row.atRate.length], row.viewer).toEqual([d!.plan.rounds, d!.plan.rounds]);
    for (const r of [...row.max, ...row.atRate]) {
      expect(r.requests, row.viewer).toBeGreaterThan(0);
      expect(r.errors, row.viewer).toBe(0);
      expect([r.p50, r.p99].every(finite), row.viewer).toBe(true);
    }
    for (const r of row.atRate) expect([r.rate, r.mockCpuUs, r.viewerCpuUs].every(finite), row.viewer).toBe(true);
  }
  for (const row of d!.rows)
    for (const { activity } of [...row.max, ...row.atRate]) {
      // Each viewer says what it did: the reader counts events (and at full speed loses none), the page its requests.
      expect(Object.keys(activity), row.viewer).toEqual(
        { none: [], reader: ["events"], page: ["requests"] }[row.viewer],
      );
      if (activity.events) expect(activity.events.dropped, row.viewer).toBe(0);
    }
  expect(d!.rate).toBeLessThanOrEqual(d!.plan.rate);
  expect(d!.slow.map((row) => row.reader)).toEqual(["none", "paused"]);
  for (const row of d!.slow) {
    expect([row.load.requests, row.load.errors], row.reader).toEqual([d!.plan.slowRequests, 0]);
    expect([row.before, row.peak, row.after].every(finite), row.reader).toBe(true);
  }
  const paused = d!.slow[1];
  expect(paused.events!.events + paused.events!.dropped).toBe(d!.plan.slowRequests);
  expect(paused.events!.droppedEvents > 0).toBe(paused.events!.dropped > 0);
  expect(finite(paused.resumed)).toBe(true);
}

/**
 * Part 11's figures: every run answered without an error; the two targets each ran every round; the delay
 * line made every request wait (each waits for at least one round trip to Redis); one process in memory,
 * one on Redis, a primary and two workers.
 */
function expectSharingFigures(s: SharingFigures | undefined): void {
  const scenarios = SHARING_SCENARIOS.map((o) => o.scenario);
  expect(s?.cpu.map((row) => row.scenario)).toEqual(scenarios);
  for (const row of s!.cpu) {
    expect([row.memory.length, row.redis.length], row.scenario).toEqual([s!.plan.rounds, s!.plan.rounds]);
    for (const r of [...row.memory, ...row.redis]) {
      expect([r.requests > 0, r.errors], row.scenario).toEqual([true, 0]);
      expect([r.mockCpuUs, r.p50].every(finite), row.scenario).toBe(true);
    }
    expect(row.memory.every((r) => r.redisCpuUs === undefined)).toBe(true);
    expect(row.redis.every((r) => finite(r.redisCpuUs))).toBe(true);
  }
  expect(s!.roundTrips.map((row) => row.scenario)).toEqual(scenarios);
  for (const row of s!.roundTrips) {
    expect([row.requests, row.errors], row.scenario).toEqual([s!.plan.sequential, 0]);
    expect(row.sent, row.scenario).toBeGreaterThan(0);
    expect(row.awaited, row.scenario).toBeGreaterThan(0.5);
  }
  expect(s!.workers.map((row) => row.scenario)).toEqual(scenarios);
  for (const row of s!.workers) {
    expect(
      [row.memory, row.one, row.two].map((cell) => cell.mockProcesses),
      row.scenario,
    ).toEqual([1, 1, 3]);
    for (const cell of [row.memory, row.one, row.two]) {
      expect([cell.requests > 0, cell.errors], row.scenario).toEqual([true, 0]);
      expect([cell.rps, cell.mockCpuMs].every(finite), row.scenario).toBe(true);
    }
    expect([row.memory.redisCpuMs, ...[row.one, row.two].map((cell) => finite(cell.redisCpuMs))]).toEqual([
      undefined,
      true,
      true,
    ]);
  }
  if (s!.redisBenchmark) expect(s!.redisBenchmark.getPerSec).toBeGreaterThan(0);
  // The Cluster: measured for every request, or the reason why not.
  const cluster = s!.cluster!;
  expect(cluster.masters).toBe(s!.plan.clusterMasters);
  if (cluster.reason === undefined)
    expect(cluster.rows.map((row) => [row.scenario, row.runs.length])).toEqual(
      scenarios.map((scenario) => [scenario, s!.plan.rounds]),
    );
  else expect(cluster.reason).not.toBe("");
}

const gatewayRun = (wallSec: number, received: number, rateLimited: number, early = 0): GatewayRun =>
  ({
    wallSec,
    gateway: { received, rateLimited, early, forwarded: received - rateLimited, resets: 0, errorPages: {} },
  }) as GatewayRun;

/**
 * `--quick --only PART` against a copy of the saved figures in a temporary folder: what it returned, the
 * saved figures before and after, and the RESULTS.md it wrote.
 */
async function runAlone(part: string) {
  const dir = mkdtempSync(join(tmpdir(), "bench-only-"));
  try {
    const saved = join(dir, "results.json");
    const out = join(dir, "RESULTS.md");
    copyFileSync(new URL("./results.json", import.meta.url), saved);
    const before = JSON.parse(readFileSync(saved, "utf8")) as Results;
    const results = await runBench(["--quick", "--only", part, "--json", saved, "--out", out], () => undefined);
    const after = JSON.parse(readFileSync(saved, "utf8")) as Results;
    return { results, saved, out, before, after, markdown: readFileSync(out, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.concurrent("part 7's arithmetic", () => {
  it("takes the floor as the gateway's requests over 20/s, and holds a run to 1.3x of it and 5 % of 429s", () => {
    expect(gatewayDerived(gatewayRun(33, 600, 12))).toEqual({ floorSec: 30, overFloor: 1.1, share429: 0.02 });
    expect(gatewayDerived(gatewayRun(10, 100, 0), 5)).toEqual({ floorSec: 20, overFloor: 0.5, share429: 0 });
    const nothing = gatewayDerived(gatewayRun(1, 0, 0));
    expect([nothing.floorSec, nothing.overFloor, nothing.share429]).toEqual([0, Number.NaN, Number.NaN]);
    expect(gatewayGoals(gatewayRun(39, 600, 30))).toEqual({ floor: true, share: true, early: true });
    expect(gatewayGoals(gatewayRun(39.1, 600, 31, 1))).toEqual({ floor: false, share: false, early: false });
    // No requests: no figure, no goal met.
    expect(gatewayGoals(gatewayRun(1, 0, 0))).toEqual({ floor: false, share: false, early: true });
  });

  it("--only gateway measures part 7 alone and puts it into the figures an earlier run saved", async () => {
    const { results, saved, out, after, before, markdown } = await runAlone("gateway");
    expectGatewayConsistent(results.gateway);
    expect({ ...after, gateway: undefined }).toEqual({ ...before, gateway: undefined });
    expect(after.gateway?.command).toBe(`npm run bench -- --quick --only gateway --json ${saved} --out ${out}`);
    expect(markdown).toMatch(/## 7\. The conformance suite through an API gateway[\s\S]*--only listAgents/);
    await expect(runBench(["--only", "scale"], () => undefined)).rejects.toThrow(/--only takes gateway/);
  }, 60_000);
});

describe.concurrent("part 11's arithmetic", () => {
  it("reads the mock's round trips from its metrics, every series summed", () => {
    const text = [
      "# HELP apm_store_round_trips_total Round trips to Redis",
      "# TYPE apm_store_round_trips_total counter",
      'apm_store_round_trips_total{process="1"} 12',
      'apm_store_round_trips_total{process="2"} 30',
      "apm_store_round_trips_total_created 1700000000",
    ].join("\n");
    expect(parseRoundTrips(text)).toBe(42);
    expect(parseRoundTrips("apm_store_round_trips_total 7\n")).toBe(7);
    expect(parseRoundTrips("apm_requests_total 7\n")).toBeUndefined();
  });

  it("takes the ceilings from one busy process's CPU and redis-server's", () => {
    const cell = { mockCpuMs: 0.1, redisCpuMs: 0.025 };
    const figures = {
      workers: [{ scenario: "GET /v1/calls/{callId}", one: cell }],
      roundTrips: [{ scenario: "GET /v1/calls/{callId}", sent: 2 }],
      redisBenchmark: { getPerSec: 100_000 },
    } as unknown as SharingFigures;
    const a = arithmetic(figures, "GET /v1/calls/{callId}");
    expect([a.c, a.r, a.o, a.perMaster]).toEqual([100, 25, 2, 40_000]);
    // 8 cores at 100 µs: 80,000 req/s; Redis at 25 µs a request needs 2 masters, at 2 GETs' worth 2 as well.
    expect(a.cores.find((k) => k.n === 8)).toEqual({ n: 8, rps: 80_000, byCpu: 2, byOps: 2 });
    expect(a.cores.map((k) => k.n)).toEqual(CORES);
    // Without redis-benchmark: no bound by operations.
    expect(arithmetic({ ...figures, redisBenchmark: undefined }, "GET /v1/calls/{callId}").cores[0].byOps).toBeNaN();
  });
});

describe.concurrent("npm run bench -- --quick", () => {
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
    // may or may not fall in ten requests, so they are numbers, perhaps 0), and a read sends Redis at most
    // 4 commands (the registry's sync and its workspace's, sent together; its journal entry and its
    // coverage, not awaited: part 11 counts what is), a write one more, its commit (one process, requests
    // one after the other).
    const store = r.sharedStore!;
    expect(store.rows.map((row) => row.scenario)).toEqual(STORE_SCENARIOS);
    for (const row of store.rows) {
      for (const { id } of STORE_TARGETS) {
        const cell = row.cells[id];
        expect(cell.requests, `${row.scenario} ${id}`).toBeGreaterThan(0);
        expect(cell.errors, `${row.scenario} ${id}: ${JSON.stringify(cell.unexpected)}`).toBe(0);
        expect([cell.rps, cell.p50, cell.p99, cell.mockCpuMs].every(finite), `${row.scenario} ${id}`).toBe(true);
        if (id !== "memory")
          expect([cell.redisCpuMs, cell.scriptCallsPerRequest].every(finite), `${row.scenario} ${id}`).toBe(true);
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
      expect(t.sent, t.operation).toBeLessThanOrEqual(t.kind === "read" ? 4 : 5);
    }
    expect(store.roundTrips.filter((t) => t.kind === "read").map((t) => t.operation)).toEqual([
      "GET /v1/calls?size=20",
      "GET /v1/calls/{callId}",
    ]);
    // Part 7: each case through the gateway with --only listAgents, all at once.
    expectGatewayConsistent(r.gateway);
    expectUpstreamFigures(r.upstream);
    expectExercisedFigures(r.exercised);
    expectDashboardFigures(r.dashboard);
    expectSharingFigures(r.sharing);
    // CPU ratios may read n/a here: ten requests can use less than one 10 ms tick of CPU time.
    const markdown = renderResults(r, "/nonexistent");
    expect(markdown).not.toMatch(/NaN|undefined/);
    expect(markdown).toMatch(/## 6\. Shared store[\s\S]*\| GET \/v1\/calls\?size=20 \| 4\.00 \|[\s\S]*### Scaling/);
    expect(markdown).toMatch(/## 7\. The conformance suite through an API gateway[\s\S]*\| clean: no noise \|/);
    // Parts 8 to 11 run alone too (--only: one code path for every part, which part 7's test runs): here,
    // each section in its place in RESULTS.md, before the profiling notes.
    const whole = renderMarkdown(r);
    expect(whole).toMatch(
      /## 8\. The upstream door[\s\S]*## 9\. What was exercised: coverage and the HAR journal[\s\S]*## 10\. The dashboard's cost[\s\S]*## 11\. Sharing one mock[\s\S]*## Profiling/,
    );
    expect(renderSharing(r.sharing)).not.toMatch(/NaN|undefined/);
  }, 300_000);
});
