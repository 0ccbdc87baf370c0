/**
 * Part 6: the shared store (issue 14). The same load against three targets, each the compiled mock as
 * `npm start` runs it (NODE_ENV unset, so response validation is on) with `--clock virtual --log-format off`:
 *   (a) in memory, one process;
 *   (b) `--store redis://...`, one process, on a redis-server of its own started here;
 *   (c) `--store redis://... --workers 2` (node:cluster: a primary and two workers on one port), on
 *       another fresh redis-server.
 * For each: requests per second, p50/p99, the mock's CPU time per request summed over its processes
 * (read from /proc for the process and its descendants: the cluster's primary and both workers),
 * redis-server's own CPU time per request, and the script calls (EVALSHA/EVAL) the mock sent per request.
 * Then Redis round trips per operation: N requests one after the other to a one-process mock on a fresh
 * redis-server, counted with MONITOR and INFO commandstats (redis-stats.ts says what counts).
 * Every redis-server and mock is started here on a loopback ephemeral port and stopped before the end.
 */
import { startRedis, type RedisServer } from "../../mock-server/test/redis.js";
import { cpuMsOf, type Child } from "./children.js";
import { processTree } from "./installed.js";
import { exchange, measureLoad, type BenchRequest, type LoadOptions, type LoadResult, type Meter } from "./load.js";
import { callsBetween, RedisProbe } from "./redis-stats.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";

export const STORE_TARGETS = [
  { id: "memory", label: "(a) in memory, 1 process" },
  { id: "redis", label: "(b) --store redis, 1 process" },
  { id: "workers", label: "(c) --store redis, --workers 2" },
] as const;

export type StoreTargetId = (typeof STORE_TARGETS)[number]["id"];

/** The load's requests (from scenarios.ts): two reads and a write. */
export const STORE_SCENARIOS = [
  "GET /v1/calls?page=0&size=10",
  "GET /v1/calls/{callId}",
  "PATCH /v1/integrations/{integrationId}",
];

export interface StoreCell extends LoadResult {
  /** The mock's CPU ms per request, summed over its processes. */
  mockCpuMs: number;
  /** The mock's processes (the cluster's primary and workers). */
  mockProcesses: number;
  /** CPU ms per request of each of them (primary first), to see how the workers shared the load. */
  mockCpuMsByProcess: number[];
  /** redis-server's CPU ms per request (the store targets). */
  redisCpuMs?: number;
  /** EVALSHA + EVAL calls per request by commandstats: the mock's round trips, retries included. */
  scriptCallsPerRequest?: number;
}

export interface StoreRow {
  scenario: string;
  kind: "read" | "write";
  cells: Record<StoreTargetId, StoreCell>;
}

export interface RoundTripRow {
  operation: string;
  kind: "read" | "write";
  /** Requests counted (after ROUND_TRIP_WARMUP not counted). */
  requests: number;
  /** Answers other than the expected status. */
  errors: number;
  /** Commands the mock sent per request (MONITOR, commands run by its scripts left out): its round trips. */
  sent: number;
  /** The same by command name. */
  sentBy: Record<string, number>;
  /** EVALSHA + EVAL per request by INFO commandstats: must equal what MONITOR saw of them. */
  scriptCalls: number;
  /** Commands Redis executed per request, those its scripts ran included (sum over commandstats). */
  executed: number;
}

export interface SharedStoreFigures {
  redisVersion: string;
  /** Whether a command run by a Lua script counts in commandstats and total_commands_processed (checked by this run). */
  scriptCommandsCounted: { commandstats: boolean; totalCommandsProcessed: boolean };
  rows: StoreRow[];
  roundTripRequests: number;
  roundTrips: RoundTripRow[];
}

/** The mock's flags besides targets.ts's (part 11 runs the mock with them too). */
export const MOCK_ARGS = ["--clock", "virtual"];
/** Requests of each operation sent before counting: the first may load a script (NOSCRIPT, then EVAL) or read a whole workspace. */
export const ROUND_TRIP_WARMUP = 2;
/** The probe's own commands, left out of what Redis executed. */
const PROBE_COMMANDS = ["info", "echo", "monitor", "client|info", "client"];

/** A mock of STORE_TARGETS running, with its redis-server and a probe of it (the store targets). */
export interface Target {
  id: StoreTargetId;
  mock: Child;
  redis?: RedisServer;
  probe?: RedisProbe;
}

/** CPU ms of a process and its descendants, by pid (taken when the measured run starts). */
function treeMeter(pid: number, into: { total?: number; byProcess?: number[]; processes?: number }): Meter {
  let pids: number[] = [];
  let before: number[] = [];
  const read = () => pids.map((p) => cpuMsOf(p) ?? Number.NaN);
  return {
    async start() {
      pids = await processTree(pid);
      before = read();
    },
    stop(requests) {
      const byProcess = read().map((after, i) => (after - before[i]) / requests);
      into.byProcess = byProcess;
      into.total = byProcess.reduce((a, b) => a + b, 0);
      into.processes = pids.length;
    },
  };
}

