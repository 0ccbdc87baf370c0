/**
 * Part 9: what issue 25's "what was exercised" costs the mock. Every /v1 answer is now observed against
 * the spec's response-variant catalogue (core/coverage/observe.ts, from the pipeline's variantsOf) and
 * journaled with its headers and bodies for the HAR export (store/journal.ts: by reference, a body over
 * 64 KB copied and cut). Five measures, none asserted on time:
 *   (1) in a child that loads the compiled modules as the mock runs them and nothing else of the bench:
 *       observedVariants, and the journal's cut (capped), on a mock's real answers (a page of 10 calls, a
 *       page of 100, one call), in µs per answer (medians of batches), with the page faults of a cut;
 *   (2) the same three requests through the mock as `npm start` runs it (targets.ts): latency at a fixed
 *       rate and the most requests per second with the mock's CPU per request, medians of rounds. The
 *       observation is NOT switched off for a baseline (that would take a second build or a patched
 *       module): its share is (1)'s µs over the CPU µs the mock spends on the request, and, as a cross
 *       check inside the mock's own process, the share of the CPU profile's samples (`--cpu-prof`, a
 *       fresh mock per request) under observedVariants, the journal's addVariants and capped;
 *   (3) memory after a full GC of a fresh mock (startMock from dist/ in a child with --expose-gc) whose
 *       journal is filled with small answers, pages of 10 and pages of 100 (cut at 64 KB);
 *   (4) GET /__mock/coverage on an every-variant workspace and on the default one after the load;
 *   (5) GET /__mock/requests.har with a journal full of mixed /v1 exchanges, each read after a refill.
 *
 * Also the children's entries: `node --import tsx scripts/bench/exercised.ts observe` (IPC: answers to
 * time) and `node --import tsx --expose-gc scripts/bench/exercised.ts memory-mock PORT SIZE [KIT]`. So that they
 * load no more than the mock does, this file imports load.ts (and with it autocannon) only where the
 * bench's own process measures.
 */
import { fork } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ask, freePort, root, startChild, TSX_EXEC_ARGV, type Child } from "./children.js";
import { atFixedRate, type BenchRequest, type LoadOptions, type LoadResult, type RateResult } from "./load.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";

export interface ExercisedPlan {
  /** Rounds of each load measurement of (2); the figures are their medians. */
  rounds: number;
  /** Requests per second over `rateConnections` for the latency runs of (2), each `rateSec` long. */
  rate: number;
  rateConnections: number;
  rateSec: number;
  /** The profiled run of each request (2): seconds under load after a second of warm-up. */
  profileSec: number;
  /** The mock's journal (--journal-size; 500 is its default), filled for (3) and (5). */
  journalSize: number;
  /** In-process timing of (1): batches of about `batchMs` each, their median. */
  batches: number;
  batchMs: number;
  coverageReads: number;
  harReads: number;
}

/** The answers of (1), (2) and (3). */
export const EXERCISED_ANSWERS = ["listCalls, page of 10", "listCalls, page of 100", "getCall"] as const;
type AnswerName = (typeof EXERCISED_ANSWERS)[number];

/** The requests of (2), named as parts 1 and 8 name them, beside their answers in (1): the page of 100 is the one cut. */
export const EXERCISED_SCENARIOS: readonly { scenario: string; answer: AnswerName }[] = [
  { scenario: "GET /v1/calls?page=0&size=10", answer: "listCalls, page of 10" },
  { scenario: "GET /v1/calls?page=0&size=100", answer: "listCalls, page of 100" },
  { scenario: "GET /v1/calls/{callId}", answer: "getCall" },
];

export interface ObserveRow {
  answer: AnswerName;
  /** The answer's JSON text, in bytes. */
  bytes: number;
  /** Variant keys the answer shows. */
  keys: number;
  /** observedVariants, µs per answer (median of the batches). */
  observeUs: number;
  /** The journal's capped() on the answer's text, µs per answer: a length check, or a copy of 64 KB when over. */
  cappedUs: number;
  /**
   * Minor page faults per capped() call: a cut encodes the body's first 64 KB into fresh memory; on this VM a fault costs microseconds, so its time follows how often the allocator maps new pages.
   */
  cappedFaults: number;
  /** capped() cut the body. */
  cut: boolean;
}

