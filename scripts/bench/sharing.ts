/**
 * Part 11: sharing one mock (issue 27): what a request costs on Redis against in memory, and how far
 * processes on Redis go. The issue's goals, printed against the figures, never asserted: per request on
 * Redis at most 1.5x the mock's CPU time in memory, and at most 1 Redis round trip on a read's response
 * path. The mock as `npm start` runs it (targets.ts) with part 6's flags, each store target on a
 * redis-server of its own started here on loopback (no persistence), for three requests: a read of one
 * record, a read of a page, a write.
 *   (1) CPU per request at a fixed rate (autocannon's overallRate, the same rate for both): one process in
 *       memory against one on Redis; the mock's CPU time from /proc per request answered, redis-server's
 *       beside it; rounds take the two in turn, the figures are their medians.
 *   (2) Round trips on the response path, from a client's view: the mock's store reaches its
 *       redis-server through a delay line (redis-stats.ts's RedisDelayLine) that holds each reply for D
 *       ms. Requests one at a time, without the delay and then with it: the median's growth over D is
 *       how many round trips the answer waited for, one after the other. A command sent without waiting
 *       for it (a journal write taken off the response path) adds nothing. Beside it, every command the
 *       mock sent per request (MONITOR, awaited or not), and the mock's own count
 *       (`apm_store_round_trips_total` of /__mock/metrics) when it has one.
 *   (3) `--workers 1` and `--workers 2` on Redis at the most requests per second (part 1's load):
 *       requests per second and CPU per request, summed over the mock's processes (shared-store.ts's
 *       measureCell, the primary and its workers).
 *   (4) RESULTS.md's arithmetic for N cores of mock and a K-master Cluster, from (2) and (3) and
 *       redis-benchmark's GET on the same machine when it is installed.
 *   (5) (1)'s runs on a Redis Cluster of 3 masters (mock-server/test/redis-cluster.ts, `--store` naming its
 *       nodes), redis-server's CPU summed over the nodes; when the mock cannot run on it, the reason.
 */
import { execFile } from "node:child_process";
import os from "node:os";
import { promisify } from "node:util";
import { startRedis, type RedisServer } from "../../mock-server/test/redis.js";
import { startRedisCluster, type RedisCluster } from "../../mock-server/test/redis-cluster.js";
import { cpuMsOf, type Child } from "./children.js";
import { median } from "./exercised.js";
import { atFixedRate, exchange, type BenchRequest, type LoadOptions } from "./load.js";
import { f0, f2, table } from "./markdown.js";
import { RedisDelayLine, RedisProbe } from "./redis-stats.js";
import { buildScenarios } from "./scenarios.js";
import {
  formatSentBy,
  MOCK_ARGS,
  measureCell,
  startTarget,
  type StoreCell,
  type StoreTargetId,
  type Target,
} from "./shared-store.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";

export interface SharingPlan {
  /** (1): rounds, the two targets in turn in each; `rate` requests per second over `rateConnections`, `rateSec` long. */
  rounds: number;
  rate: number;
  rateConnections: number;
  rateSec: number;
  /** (2): how long the delay line holds each reply, and the requests of each operation timed with and without it. */
  delayMs: number;
  sequential: number;
  /** (4): requests of redis-benchmark's GET (0: not run). */
  benchmarkRequests: number;
  /** (5): the masters of the Cluster (0: not run). */
  clusterMasters: number;
}

/** The requests measured (scenarios.ts's names): a read of one record, a read of a page, a write. */
export const SHARING_SCENARIOS = [
  { scenario: "GET /v1/calls/{callId}", kind: "read" },
  { scenario: "GET /v1/calls?page=0&size=10", kind: "read" },
  { scenario: "PATCH /v1/integrations/{integrationId}", kind: "write" },
] as const;
export type SharingKind = (typeof SHARING_SCENARIOS)[number]["kind"];

/** The issue's goals: the mock's CPU per request on Redis over in memory, and round trips a read waits for. */
export const CPU_GOAL = 1.5;
export const ROUND_TRIP_GOAL = 1;
/** (2): requests of each operation before timing (the first may load a script or copy a whole workspace). */
const SEQUENTIAL_WARMUP = 3;
/** (4): the cores of mock the arithmetic is written out for. */
export const CORES = [2, 8, 32, 128];

export interface CpuRun {
  rate: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  /** CPU µs per request answered: the mock's process, and (on Redis) redis-server. */
  mockCpuUs: number;
  redisCpuUs?: number;
}

export interface CpuRow {
  scenario: string;
  kind: SharingKind;
  memory: CpuRun[];
  redis: CpuRun[];
}