function redisMeter(target: Target, into: { cpuMs?: number; scriptCalls?: number }): Meter {
  let cpu = 0;
  let before: Awaited<ReturnType<RedisProbe["counters"]>> | undefined;
  const scripts = (c: typeof before) => (c?.calls.get("evalsha") ?? 0) + (c?.calls.get("eval") ?? 0);
  return {
    async start() {
      before = await target.probe!.counters();
      cpu = cpuMsOf(target.redis!.pid) ?? Number.NaN;
    },
    async stop(requests) {
      into.cpuMs = ((cpuMsOf(target.redis!.pid) ?? Number.NaN) - cpu) / requests;
      into.scriptCalls = (scripts(await target.probe!.counters()) - scripts(before)) / requests;
    },
  };
}

/** The load on one target: its requests per second, and the CPU its processes and redis-server spent per request. */
export async function measureCell(target: Target, request: BenchRequest, options: LoadOptions): Promise<StoreCell> {
  const tree: { total?: number; byProcess?: number[]; processes?: number } = {};
  const redis: { cpuMs?: number; scriptCalls?: number } = {};
  const meters = [treeMeter(target.mock.process.pid!, tree), ...(target.redis ? [redisMeter(target, redis)] : [])];
  const result = await measureLoad(target.mock.url, request, options, target.mock.process.pid, meters);
  return {
    ...result,
    mockCpuMs: tree.total ?? Number.NaN,
    mockProcesses: tree.processes ?? 0,
    mockCpuMsByProcess: tree.byProcess ?? [],
    ...(target.redis && { redisCpuMs: redis.cpuMs, scriptCallsPerRequest: redis.scriptCalls }),
  };
}