export interface RequestRow {
  scenario: string;
  /** The same answer's observation and cut, from (1). */
  observeUs: number;
  cappedUs: number;
  atRate: RateResult[];
  max: LoadResult[];
  /** The profiled run: its CPU per request, and per profiled function, the µs per request under it. */
  profile: ProfileShare;
}

/** The functions whose share of the mock's CPU profile (2) reports: observation, its fold, the cut. */
export const PROFILED = ["observedVariants", "addVariants", "capped"] as const;

export interface ProfileShare {
  /** CPU µs per request of the profiled mock, from /proc (the profiler's own cost included). */
  cpuUs: number;
  /** Main-thread samples in the measured window that were not idle. */
  busySamples: number;
  /** Samples with the function on their stack. */
  samples: Record<(typeof PROFILED)[number], number>;
}

export interface Memory {
  rss: number;
  heapUsed: number;
  /** ArrayBuffers (the cut bodies are Uint8Arrays). */
  arrayBuffers: number;
}

export interface MemoryRow {
  answer: AnswerName;
  /** One answer's JSON text, in bytes. */
  answerBytes: number;
  /**
   * Exchanges the journal kept, of them cut, and the response body bytes they hold as text. A GET's JSON
   * answer is kept by reference instead (store/journal.ts responseJson: its text is made when read), so
   * it holds no text and is cut, if at all, when read: `byReference` counts those.
   */
  entries: number;
  cut: number;
  heldBytes: number;
  byReference: number;
  unexpected: number;
  /** After a full GC: the fresh mock once seeded (and its calls added), then with its journal full. */
  before: Memory;
  after: Memory;
}

export interface ReadFigures {
  what: string;
  status: number;
  /** ms per read, each sample. */
  ms: number[];
  bytes: number;
  /** Coverage: the variants listed; HAR: its entries. */
  count: number;
  /** Coverage: variants, percent seen and recipes given; HAR: entries. */
  detail: string;
}

export interface ExercisedFigures {
  command: string;
  date: string;
  durationSec: number;
  loadBefore: number[];
  loadAfter: number[];
  load: LoadOptions;
  plan: ExercisedPlan;
  catalogue: { variants: number; buildMs: number };
  observe: ObserveRow[];
  requests: RequestRow[];
  memory: { captureLimit: number; rows: MemoryRow[] };
  coverage: ReadFigures[];
  /** Absent when the endpoint did not answer 200: `harStatus` says what it answered. */
  har?: ReadFigures;
  harStatus: number;
}

/** The middle value, the upper of two (tooling.ts's median, which would bring load.ts into the children). */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : Number.NaN;
}

/** Calls the default workspace needs for a page of 100 (it is seeded with fewer). */
const CALLS_FOR_PAGES = 120;

const get = (path: string, expect = 200): BenchRequest => ({
  method: "GET",
  path,
  headers: { "X-API-Key": MOCK_API_KEY },
  expect,
});