export interface RoundTripRow {
  scenario: string;
  kind: SharingKind;
  /** Requests timed without the delay and with it (each). */
  requests: number;
  /** Answers other than the expected status, over every window. */
  errors: number;
  /** Median ms of one request at a time: replies passed straight through, then held for the plan's delayMs. */
  baseMs: number;
  delayedMs: number;
  /**
   * What the delay adds to one round trip as measured: the growth of the median of a PING of the bench's
   * own through the same line, timed beside each request (a held reply comes out when a timer fires, a
   * little after delayMs on a busy machine).
   */
  oneTripMs: number;
  /** (delayedMs - baseMs) / oneTripMs: the round trips the answer waited for, one after the other. */
  awaited: number;
  /** Commands the mock sent per request (MONITOR, its scripts' own commands left out), awaited or not. */
  sent: number;
  sentBy: Record<string, number>;
  /** The mock's own count per request (`apm_store_round_trips_total`); absent when it has none. */
  counted?: number;
}

export interface WorkersRow {
  scenario: string;
  kind: SharingKind;
  /** One process in memory; --workers 1 (one process) and --workers 2 (a primary and two workers), each on its own redis-server. */
  memory: StoreCell;
  one: StoreCell;
  two: StoreCell;
}

/** (5): (1)'s runs on a Redis Cluster, against (1)'s in memory; or why not. */
export interface ClusterFigures {
  masters: number;
  rows: { scenario: string; kind: SharingKind; runs: CpuRun[] }[];
  /** Why the mock could not be measured on the Cluster (it did not start, or answered errors). */
  reason?: string;
}

export interface SharingFigures {
  command: string;
  date: string;
  durationSec: number;
  loadBefore: number[];
  loadAfter: number[];
  cores: number;
  load: LoadOptions;
  plan: SharingPlan;
  redisVersion: string;
  cpu: CpuRow[];
  roundTrips: RoundTripRow[];
  workers: WorkersRow[];
  /** (5); absent when not run. */
  cluster?: ClusterFigures;
  /** redis-benchmark's GET on a redis-server of its own (8 clients, no pipelining); absent when not run. */
  redisBenchmark?: { command: string; getPerSec: number };
}

type Scenarios = Map<string, BenchRequest>;

/** (3)'s targets, in the order they run for each request. */
export const MOST_TARGETS = [
  { id: "memory", label: "in memory" },
  { id: "one", label: "--workers 1, Redis" },
  { id: "two", label: "--workers 2, Redis" },
] as const;
type MostId = (typeof MOST_TARGETS)[number]["id"];

/** (3)'s ratio: one process's CPU per request on Redis over in memory, each at the most it answers. */
export const mostRatio = (row: WorkersRow) => row.one.mockCpuMs / row.memory.mockCpuMs;

async function scenariosOf(url: string): Promise<Scenarios> {
  return new Map((await buildScenarios(url, MOCK_API_KEY)).map((s) => [s.name, s.request]));
}

/** (1): one run at `rate` after the load's warm-up at the same rate; CPU of the mock and of redis-server over it. */
async function cpuRun(
  target: { mock: Child; redisPids: number[] },
  request: BenchRequest,
  load: LoadOptions,
  plan: SharingPlan,
): Promise<CpuRun> {
  const pace = { rate: plan.rate, connections: plan.rateConnections };
  if (load.warmupSec > 0) await atFixedRate(target.mock.url, request, load, { ...pace, durationSec: load.warmupSec });
  const redisCpu = () => target.redisPids.reduce((sum, pid) => sum + (cpuMsOf(pid) ?? Number.NaN), 0);
  const mockBefore = cpuMsOf(target.mock.process.pid) ?? Number.NaN;
  const redisBefore = redisCpu();
  const run = await atFixedRate(target.mock.url, request, load, { ...pace, durationSec: plan.rateSec });
  const perRequest = (ms: number) => (run.requests > 0 ? (ms * 1000) / run.requests : Number.NaN);
  return {
    ...run,
    mockCpuUs: perRequest((cpuMsOf(target.mock.process.pid) ?? Number.NaN) - mockBefore),
    ...(target.redisPids.length > 0 && { redisCpuUs: perRequest(redisCpu() - redisBefore) }),
  };
}