/** Waits until the cluster has its workers and each has joined the store (one Redis connection each). */
async function waitForWorkers(target: Target, workers: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const processes = (await processTree(target.mock.process.pid!)).length;
    if (processes === workers + 1 && (await target.probe!.otherClients()) >= workers) break;
    if (performance.now() > deadline)
      throw new Error(
        `${target.mock.name}: ${processes - 1} of ${workers} workers up after 30 s:\n${target.mock.output.join("")}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Joined is not yet listening: a few requests on new connections while the last listen() lands.
  for (let i = 0; i < 4 * workers; i++)
    await exchange(target.mock.url, { method: "GET", path: "/__mock/health", headers: {}, expect: 200 });
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * Starts a target of STORE_TARGETS (each store target on a fresh redis-server), noting what to stop in
 * `started`; the mock of `kit` (this checkout by default, REV's worktree under --against).
 */
export async function startTarget(
  id: StoreTargetId,
  started: { children: Child[]; redis: RedisServer[]; probes: RedisProbe[] },
  kit?: string,
): Promise<Target> {
  if (id === "memory") {
    const mock = await startMockTarget({ name: "mock (in memory)", root: kit, args: MOCK_ARGS });
    started.children.push(mock);
    return { id, mock };
  }
  const redis = await startRedis();
  started.redis.push(redis);
  const probe = await RedisProbe.connect(redis.url);
  started.probes.push(probe);
  const workers = id === "workers" ? ["--workers", "2"] : [];
  const mock = await startMockTarget({
    name: `mock (--store${id === "workers" ? ", --workers 2" : ""})`,
    root: kit,
    args: [...MOCK_ARGS, "--store", redis.url, ...workers],
  });
  started.children.push(mock);
  const target = { id, mock, redis, probe };
  if (id === "workers") await waitForWorkers(target, 2);
  return target;
}

/** N requests of each operation, one at a time, to a one-process mock on a fresh redis-server. */
async function measureRoundTrips(
  mockUrl: string,
  probe: RedisProbe,
  requests: number,
  log: (line: string) => void,
): Promise<RoundTripRow[]> {
  const scenarios = await buildScenarios(mockUrl, MOCK_API_KEY);
  const pick = (name: string) => scenarios.find((s) => s.name === name)!.request;
  const byId = pick("GET /v1/calls/{callId}");
  const patch = pick("PATCH /v1/integrations/{integrationId}");
  const json = patch.headers;
  const operations: { operation: string; kind: "read" | "write"; request: BenchRequest }[] = [
    {
      operation: "GET /v1/calls?size=20",
      kind: "read",
      request: { method: "GET", path: "/v1/calls?size=20", headers: byId.headers, expect: 200 },
    },
    { operation: "GET /v1/calls/{callId}", kind: "read", request: byId },
    { operation: "PATCH /v1/integrations/{integrationId}", kind: "write", request: patch },
    {
      operation: "POST /v1/integrations",
      kind: "write",
      request: {
        method: "POST",
        path: "/v1/integrations",
        headers: json,
        body: Buffer.from(JSON.stringify({ name: "Bench CRM", description: "Created by the bench" })),
        expect: 201,
      },
    },
    { operation: "POST /v1/chat", kind: "write", request: pick("POST /v1/chat") },
  ];
  const rows: RoundTripRow[] = [];
  for (const { operation, kind, request } of operations) {
    for (let i = 0; i < ROUND_TRIP_WARMUP; i++) await exchange(mockUrl, request);
    let errors = 0;
    const before = await probe.counters();
    const sent = await probe.commandsSentDuring(async () => {
      for (let i = 0; i < requests; i++) if ((await exchange(mockUrl, request)).status !== request.expect) errors++;
    });
    const after = await probe.counters();
    const executed = callsBetween(before, after, PROBE_COMMANDS);
    const sentBy: Record<string, number> = {};
    for (const name of sent) sentBy[name] = (sentBy[name] ?? 0) + 1;
    for (const name of Object.keys(sentBy)) sentBy[name] /= requests;
    const scriptCalls = ((executed.byName.get("evalsha") ?? 0) + (executed.byName.get("eval") ?? 0)) / requests;
    const row = {
      operation,
      kind,
      requests,
      errors,
      sent: sent.length / requests,
      sentBy,
      scriptCalls,
      executed: executed.sum / requests,
    };
    log(
      `  ${operation.padEnd(40)} ${row.sent.toFixed(2)} commands sent per request (${formatSentBy(sentBy)}); EVALSHA+EVAL ${scriptCalls.toFixed(2)}; executed ${row.executed.toFixed(1)}; errors ${errors}`,
    );
    rows.push(row);
  }
  return rows;
}

export const formatSentBy = (sentBy: Record<string, number>): string =>
  Object.entries(sentBy)
    .map(([name, n]) => `${name.toUpperCase()} ${Number.isInteger(n) ? n : n.toFixed(2)}`)
    .join(", ") || "none";

export function formatStoreCell(c: StoreCell): string {
  const ms = (n: number | undefined) => (n === undefined ? "  n/a" : n.toFixed(3));
  const byProcess = c.mockProcesses > 1 ? ` (${c.mockCpuMsByProcess.map((n) => n.toFixed(3)).join(" + ")})` : "";
  const statuses = c.unexpected ? ` ${JSON.stringify(c.unexpected)}` : "";
  return `${c.rps.toFixed(0).padStart(6)} req/s  p50 ${c.p50.toFixed(2)} p99 ${c.p99.toFixed(2)} ms  mock ${ms(c.mockCpuMs)} ms CPU/req${byProcess}  redis ${ms(c.redisCpuMs)} ms CPU/req  scripts/req ${c.scriptCallsPerRequest?.toFixed(2) ?? "n/a"}  errors ${c.errors}${statuses}`;
}

export async function measureSharedStore(
  options: LoadOptions,
  roundTripRequests: number,
  log: (line: string) => void,
  kit?: string,
): Promise<SharedStoreFigures> {
  const started = { children: [] as Child[], redis: [] as RedisServer[], probes: [] as RedisProbe[] };
  try {
    // Round trips first, on a mock and a redis-server of their own.
    const rtRedis = await startRedis();
    started.redis.push(rtRedis);
    const rtProbe = await RedisProbe.connect(rtRedis.url);
    started.probes.push(rtProbe);
    const redisVersion = await rtProbe.version();
    const scriptCommandsCounted = await rtProbe.scriptAccounting();
    log(
      `  redis-server ${redisVersion}: a command run by a script counts in commandstats: ${scriptCommandsCounted.commandstats}, in total_commands_processed: ${scriptCommandsCounted.totalCommandsProcessed}`,
    );
    const rtMock = await startMockTarget({
      name: "mock (--store, round trips)",
      root: kit,
      args: [...MOCK_ARGS, "--store", rtRedis.url],
    });
    started.children.push(rtMock);
    const roundTrips = await measureRoundTrips(rtMock.url, rtProbe, roundTripRequests, log);
    await rtProbe.close();
    await rtMock.stop();
    await rtRedis.stop();

    const targets = {} as Record<StoreTargetId, Target>;
    for (const { id } of STORE_TARGETS) targets[id] = await startTarget(id, started, kit);
    const scenarios = new Map<StoreTargetId, Map<string, BenchRequest>>();
    for (const { id } of STORE_TARGETS)
      scenarios.set(
        id,
        new Map((await buildScenarios(targets[id].mock.url, MOCK_API_KEY)).map((s) => [s.name, s.request])),
      );
    const rows: StoreRow[] = [];
    for (const scenario of STORE_SCENARIOS) {
      const cells = {} as Record<StoreTargetId, StoreCell>;
      const measure = async (id: StoreTargetId) =>
        void (cells[id] = await measureCell(targets[id], scenarios.get(id)!.get(scenario)!, options));
      if (options.parallel) await Promise.all(STORE_TARGETS.map(({ id }) => measure(id)));
      for (const { id, label } of STORE_TARGETS) {
        if (!options.parallel) await measure(id);
        log(`  ${scenario.padEnd(40)} ${label.padEnd(32)} ${formatStoreCell(cells[id])}`);
      }
      rows.push({ scenario, kind: scenario.startsWith("GET") ? "read" : "write", cells });
    }
    return { redisVersion, scriptCommandsCounted, rows, roundTripRequests, roundTrips };
  } finally {
    await Promise.all(started.probes.map((p) => p.close()));
    await Promise.all(started.children.map((c) => c.stop()));
    await Promise.all(started.redis.map((r) => r.stop()));
  }
}