/** Adds faker-filled ended calls to the default workspace until it holds `count`. */
async function addCalls(url: string, count: number): Promise<string> {
  const list = async () =>
    (await (await fetch(`${url}/__mock/workspaces/default/calls`)).json()) as { callId: string }[];
  const have = (await list()).length;
  for (let i = have; i < count; i++) {
    const res = await fetch(`${url}/__mock/workspaces/default/calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ status: "ended" }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`adding a call answered ${res.status}`);
  }
  return (await list())[0].callId;
}

/** The requests behind the answers of (1) and (3). */
function answerRequests(callId: string): Record<AnswerName, BenchRequest> {
  return {
    "listCalls, page of 10": get("/v1/calls?page=0&size=10"),
    "listCalls, page of 100": get("/v1/calls?page=0&size=100"),
    getCall: get(`/v1/calls/${callId}`),
  };
}

/**
 * Sends `total` requests, cycling through `requests`, `concurrency` at a time; answers how many got
 * another status than expected. What fills a journal: its timing is not a figure.
 */
async function fill(url: string, requests: BenchRequest[], total: number, concurrency = 4): Promise<number> {
  let next = 0;
  let unexpected = 0;
  const worker = async () => {
    while (next < total) {
      const r = requests[next++ % requests.length];
      const body = r.body && new Uint8Array(r.body);
      const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body });
      await res.arrayBuffer();
      if (res.status !== r.expect) unexpected++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return unexpected;
}

/**
 * µs per call of `work`: batches of about `batchMs` (the count found by doubling), their median, after
 * 100 ms of unmeasured calls; and the minor page faults per call over the batches.
 */
function microsPerCall(work: () => unknown, batches: number, batchMs: number): { us: number; faults: number } {
  let n = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < n; i++) work();
    const elapsed = performance.now() - t;
    if (elapsed >= batchMs / 4 || n >= 1 << 24) {
      n = Math.max(1, Math.round((n * batchMs) / Math.max(elapsed, 0.001)));
      break;
    }
    n *= 2;
  }
  for (let warm = performance.now(); performance.now() - warm < 100; ) work();
  const samples: number[] = [];
  const faultsBefore = process.resourceUsage().minorPageFault;
  for (let b = 0; b < batches; b++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) work();
    samples.push(((performance.now() - t) * 1000) / n);
  }
  return { us: median(samples), faults: (process.resourceUsage().minorPageFault - faultsBefore) / (n * batches) };
}

/** A module of the compiled mock (the dist/ of `kit`: this checkout's, or REV's under --against), typed as its source. */
const fromDist = <T>(source: string, kit: string): Promise<T> =>
  import(pathToFileURL(path.join(kit, "dist/mock-server", source)).href);

interface ObservationRequest {
  texts: Record<AnswerName, string>;
  plan: ExercisedPlan;
  kit: string;
}

interface Observation {
  catalogue: ExercisedFigures["catalogue"];
  rows: ObserveRow[];
  captureLimit: number;
}

/** (1) in a child of its own: see the header. */
async function observeInChild(request: ObservationRequest): Promise<Observation> {
  const child = fork(fileURLToPath(import.meta.url), ["observe"], {
    cwd: root,
    execArgv: TSX_EXEC_ARGV,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    return await ask<Observation>(child, request, 120_000);
  } finally {
    child.kill();
  }
}

/**
 * (1), run by the observe child, on the texts a mock answered: the body as JSON.parse makes it (the
 * pipeline observes the handler's object, the same tree).
 */
async function measureObservation({ texts, plan, kit }: ObservationRequest): Promise<Observation> {
  const [{ generatedSpec }, { variantCatalogue }, { observedVariants }, { capped, CAPTURE_LIMIT }] = await Promise.all([
    fromDist<typeof import("../../mock-server/core/spec.js")>("core/spec.js", kit),
    fromDist<typeof import("../../mock-server/core/coverage/catalogue.js")>("core/coverage/catalogue.js", kit),
    fromDist<typeof import("../../mock-server/core/coverage/observe.js")>("core/coverage/observe.js", kit),
    fromDist<typeof import("../../mock-server/store/journal.js")>("store/journal.js", kit),
  ]);
  const document = generatedSpec().document;
  // Built once per document object (a WeakMap): a copy of the document times one build.
  const builds: number[] = [];
  for (let i = 0; i < 3; i++) {
    const copy = structuredClone(document);
    const t = performance.now();
    variantCatalogue(copy);
    builds.push(performance.now() - t);
  }
  const catalogue = variantCatalogue(document);
  const operationOf: Record<AnswerName, string> = {
    "listCalls, page of 10": "listCalls",
    "listCalls, page of 100": "listCalls",
    getCall: "getCall",
  };
  const rows = EXERCISED_ANSWERS.map((answer): ObserveRow => {
    const text = texts[answer];
    const observed = { operationId: operationOf[answer], status: 200, query: {}, body: JSON.parse(text) };
    const captured = { requestHeaders: {}, responseHeaders: {}, responseBody: text };
    const cut = microsPerCall(() => capped(captured), plan.batches, plan.batchMs);
    return {
      answer,
      bytes: Buffer.byteLength(text),
      keys: observedVariants(catalogue, observed).length,
      observeUs: microsPerCall(() => observedVariants(catalogue, observed), plan.batches, plan.batchMs).us,
      cappedUs: cut.us,
      cappedFaults: cut.faults,
      cut: capped(captured).responseBody !== text,
    };
  });
  return {
    catalogue: { variants: catalogue.variants.length, buildMs: median(builds) },
    rows,
    captureLimit: CAPTURE_LIMIT,
  };
}

/** (2): the rounds interleave the requests, so a noisy moment hits each; then one profiled mock per request. */
async function measureRequests(
  mock: Child,
  requests: Record<AnswerName, BenchRequest>,
  observed: ObserveRow[],
  load: LoadOptions,
  plan: ExercisedPlan,
  log: (line: string) => void,
  kit: string,
): Promise<RequestRow[]> {
  const rows = EXERCISED_SCENARIOS.map(({ scenario, answer }) => {
    const { observeUs, cappedUs } = observed.find((o) => o.answer === answer)!;
    const row = { scenario, observeUs, cappedUs, atRate: [], max: [] } as unknown as RequestRow;
    return { row, answer, request: requests[answer] };
  });
  const { measureLoad } = await import("./load.js");
  for (let round = 0; round < plan.rounds; round++)
    for (const { row, request } of rows) {
      row.atRate.push(
        await atFixedRate(mock.url, request, load, {
          rate: plan.rate,
          connections: plan.rateConnections,
          durationSec: plan.rateSec,
        }),
      );
      row.max.push(await measureLoad(mock.url, request, load, mock.process.pid));
    }
  for (const { row, answer } of rows) {
    row.profile = await profiledRun(answer, load, plan, kit);
    const d = requestMedians(row);
    log(
      `  ${row.scenario.padEnd(30)} at ${d.rate.toFixed(0)}/s: p50 ${d.p50.toFixed(2)} ms p99 ${d.p99.toFixed(2)} ms; max ${d.rps.toFixed(0)} req/s, CPU ${d.cpuUs.toFixed(0)} µs/req, observation ${pct(d.share)} of it; profiled: ${PROFILED.map((f) => `${f} ${d.profiled[f].toFixed(1)} µs`).join(", ")} of ${row.profile.cpuUs.toFixed(0)} µs/req; errors ${d.errors}`,
    );
  }
  return rows.map(({ row }) => row);
}

const pct = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : "n/a");

/**
 * A row of (2) as RESULTS.md shows it: medians over the rounds; the observation's share of the CPU by
 * (1)'s µs; and, from the profiled run, µs per request under each profiled function (its share of the
 * busy samples times that run's CPU per request).
 */
export function requestMedians(row: RequestRow) {
  const cpuUs = median(row.max.map((m) => m.cpuUs ?? Number.NaN).filter(Number.isFinite));
  const { profile } = row;
  const profiled = {} as Record<(typeof PROFILED)[number], number>;
  for (const f of PROFILED)
    profiled[f] = profile.busySamples > 0 ? (profile.samples[f] / profile.busySamples) * profile.cpuUs : Number.NaN;
  return {
    rate: median(row.atRate.map((r) => r.rate)),
    p50: median(row.atRate.map((r) => r.p50)),
    p99: median(row.atRate.map((r) => r.p99)),
    rps: median(row.max.map((m) => m.rps)),
    cpuUs,
    share: cpuUs > 0 ? row.observeUs / cpuUs : Number.NaN,
    profiled,
    errors: [...row.atRate, ...row.max].reduce((sum, r) => sum + r.errors, 0),
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Microseconds on CLOCK_MONOTONIC, the clock of V8's profile timestamps. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * The mock as (2) runs it, under `--cpu-prof`, fresh for one request: `plan.profileSec` of part 1's load
 * after a second of warm-up; the main thread's samples within the measured window, and those with each
 * profiled function of the mock (dist/mock-server/) on their stack.
 */
async function profiledRun(
  answer: AnswerName,
  load: LoadOptions,
  plan: ExercisedPlan,
  kit: string,
): Promise<ProfileShare> {
  const { measureLoad } = await import("./load.js");
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-exercised-profile-"));
  try {
    const mock = await startMockTarget({
      name: "mock (exercised, profiled)",
      root: kit,
      nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "500"],
      args: ["--journal-size", String(plan.journalSize)],
    });
    let window = [0, 0];
    let result: LoadResult;
    try {
      const request = answerRequests(await addCalls(mock.url, CALLS_FOR_PAGES))[answer];
      const meter = { start: () => void (window = [monotonicUs(), 0]), stop: () => void (window[1] = monotonicUs()) };
      const o = { ...load, warmupSec: Math.min(load.warmupSec, 1), durationSec: plan.profileSec };
      result = await measureLoad(mock.url, request, o, mock.process.pid, [meter]);
    } finally {
      await mock.stop();
    }
    const profile = JSON.parse(readFileSync(await mainThreadProfile(dir, mock.process.pid!), "utf8")) as CpuProfile;
    return { cpuUs: result.cpuUs ?? Number.NaN, ...samplesUnder(profile, window[0], window[1]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The main thread's profile: `CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`, written as the process exits. */
async function mainThreadProfile(dir: string, pid: number): Promise<string> {
  const main = new RegExp(`^CPU\\.\\d+\\.\\d+\\.${pid}\\.0\\.\\d+\\.cpuprofile$`);
  for (let i = 0; i < 200; i++) {
    const found = existsSync(dir) ? readdirSync(dir).find((f) => main.test(f)) : undefined;
    if (found) return path.join(dir, found);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no main-thread profile of ${pid} in ${dir}`);
}

/** Busy samples between `fromUs` and `toUs`, and of them those under each profiled function of the mock. */
function samplesUnder(profile: CpuProfile, fromUs: number, toUs: number): Omit<ProfileShare, "cpuUs"> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  /** Per node, the profiled functions on its stack (the node itself and its callers). */
  const under = new Map<number, Set<string>>();
  const stackOf = (id: number): Set<string> => {
    const known = under.get(id);
    if (known) return known;
    const parent = parentOf.get(id);
    const set = new Set(parent === undefined ? [] : stackOf(parent));
    const { functionName, url } = byId.get(id)!.callFrame;
    if ((PROFILED as readonly string[]).includes(functionName) && url.includes("/mock-server/")) set.add(functionName);
    under.set(id, set);
    return set;
  };
  const samples = Object.fromEntries(PROFILED.map((f) => [f, 0])) as ProfileShare["samples"];
  let busySamples = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const id = profile.samples[i];
    if (byId.get(id)?.callFrame.functionName === "(idle)") continue;
    busySamples++;
    for (const f of stackOf(id)) samples[f as (typeof PROFILED)[number]]++;
  }
  return { busySamples, samples };
}