/** (5): the mock on a fresh Cluster, (1)'s runs for each request; the reason when it cannot run there. */
async function measureCluster(
  load: LoadOptions,
  plan: SharingPlan,
  log: (line: string) => void,
  kit?: string,
): Promise<ClusterFigures | undefined> {
  if (plan.clusterMasters <= 0) return undefined;
  const figures: ClusterFigures = { masters: plan.clusterMasters, rows: [] };
  let cluster: RedisCluster | undefined;
  let mock: Child | undefined;
  try {
    cluster = await startRedisCluster({ masters: plan.clusterMasters });
    mock = await startMockTarget({
      name: "mock (--store, a Redis Cluster)",
      root: kit,
      args: [...MOCK_ARGS, "--store", cluster.url],
    });
    const scenarios = await scenariosOf(mock.url);
    const target = { mock, redisPids: cluster.nodes.map((node) => node.pid) };
    for (const { scenario, kind } of SHARING_SCENARIOS) figures.rows.push({ scenario, kind, runs: [] });
    for (let round = 0; round < plan.rounds; round++)
      for (const row of figures.rows) {
        const run = await cpuRun(target, scenarios.get(row.scenario)!, load, plan);
        row.runs.push(run);
        log(
          `  at ${plan.rate}/s, ${row.scenario.padEnd(40)} cluster ${f0(run.rate)} req/s  mock ${f0(run.mockCpuUs)} µs CPU/req  redis ${f0(run.redisCpuUs ?? Number.NaN)} (${plan.clusterMasters} nodes)  p50 ${f2(run.p50)} ms  errors ${run.errors}`,
        );
      }
    const errors = figures.rows.reduce((sum, row) => sum + row.runs.reduce((n, r) => n + r.errors, 0), 0);
    if (errors > 0) figures.reason = `${errors} answers other than the expected status`;
  } catch (error) {
    // The mock may not run on a Cluster yet (keys of several slots in one script): the section says why.
    figures.reason = (error as Error).message.replace(/\s+/g, " ").trim().slice(0, 400) || "failed";
    log(`  on a Cluster of ${plan.clusterMasters} masters: not measured: ${figures.reason}`);
  } finally {
    await mock?.stop();
    await cluster?.stop();
  }
  return figures;
}

/** The mock's `apm_store_round_trips_total` (every series summed), or undefined when /__mock/metrics has none. */
export async function storeRoundTrips(url: string): Promise<number | undefined> {
  const res = await fetch(`${url}/__mock/metrics`).catch(() => undefined);
  if (!res?.ok) return undefined;
  return parseRoundTrips(await res.text());
}

export function parseRoundTrips(text: string): number | undefined {
  const values = [...text.matchAll(/^apm_store_round_trips_total(?:\{[^}]*\})? (\S+)/gm)].map((m) => Number(m[1]));
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

/** Milliseconds of each of `n` requests sent one at a time, and the answers other than the expected status. */
async function timed(url: string, request: BenchRequest, n: number): Promise<{ ms: number[]; errors: number }> {
  const ms: number[] = [];
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const { status } = await exchange(url, request);
    ms.push(performance.now() - started);
    if (status !== request.expect) errors++;
  }
  return { ms, errors };
}

/** (2): a one-process mock whose store reaches a fresh redis-server through a delay line. */
async function measureRoundTrips(
  plan: SharingPlan,
  log: (line: string) => void,
  kit?: string,
): Promise<{ rows: RoundTripRow[]; redisVersion: string }> {
  const redis = await startRedis();
  let probe: RedisProbe | undefined;
  let pinger: RedisProbe | undefined;
  let line: RedisDelayLine | undefined;
  let mock: Child | undefined;
  try {
    probe = await RedisProbe.connect(redis.url);
    line = await RedisDelayLine.start(redis.port);
    pinger = await RedisProbe.connect(line.url);
    mock = await startMockTarget({
      name: "mock (--store through a delay line)",
      root: kit,
      args: [...MOCK_ARGS, "--store", line.url],
    });
    const scenarios = await scenariosOf(mock.url);
    const rows: RoundTripRow[] = [];
    for (const { scenario, kind } of SHARING_SCENARIOS) {
      const request = scenarios.get(scenario)!;
      line.delayMs = 0;
      let errors = (await timed(mock.url, request, SEQUENTIAL_WARMUP)).errors;
      // Every command sent, in a window of its own (MONITOR slows Redis down a little), with the mock's own count.
      const countedBefore = await storeRoundTrips(mock.url);
      const sent = await probe.commandsSentDuring(
        async () => void (errors += (await timed(mock!.url, request, plan.sequential)).errors),
      );
      const countedAfter = await storeRoundTrips(mock.url);
      // Without the delay and with it in turn, so that the machine's load drifts over both alike.
      const base = { ms: [] as number[], errors: 0, ping: [] as number[] };
      const delayed = { ms: [] as number[], errors: 0, ping: [] as number[] };
      for (let i = 0; i < plan.sequential; i++)
        for (const [delayMs, into] of [
          [0, base],
          [plan.delayMs, delayed],
        ] as const) {
          line.delayMs = delayMs;
          const one = await timed(mock.url, request, 1);
          into.ms.push(one.ms[0]);
          into.errors += one.errors;
          into.ping.push(await pinger.ping());
          // Replies still held (of a command nobody awaited) would hold up the next request's.
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs + 5));
        }
      line.delayMs = 0;
      errors += base.errors + delayed.errors;
      const sentBy: Record<string, number> = {};
      for (const name of sent) sentBy[name] = (sentBy[name] ?? 0) + 1 / plan.sequential;
      const [baseMs, delayedMs] = [median(base.ms), median(delayed.ms)];
      const oneTripMs = median(delayed.ping) - median(base.ping);
      const row: RoundTripRow = {
        scenario,
        kind,
        requests: plan.sequential,
        errors,
        baseMs,
        delayedMs,
        oneTripMs,
        awaited: (delayedMs - baseMs) / oneTripMs,
        sent: sent.length / plan.sequential,
        sentBy,
        ...(countedBefore !== undefined &&
          countedAfter !== undefined && { counted: (countedAfter - countedBefore) / plan.sequential }),
      };
      rows.push(row);
      log(
        `  ${scenario.padEnd(40)} ${f2(baseMs)} ms, ${f2(delayedMs)} ms with ${plan.delayMs} ms a reply (a PING +${f2(oneTripMs)} ms): ${f2(row.awaited)} round trips waited for; sent ${f2(row.sent)} a request (${formatSentBy(sentBy)}); the mock's count ${row.counted === undefined ? "n/a" : f2(row.counted)}; errors ${errors}`,
      );
    }
    return { rows, redisVersion: await probe.version() };
  } finally {
    await probe?.close();
    await pinger?.close();
    await mock?.stop();
    await line?.close();
    await redis.stop();
  }
}