interface MemoryAnswer extends Memory {
  entries: number;
  cut: number;
  heldBytes: number;
  byReference: number;
}

/** (3): one fresh mock per answer, so no row inherits another's garbage or its journal. */
async function measureMemory(plan: ExercisedPlan, log: (line: string) => void, kit: string): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  for (const answer of EXERCISED_ANSWERS) {
    const port = await freePort();
    const child = await startChild({
      name: "mock (memory)",
      args: [fileURLToPath(import.meta.url), "memory-mock", String(port), String(plan.journalSize), kit],
      ipc: { execArgv: [...TSX_EXEC_ARGV, "--expose-gc"] },
      url: `http://127.0.0.1:${port}`,
      readyPath: "/__mock/health",
    });
    try {
      const callId = await addCalls(child.url, CALLS_FOR_PAGES);
      const request = answerRequests(callId)[answer];
      const answerBytes = (await (await fetch(child.url + request.path, { headers: request.headers })).arrayBuffer())
        .byteLength;
      const before = await ask<MemoryAnswer>(child.process, { op: "memory" });
      const unexpected = await fill(child.url, [request], plan.journalSize);
      const after = await ask<MemoryAnswer>(child.process, { op: "memory" });
      const { entries, cut, heldBytes, byReference } = after;
      const row = {
        answer,
        answerBytes,
        entries,
        cut,
        heldBytes,
        byReference,
        unexpected,
        before: memoryOf(before),
        after: memoryOf(after),
      };
      log(
        `  ${answer.padEnd(24)} ${entries} kept (${cut} cut, ${byReference} by reference), bodies ${mib(heldBytes)}; RSS ${mib(before.rss)} -> ${mib(after.rss)}, heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}, buffers ${mib(before.arrayBuffers)} -> ${mib(after.arrayBuffers)}`,
      );
      rows.push(row);
    } finally {
      await child.stop();
    }
  }
  return rows;
}

const memoryOf = ({ rss, heapUsed, arrayBuffers }: Memory): Memory => ({ rss, heapUsed, arrayBuffers });
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** GETs `path` once: status, ms to the last byte, the body. */
async function timedGet(url: string, path: string): Promise<{ status: number; ms: number; body: Buffer }> {
  const t = performance.now();
  const res = await fetch(url + path);
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, ms: performance.now() - t, body };
}

/** (4): one read not counted (the first builds what later reads reuse), then `reads` timed. */
async function measureCoverage(url: string, workspaceId: string, what: string, reads: number): Promise<ReadFigures> {
  const path = `/__mock/coverage?workspaceId=${encodeURIComponent(workspaceId)}`;
  await timedGet(url, path);
  const ms: number[] = [];
  let last = await timedGet(url, path);
  ms.push(last.ms);
  for (let i = 1; i < reads; i++) {
    last = await timedGet(url, path);
    ms.push(last.ms);
  }
  const report = JSON.parse(last.body.toString()) as { percent: number; variants: { recipe?: unknown }[] };
  const recipes = report.variants.filter((v) => v.recipe).length;
  return {
    what,
    status: last.status,
    ms,
    bytes: last.body.length,
    count: report.variants.length,
    detail: `${report.variants.length} variants, ${report.percent} % seen, ${recipes} with a recipe`,
  };
}