/** redis-benchmark's GET against a fresh redis-server: single commands, 8 clients, no pipelining. */
async function benchmarkRedis(
  requests: number,
  log: (line: string) => void,
): Promise<SharingFigures["redisBenchmark"]> {
  if (requests <= 0) return undefined;
  const redis = await startRedis();
  try {
    const args = ["-h", "127.0.0.1", "-p", String(redis.port), "-q", "-t", "get", "-n", String(requests), "-c", "8"];
    const { stdout } = await promisify(execFile)("redis-benchmark", args).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return { stdout: "" };
      throw error;
    });
    const getPerSec = Number(/GET: ([\d.]+) requests per second/.exec(stdout)?.[1] ?? Number.NaN);
    if (!stdout) log("  redis-benchmark not found: no per-master figure of its own");
    else log(`  redis-benchmark GET: ${f0(getPerSec)} requests per second`);
    return stdout ? { command: `redis-benchmark -q -t get -n ${requests} -c 8`, getPerSec } : undefined;
  } finally {
    await redis.stop();
  }
}

const cpuMedians = (runs: CpuRun[]) => ({
  mockCpuUs: median(runs.map((r) => r.mockCpuUs)),
  redisCpuUs: median(runs.map((r) => r.redisCpuUs ?? Number.NaN)),
  rate: median(runs.map((r) => r.rate)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((sum, r) => sum + r.errors, 0),
});

/** (1)'s ratio: the mock's CPU per request on Redis over in memory, and with redis-server's CPU added. */
export function cpuRatio(row: CpuRow): { mock: number; withRedis: number } {
  const [memory, redis] = [cpuMedians(row.memory), cpuMedians(row.redis)];
  return {
    mock: redis.mockCpuUs / memory.mockCpuUs,
    withRedis: (redis.mockCpuUs + redis.redisCpuUs) / memory.mockCpuUs,
  };
}

export async function measureSharing(
  command: string,
  load: LoadOptions,
  plan: SharingPlan,
  log: (line: string) => void,
  /** The kit whose mock is measured: this checkout by default, REV's worktree under --against (against.ts). */
  kit?: string,
): Promise<SharingFigures> {
  const started = performance.now();
  const loadBefore = os.loadavg();
  const { rows: roundTrips, redisVersion } = await measureRoundTrips(plan, log, kit);

  const running = { children: [] as Child[], redis: [] as RedisServer[], probes: [] as RedisProbe[] };
  const stopAll = async () => {
    await Promise.all(running.probes.splice(0).map((p) => p.close()));
    await Promise.all(running.children.splice(0).map((c) => c.stop()));
    await Promise.all(running.redis.splice(0).map((r) => r.stop()));
  };
  const cpu: CpuRow[] = SHARING_SCENARIOS.map(({ scenario, kind }) => ({ scenario, kind, memory: [], redis: [] }));
  const workers: WorkersRow[] = [];
  try {
    // (1): in memory against --store redis, one process each.
    const targets = {} as Record<
      "memory" | "redis",
      { target: { mock: Child; redisPids: number[] }; scenarios: Scenarios }
    >;
    for (const id of ["memory", "redis"] as const) {
      const { mock, redis } = await startTarget(id, running, kit);
      targets[id] = { target: { mock, redisPids: redis ? [redis.pid] : [] }, scenarios: await scenariosOf(mock.url) };
    }
    for (let round = 0; round < plan.rounds; round++)
      for (const row of cpu)
        for (const id of ["memory", "redis"] as const) {
          const { target, scenarios } = targets[id];
          const run = await cpuRun(target, scenarios.get(row.scenario)!, load, plan);
          row[id].push(run);
          log(
            `  at ${plan.rate}/s, ${row.scenario.padEnd(40)} ${id.padEnd(6)} ${f0(run.rate)} req/s  mock ${f0(run.mockCpuUs)} µs CPU/req  redis ${run.redisCpuUs === undefined ? "n/a" : f0(run.redisCpuUs)}  p50 ${f2(run.p50)} ms  errors ${run.errors}`,
          );
        }
    for (const row of cpu) {
      const ratio = cpuRatio(row);
      log(`  ${row.scenario.padEnd(40)} CPU on Redis / in memory ${f2(ratio.mock)}x (goal at most ${CPU_GOAL}x)`);
    }
    await stopAll();

    // (3): in memory, --workers 1 and 2 on Redis, at the most requests per second.
    const cells = {} as Record<MostId, { target: Target; scenarios: Scenarios }>;
    for (const [key, id] of [
      ["memory", "memory"],
      ["one", "redis"],
      ["two", "workers"],
    ] as const satisfies readonly (readonly [MostId, StoreTargetId])[]) {
      const target = await startTarget(id, running, kit);
      cells[key] = { target, scenarios: await scenariosOf(target.mock.url) };
    }
    for (const { scenario, kind } of SHARING_SCENARIOS) {
      const measure = (key: MostId) => measureCell(cells[key].target, cells[key].scenarios.get(scenario)!, load);
      const row = {
        scenario,
        kind,
        memory: await measure("memory"),
        one: await measure("one"),
        two: await measure("two"),
      };
      workers.push(row);
      for (const { id, label } of MOST_TARGETS) {
        const cell = row[id];
        log(
          `  ${scenario.padEnd(40)} ${label.padEnd(20)} ${f0(cell.rps)} req/s  mock ${f0(cell.mockCpuMs * 1000)} µs CPU/req over ${cell.mockProcesses} process(es)  redis ${f0((cell.redisCpuMs ?? Number.NaN) * 1000)} µs  errors ${cell.errors}`,
        );
      }
      log(`  ${scenario.padEnd(40)} at the most, CPU on Redis / in memory ${f2(mostRatio(row))}x`);
    }
  } finally {
    await stopAll();
  }
  const cluster = await measureCluster(load, plan, log, kit);
  const redisBenchmark = await benchmarkRedis(plan.benchmarkRequests, log);
  return {
    command,
    date: new Date().toISOString(),
    durationSec: (performance.now() - started) / 1000,
    loadBefore,
    loadAfter: os.loadavg(),
    cores: os.cpus().length,
    load,
    plan,
    redisVersion,
    cpu,
    roundTrips,
    workers,
    ...(cluster && { cluster }),
    ...(redisBenchmark && { redisBenchmark }),
  };
}

const verdict = (met: boolean | undefined) => (met === undefined ? "n/a" : met ? "met" : "**missed**");
const cpuMet = (ratio: number) => (Number.isFinite(ratio) ? ratio <= CPU_GOAL : undefined);
/** A read meets the goal when its estimate rounds to at most ROUND_TRIP_GOAL (the estimate is a difference of medians). */
const roundTripsMet = (row: RoundTripRow) =>
  row.kind !== "read" || !Number.isFinite(row.awaited) ? undefined : Math.round(row.awaited) <= ROUND_TRIP_GOAL;
const range = (xs: number[]) => `${f0(Math.min(...xs))}–${f0(Math.max(...xs))}`;
const us = (ms: number | undefined) => (ms === undefined ? Number.NaN : ms * 1000);

/** (4)'s figures for one request: what a process and a master spend on it, and the ceilings they make. */
export function arithmetic(s: SharingFigures, scenario: string) {
  const workers = s.workers.find((row) => row.scenario === scenario);
  const trips = s.roundTrips.find((row) => row.scenario === scenario);
  /** Mock CPU µs per request of one busy process on Redis, and redis-server's. */
  const c = us(workers?.one.mockCpuMs);
  const r = us(workers?.one.redisCpuMs);
  const o = trips?.sent ?? Number.NaN;
  const g = s.redisBenchmark?.getPerSec ?? Number.NaN;
  return {
    c,
    r,
    o,
    perMaster: 1e6 / r,
    cores: CORES.map((n) => {
      const rps = (n * 1e6) / c;
      return { n, rps, byCpu: Math.ceil((rps * r) / 1e6), byOps: Math.ceil((rps * o) / g) };
    }),
  };
}

/** The section's first words: each request against the goals, and what the second worker brought. */
function inShort(s: SharingFigures): string {
  const parts = SHARING_SCENARIOS.map(({ scenario, kind }) => {
    const cpu = s.cpu.find((row) => row.scenario === scenario);
    const trips = s.roundTrips.find((row) => row.scenario === scenario);
    const ratio = cpu ? cpuRatio(cpu).mock : Number.NaN;
    const most = s.workers.find((row) => row.scenario === scenario);
    const atMost = most
      ? `, ${f2(mostRatio(most))}x at the most requests per second (${verdict(cpuMet(mostRatio(most)))})`
      : "";
    const waited = trips
      ? `, ${f2(trips.awaited)} round trips waited for${kind === "read" ? ` (goal at most ${ROUND_TRIP_GOAL}: ${verdict(roundTripsMet(trips))})` : ""}`
      : "";
    return `${scenario}: the mock's CPU on Redis ${f2(ratio)}x in memory at ${s.plan.rate}/s (goal at most ${CPU_GOAL}x: ${verdict(cpuMet(ratio))})${atMost}${waited}`;
  });
  const workers = s.workers.map((row) => `${row.scenario} ${f0(row.one.rps)} → ${f0(row.two.rps)} req/s`).join(", ");
  return `**In short** (medians): ${parts.join("; ")}. From --workers 1 to --workers 2 on this ${s.cores}-core machine: ${workers}.`;
}

/** (5)'s subsection: the Cluster's runs beside (1)'s medians, or why there are none. */
function renderCluster(s: SharingFigures): string {
  const c = s.cluster;
  if (!c) return "";
  const head = `### (5) The same on a Redis Cluster of ${c.masters} masters

(1)'s runs (${s.plan.rate}/s, ${s.plan.rounds} round${s.plan.rounds === 1 ? "" : "s"}, medians) against one mock process whose \`--store\` names the nodes of a fresh Cluster of ${c.masters} masters
without replicas (\`startRedisCluster\`, mock-server/test/redis-cluster.ts: redis-server in cluster mode on loopback, joined by
\`redis-cli --cluster create\`), all on this machine's ${s.cores} cores; redis-server's CPU summed over the nodes. In memory and on one Redis: (1)'s figures.`;
  const why = c.reason ? `\n\n**Not measured whole**: ${c.reason.replace(/[.:]$/, "")}.` : "";
  if (c.rows.every((row) => row.runs.length === 0)) return `${head}${why}\n`;
  const rows = c.rows.map((row) => {
    const one = s.cpu.find((r) => r.scenario === row.scenario);
    const [memory, redis] = one ? [cpuMedians(one.memory), cpuMedians(one.redis)] : [undefined, undefined];
    const m = cpuMedians(row.runs);
    const ratio = m.mockCpuUs / (memory?.mockCpuUs ?? Number.NaN);
    return [
      row.scenario,
      f0(memory?.mockCpuUs ?? Number.NaN),
      f0(redis?.mockCpuUs ?? Number.NaN),
      `${f0(m.mockCpuUs)} (${range(row.runs.map((r) => r.mockCpuUs))})`,
      f0(m.redisCpuUs),
      `${f2(ratio)}x (at most ${CPU_GOAL}x: ${verdict(cpuMet(ratio))})`,
      f2(m.p50),
      f0(m.rate),
      String(m.errors),
    ];
  });
  const cells = table(
    [
      "request",
      "in memory: mock CPU µs per request",
      "one Redis: mock CPU µs per request",
      "Cluster: mock CPU µs per request (min–max)",
      "Cluster: redis-server CPU µs per request, all nodes",
      "Cluster / in memory (goal)",
      "p50 ms",
      "req/s reached",
      "errors",
    ],
    rows,
  );
  return `${head}${why}\n\n${cells}\n`;
}

/** A warning when answers waited for more round trips than the mock counts: something waits for a command it sends without counting. */
function uncounted(rows: RoundTripRow[]): string {
  const more = rows.filter((row) => row.counted !== undefined && row.awaited - row.counted >= 0.5);
  if (more.length === 0) return "";
  const which = more.map((row) => `${row.scenario} ${f2(row.awaited)} against ${f2(row.counted!)}`).join(", ");
  return `\n**The answers waited for more round trips than the mock counts** (${which}): something on the response path waits for a
command the store sends as off that path (a journal or coverage write).`;
}

/** The section of RESULTS.md; empty when no run measured this part. */
export function renderSharing(s: SharingFigures | undefined): string {
  if (!s) return "";
  const { plan, load } = s;
  const warm = load.amount ? "" : `${load.warmupSec} s warm-up at the same rate, then `;
  const runLength = load.amount ? `${load.amount} requests` : `${plan.rateSec} s`;
  const most = load.amount
    ? `${load.amount} requests`
    : `${load.warmupSec} s warm-up then ${load.durationSec} s measured`;
  const cpu = table(
    [
      "request",
      "in memory: mock CPU µs per request (min–max)",
      "on Redis: mock CPU µs per request (min–max)",
      "on Redis: redis-server CPU µs per request",
      "Redis / in memory (goal)",
      "with redis-server's CPU added",
      "p50 ms in memory / on Redis",
      "req/s reached",
      "errors",
    ],
    s.cpu.map((row) => {
      const [memory, redis] = [cpuMedians(row.memory), cpuMedians(row.redis)];
      const ratio = cpuRatio(row);
      return [
        row.scenario,
        `${f0(memory.mockCpuUs)} (${range(row.memory.map((r) => r.mockCpuUs))})`,
        `${f0(redis.mockCpuUs)} (${range(row.redis.map((r) => r.mockCpuUs))})`,
        f0(redis.redisCpuUs),
        `${f2(ratio.mock)}x (at most ${CPU_GOAL}x: ${verdict(cpuMet(ratio.mock))})`,
        `${f2(ratio.withRedis)}x`,
        `${f2(memory.p50)} / ${f2(redis.p50)}`,
        `${f0(memory.rate)} / ${f0(redis.rate)}`,
        String(memory.errors + redis.errors),
      ];
    }),
  );
  const trips = table(
    [
      "request",
      "ms a request, replies passed on at once",
      `ms a request, each reply held ${plan.delayMs} ms`,
      "a PING's round trip, held",
      "round trips waited for (difference / a PING's growth)",
      `goal for a read: at most ${ROUND_TRIP_GOAL}`,
      "commands the mock sent per request (awaited or not)",
      "by command",
      "the mock's own count per request",
      "errors",
    ],
    s.roundTrips.map((row) => [
      row.scenario,
      f2(row.baseMs),
      f2(row.delayedMs),
      `+${f2(row.oneTripMs)} ms`,
      f2(row.awaited),
      row.kind === "read" ? verdict(roundTripsMet(row)) : "- (a write)",
      f2(row.sent),
      formatSentBy(row.sentBy),
      row.counted === undefined ? "n/a" : f2(row.counted),
      `${row.errors} of ${row.requests * 3}`,
    ]),
  );
  const workers = table(
    [
      "request",
      "target",
      "req/s",
      "p50 / p99 ms",
      "mock CPU µs per request (its processes)",
      "redis-server CPU µs per request",
      "script calls per request",
      "one process: Redis / in memory (goal)",
      "errors",
    ],
    s.workers.flatMap((row) =>
      MOST_TARGETS.map(({ id, label }) => ({ id, label, cell: row[id] })).map(({ id, label, cell }) => [
        row.scenario,
        label,
        f0(cell.rps),
        `${f2(cell.p50)} / ${f2(cell.p99)}`,
        cell.mockProcesses > 1
          ? `${f0(us(cell.mockCpuMs))} (${cell.mockProcesses}: ${cell.mockCpuMsByProcess.map((ms) => f0(us(ms))).join(" + ")})`
          : f0(us(cell.mockCpuMs)),
        id === "memory" ? "-" : f0(us(cell.redisCpuMs)),
        id === "memory" ? "-" : f2(cell.scriptCallsPerRequest ?? Number.NaN),
        id === "one" ? `${f2(mostRatio(row))}x (at most ${CPU_GOAL}x: ${verdict(cpuMet(mostRatio(row)))})` : "-",
        `${cell.errors} of ${cell.requests}`,
      ]),
    ),
  );
  const g = s.redisBenchmark?.getPerSec;
  const ceilings = table(
    [
      "request",
      "c: mock CPU µs per request",
      "r: redis-server CPU µs per request",
      "o: commands sent per request",
      "one master's ceiling, 10⁶ / r",
      ...CORES.map((n) => `${n} cores: 10⁶ N / c req/s; K by r, by o`),
    ],
    SHARING_SCENARIOS.map(({ scenario }) => {
      const a = arithmetic(s, scenario);
      return [
        scenario,
        f0(a.c),
        f0(a.r),
        f2(a.o),
        `${f0(a.perMaster)} req/s`,
        ...a.cores.map((k) => `${f0(k.rps)}; K ≥ ${f0(k.byCpu)}, ${Number.isFinite(k.byOps) ? f0(k.byOps) : "n/a"}`),
      ];
    }),
  );
  const benchmark = s.redisBenchmark
    ? `\`${s.redisBenchmark.command}\` against a redis-server of its own here: G = ${f0(g ?? Number.NaN)} GETs per second`
    : "no redis-benchmark was found, so G and the K by o are n/a";
  return `## 11. Sharing one mock: Redis against in memory, round trips, \`--workers\`

Generated by \`${s.command}\` on ${s.date} in ${f0(s.durationSec)} s; load average before / after: ${s.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${s.loadAfter.map((n) => n.toFixed(2)).join(", ")}.
\`scripts/bench/sharing.ts\`. The goals (issue 27): per request on Redis, the mock's CPU time at most ${CPU_GOAL}x what it is in memory, and at
most ${ROUND_TRIP_GOAL} Redis round trip on a read's response path; nothing here asserts them. The mock as \`npm start\` runs it (\`node dist/mock-server/main.js\`,
\`NODE_ENV\` unset, \`--log-format off\`) with \`--clock virtual\`, each store target on a fresh redis-server (${s.redisVersion}, no persistence) that the bench
starts on 127.0.0.1; ${SHARING_SCENARIOS.length} requests: a read of one record, a read of a page, a write (part 1's). **This machine has ${s.cores} cores**: the load
generator, the mock's processes and redis-server share them. Rerun this part alone with \`npm run bench -- --only sharing\` (the other
parts' figures are kept from \`scripts/bench/results.json\`).

${inShort(s)}

### (1) CPU per request: one process on Redis against one in memory

At ${plan.rate} requests per second over ${plan.rateConnections} connections (autocannon's \`overallRate\`, the same rate for both), ${warm}${runLength}
measured; ${plan.rounds} round${plan.rounds === 1 ? "" : "s"}, the two targets in turn for each request; medians. CPU time from /proc (10 ms ticks) over the
run, per request answered: the mock's process, and redis-server's (what a request costs the store beside it; the goal is the mock's).

${cpu}

### (2) Redis round trips on a request's response path

Counted from a client's view: the mock reaches its redis-server (a fresh one, the mock on one process) through a relay that holds
each reply for ${plan.delayMs} ms (\`RedisDelayLine\` in \`scripts/bench/redis-stats.ts\`; requests pass at once, replies keep their order, each held
from when it arrived, so commands in flight together overlap their delays). ${plan.sequential} requests one at a time with replies passed on at once and
${plan.sequential} with them held, in turn (after ${SEQUENTIAL_WARMUP} not counted; a pause after each held one lets replies nobody awaited go through): a request that waits for k round trips one after the other before its answer takes k round trips' delay
longer, so the difference of the medians, over what the delay adds to one round trip, is the round trips on its response path. What
the delay adds to one round trip is measured too, not taken as ${plan.delayMs} ms: a PING of the bench's own through the same line after each request,
held or not as the request was (the growth of its median; a held reply comes out when a timer fires, a little late on a busy machine). A command the mock sends without waiting for it
(a journal write taken off the response path, an invalidation) adds nothing there, but counts in the commands sent: every command the
mock sent per request, awaited or not, seen with MONITOR (part 6's count, its scripts' own commands left out) in a window of its own. The mock's own count is
\`apm_store_round_trips_total\` from \`GET /__mock/metrics\` over that window (n/a when the mock has no such metric): the round trips its store's callers
wait for, as the store sees them (journal and coverage writes, which it sends without waiting, are not in it).${uncounted(s.roundTrips)}

${trips}

### (3) In memory, \`--workers 1\` and \`--workers 2\` on Redis, at the most requests per second

The most requests per second as part 1 loads (${load.connections} connections, ${most}), the targets in turn for each request, each store target on a
redis-server of its own; the mock's CPU time per request summed over its processes (for \`--workers 2\` the primary + both workers, in that
order). CPU per request depends on the load (a busy process shares each wake-up and each system call among more requests than one at
${plan.rate}/s), so the goal is read at both loads: (1)'s, and here one process on Redis against one in memory. On ${s.cores} cores the two workers
do not get a core each: autocannon and redis-server take their share, so the second worker's gain here is a floor, and CPU per request is
the figure that carries to other machines.

${workers}

### (4) The arithmetic for N cores of mock and a K-master Redis Cluster

From the figures above, measured on this machine: c and r from (3)'s \`--workers 1\` row (one busy process on Redis: its CPU time per request, and
redis-server's), o from (2) (commands the mock sent per request), and G from ${benchmark}. A mock process bound by its own CPU answers
10⁶ / c requests per second on a core, so N cores of mock (a process each, behind a balancer or \`--workers\`) answer at most 10⁶ N / c. A Redis
master runs commands on one thread: at r µs of its CPU per request it is full at 10⁶ / r requests per second, so that load needs
K ≥ (10⁶ N / c) × r / 10⁶ masters (by r); by operations, K ≥ o × (10⁶ N / c) / G (by o), a lower bound, as a script costs Redis more than a GET.
Both take the load spread over many workspaces: a workspace's keys share one hash tag, so one master, and one workspace's ceiling is
10⁶ / r however many masters there are; and writers of one workspace in several processes refuse each other's commits (part 6).
They also take the CPU per request measured at this load (Redis not saturated) as what a request costs at saturation, and leave out
the load balancer and the network between machines, which add to a request's time, not to either CPU figure.

${ceilings}
${s.cluster ? `\n${renderCluster(s)}` : ""}`;
}