/**
 * (5): the journal counts control-plane requests too, so each read follows a refill of `journalSize`
 * /v1 requests: every read finds the journal full of /v1 exchanges.
 */
async function measureHar(
  url: string,
  mix: BenchRequest[],
  plan: ExercisedPlan,
): Promise<{ status: number; figures?: ReadFigures }> {
  const ms: number[] = [];
  let last: Awaited<ReturnType<typeof timedGet>> | undefined;
  let unexpected = 0;
  for (let i = 0; i < plan.harReads; i++) {
    unexpected += await fill(url, mix, plan.journalSize);
    last = await timedGet(url, "/__mock/requests.har");
    if (last.status !== 200) return { status: last.status };
    ms.push(last.ms);
  }
  if (!last) return { status: 0 };
  const har = JSON.parse(last.body.toString()) as { log: { entries: unknown[] } };
  return {
    status: last.status,
    figures: {
      what: `${plan.journalSize} mixed /v1 exchanges`,
      status: last.status,
      ms,
      bytes: last.body.length,
      count: har.log.entries.length,
      detail: `${har.log.entries.length} entries${unexpected ? `; ${unexpected} fill requests answered another status` : ""}`,
    },
  };
}

export async function measureExercised(
  command: string,
  load: LoadOptions,
  plan: ExercisedPlan,
  log: (line: string) => void,
  /** The kit whose mock is measured: this checkout, or REV's worktree under --against (against.ts). */
  kit: string = root,
): Promise<ExercisedFigures> {
  const started = performance.now();
  const loadBefore = os.loadavg();
  const mock = await startMockTarget({
    name: "mock (exercised)",
    root: kit,
    args: ["--journal-size", String(plan.journalSize)],
  });
  try {
    const callId = await addCalls(mock.url, CALLS_FOR_PAGES);
    const byAnswer = answerRequests(callId);
    const texts = {} as Record<AnswerName, string>;
    for (const answer of EXERCISED_ANSWERS) {
      const r = byAnswer[answer];
      texts[answer] = await (await fetch(mock.url + r.path, { headers: r.headers })).text();
    }
    const observation = await observeInChild({ texts, plan, kit });
    for (const row of observation.rows)
      log(
        `  ${row.answer.padEnd(24)} ${(row.bytes / 1024).toFixed(1)} KiB, ${row.keys} keys: observe ${row.observeUs.toFixed(2)} µs, capped ${row.cappedUs.toFixed(2)} µs${row.cut ? ` (cut; ${row.cappedFaults.toFixed(1)} page faults)` : ""}`,
      );
    const requests = await measureRequests(mock, byAnswer, observation.rows, load, plan, log, kit);
    const memory = await measureMemory(plan, log, kit);

    const created = await fetch(`${mock.url}/__mock/workspaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scenario: "every-variant" }),
    });
    const { workspaceId } = (await created.json()) as { workspaceId: string };
    if (created.status !== 201) throw new Error(`POST /__mock/workspaces answered ${created.status}`);
    const coverage = [
      await measureCoverage(mock.url, workspaceId, "every-variant workspace, fresh", plan.coverageReads),
      await measureCoverage(mock.url, "default", "default workspace, after the load", plan.coverageReads),
    ];
    for (const c of coverage)
      log(`  coverage, ${c.what}: ${median(c.ms).toFixed(1)} ms, ${(c.bytes / 1024).toFixed(0)} KiB; ${c.detail}`);

    // Last: the HAR reads refill the journal with exchanges of their own.
    const integrations = (await (await fetch(`${mock.url}/__mock/workspaces/default/integrations`)).json()) as {
      integrationId: string;
    }[];
    const agents = (await (await fetch(`${mock.url}/__mock/workspaces/default/agents`)).json()) as {
      agentId: string;
    }[];
    const json = { "X-API-Key": MOCK_API_KEY, "Content-Type": "application/json" };
    const mix: BenchRequest[] = [
      byAnswer["listCalls, page of 10"],
      byAnswer.getCall,
      byAnswer["listCalls, page of 100"],
      get("/v1/webhooks?active=true"),
      get("/v1/calls/00000000-0000-4000-8000-000000000000", 404),
      {
        method: "PATCH",
        path: `/v1/integrations/${integrations[0].integrationId}`,
        headers: json,
        body: Buffer.from(JSON.stringify({ name: "Bench CRM", description: "Renamed by the bench" })),
        expect: 200,
      },
      {
        method: "POST",
        path: "/v1/chat",
        headers: json,
        body: Buffer.from(
          JSON.stringify({ agentId: agents[0].agentId, conversation: "Hello, I would like to check my order." }),
        ),
        expect: 200,
      },
    ];
    const har = await measureHar(mock.url, mix, plan);
    log(
      har.figures
        ? `  requests.har, ${har.figures.what}: ${median(har.figures.ms).toFixed(1)} ms, ${(har.figures.bytes / 1024).toFixed(0)} KiB; ${har.figures.detail}`
        : `  requests.har answered ${har.status}: not measured`,
    );
    return {
      command,
      date: new Date().toISOString(),
      durationSec: (performance.now() - started) / 1000,
      loadBefore,
      loadAfter: os.loadavg(),
      load,
      plan,
      catalogue: observation.catalogue,
      observe: observation.rows,
      requests,
      memory: { captureLimit: observation.captureLimit, rows: memory },
      coverage,
      ...(har.figures && { har: har.figures }),
      harStatus: har.status,
    };
  } finally {
    await mock.stop();
  }
}

/**
 * The memory child: startMock from dist/ (as npm start runs the mock: real clock, response validation
 * on) with a journal of `journalSize`; on each IPC message, a full GC, then its memory and what the
 * journal holds.
 */
async function memoryMock(port: number, journalSize: number, kit: string): Promise<void> {
  const { startMock } = await fromDist<typeof import("../../mock-server/server.js")>("server.js", kit);
  const running = await startMock({
    port,
    apiKey: MOCK_API_KEY,
    clock: "real",
    journalCapacity: journalSize,
    log: () => undefined,
  });
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  process.on("message", async () => {
    try {
      const kept = await running.mock.journal.exchanges();
      let heldBytes = 0;
      let cut = 0;
      let byReference = 0;
      for (const { exchange } of kept) {
        const body = exchange?.responseBody;
        heldBytes += typeof body === "string" ? Buffer.byteLength(body) : (body?.length ?? 0);
        if (exchange?.responseBytes !== undefined) cut++;
        if (exchange?.responseJson !== undefined) byReference++;
      }
      collect();
      const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
      const answer: MemoryAnswer = { rss, heapUsed, arrayBuffers, entries: kept.length, cut, heldBytes, byReference };
      process.send!(answer);
    } catch (error) {
      process.send!({ error: (error as Error).stack ?? String(error) });
    }
  });
  process.on("SIGTERM", () => void running.close().then(() => process.exit(0)));
}

/** The observe child: times what it is sent, answers, and waits to be stopped. */
function observeChild(): void {
  process.on("message", (request: ObservationRequest) =>
    measureObservation(request).then(
      (answer) => process.send!(answer),
      (error: Error) => process.send!({ error: error.stack ?? String(error) }),
    ),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv[2] === "observe") observeChild();
  if (process.argv[2] === "memory-mock")
    void memoryMock(Number(process.argv[3]), Number(process.argv[4]), process.argv[5] ?? root);
}
