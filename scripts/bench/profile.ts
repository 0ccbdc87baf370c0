/**
 * npx tsx scripts/bench/profile.ts [seconds] [--interval MICROSECONDS] [--keep DIR]
 *
 * Where the mock's CPU goes, per request, on part 1's two GET requests. For each, in turn, each
 * server in a fresh child process, autocannon in this one (8 connections, 2 s warm-up, then `seconds`,
 * default 10), CPU per request from /proc (user and system, process and main thread):
 *  - (b) bare node:http answering the same bytes, and the mock run from its sources with tsx (so that
 *    samples are named by source file; NODE_ENV unset: response validation on), without a profiler;
 *  - the same two under `node --cpu-prof --cpu-prof-interval 1000` (for the mock:
 *    `node --cpu-prof --cpu-prof-dir DIR --cpu-prof-interval 1000 --import tsx mock-server/main.ts
 *    --port P --api-key bench-api-key`), stopped with SIGTERM so the .cpuprofile is written.
 * Only the main thread's samples within the measured window count (V8's profile clock and this
 * process's hrtime are both CLOCK_MONOTONIC). They are summarised by what they serve: each sample goes
 * to the nearest frame of mock-server/ or generated/ on its stack (native frames and Node internals
 * below a mock frame count for that frame); samples with no mock frame are Node's own HTTP machinery
 * or event loop. Prints markdown; profile-notes.md quotes it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, type Child } from "./children.js";
import { exchange, measureLoad, type BenchRequest, type LoadOptions } from "./load.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY, startBareTarget, startMockTarget } from "./targets.js";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  options: { interval: { type: "string" }, keep: { type: "string" } },
  allowPositionals: true,
});
const seconds = Number(positionals[0] ?? 10);
const interval = Number(values.interval ?? 1000);
const dir = values.keep ?? mkdtempSync(path.join(tmpdir(), "bench-profile-"));
const LOAD: LoadOptions = { connections: 8, durationSec: seconds, warmupSec: 0 };
const WARMUP: LoadOptions = { connections: 8, durationSec: 2, warmupSec: 0 };

const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);
const rel = (url: string) => (url.startsWith("file://") ? path.relative(root, new URL(url).pathname) : url);
const isMock = (url: string) => /\/(mock-server|generated)\//.test(url);

/** Native socket writes of libuv's stream wrap: their time is mostly the system call. */
const SOCKET_WRITES = new Set(["writev", "writeBuffer", "writeUtf8String", "writeLatin1String", "writeAsciiString"]);

/** What a sample's time serves; null for idle. `stack` runs from the leaf to the root. */
function bucketOf(stack: CallFrame[]): string | null {
  const leaf = stack[0].functionName;
  if (leaf === "(idle)") return null;
  if (leaf === "(garbage collector)") return "GC on the main thread";
  if (leaf === "(program)") return "(program): V8 and native work outside any JS frame";
  if (!stack[0].url && SOCKET_WRITES.has(leaf)) return SOCKET_WRITE;
  const at = stack.findIndex((f) => isMock(f.url));
  if (at === -1) {
    const owner = stack.find((f) => f.url)?.url ?? "";
    if (owner.endsWith("scripts/bench/bare-server.ts")) return "bare server's own code";
    if (/^node:(_http|net|internal\/(stream_base_commons|streams|http|net)|stream|events)/.test(owner))
      return "Node: HTTP parsing, socket reads, response bookkeeping (no mock frame on the stack)";
    if (/^node:internal\/(process\/task_queues|timers|async_hooks)/.test(owner))
      return "Node: event loop, microtasks, timers";
    return `other, no mock frame: ${rel(owner) || stack[0].functionName}`;
  }
  const frame = stack[at];
  const file = rel(frame.url);
  const has = (name: string) => stack.some((f) => f.functionName === name && isMock(f.url));
  if (file === "mock-server/node/serve.ts")
    return frame.functionName === "writeReply" && at > 0
      ? "Node: response headers and write path in JS (writeHead, end), called by writeReply"
      : "door: node/serve.ts (headOf, serveNode, writeReply)";
  if (file === "mock-server/server.ts") return "door: server.ts request listener";
  if (
    file.startsWith("generated/validators") ||
    file === "mock-server/core/validation.ts" ||
    file === "mock-server/core/operations.ts" ||
    frame.functionName === "checkReply"
  )
    return has("checkReply")
      ? "core: response validation (checkReply, validators)"
      : "core: request validation (parameters)";
  if (file === "mock-server/core/pipeline.ts") {
    if (frame.functionName === "parseQuery") return "core: query parsing (parseQuery, URLSearchParams)";
    if (frame.functionName === "finish") return "core: finish (request id: randomUUID, CORS headers)";
    return "core: pipeline itself (handle, serve, serveOperation, jsonText, ...)";
  }
  if (file === "mock-server/core/routes.ts") return "core: routing (RouteTable.match)";
  if (
    file === "mock-server/core/auth.ts" ||
    file === "mock-server/store/workspace.ts" ||
    file === "mock-server/node/platform.ts"
  )
    return "core: API key (SHA-256 digest, lookup)";
  if (file === "mock-server/core/reply-json.ts") return "core: reply JSON (readReplyJson, JSON.stringify)";
  if (file === "mock-server/core/journal.ts") return "core: journal";
  if (
    file.startsWith("mock-server/routes/") ||
    file.startsWith("mock-server/store/") ||
    file === "mock-server/core/pagination.ts"
  )
    return "handler and store (routes/, store/, pagination)";
  return `mock, other: ${file}`;
}

/** A leaf's name: native frames (no url) with the JS frame that called them. */
function leafName(stack: CallFrame[]): string {
  const [leaf] = stack;
  if (leaf.url) return `${leaf.functionName || "(anonymous)"} ${rel(leaf.url)}:${leaf.lineNumber + 1}`;
  const caller = stack.find((f) => f.url);
  return caller && !leaf.functionName.startsWith("(")
    ? `${leaf.functionName} [native] ← ${caller.functionName || "(anonymous)"} ${rel(caller.url)}`
    : leaf.functionName;
}

function summarise(profile: CpuProfile, fromUs: number, toUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map<number, CallFrame[]>();
  const stackOf = (id: number) => {
    let stack = stacks.get(id);
    if (!stack) {
      stack = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)!.callFrame;
        if (frame.functionName !== "(root)") stack.push(frame);
      }
      stacks.set(id, stack);
    }
    return stack;
  };
  const buckets = new Map<string, number>();
  const leaves = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let t = profile.startTime;
  const times = profile.timeDeltas.map((d) => (t += d));
  for (let i = 0; i < profile.samples.length; i++) {
    if (times[i] < fromUs || times[i] >= toUs) continue;
    const us = (times[i + 1] ?? times[i] + interval) - times[i];
    const stack = stackOf(profile.samples[i]);
    const bucket = bucketOf(stack);
    if (bucket === null) {
      idle += us;
      continue;
    }
    busy += us;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const leaf = leafName(stack);
    leaves.set(leaf, (leaves.get(leaf) ?? 0) + us);
  }
  if (busy + idle === 0)
    throw new Error(
      `no samples in the measured window (${fromUs} to ${toUs}; profile ${profile.startTime} to ${profile.endTime}): not the same clock?`,
    );
  return { busy, idle, buckets, leaves };
}

async function mainThreadProfile(runDir: string, pid: number): Promise<string> {
  const main = new RegExp(`^CPU\\.\\d+\\.\\d+\\.${pid}\\.0\\.\\d+\\.cpuprofile$`);
  for (let i = 0; i < 200; i++) {
    const found = existsSync(runDir) ? readdirSync(runDir).find((f) => main.test(f)) : undefined;
    if (found) return path.join(runDir, found);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no main-thread profile of ${pid} in ${runDir}`);
}

interface Run {
  rps: number;
  requests: number;
  /** Server CPU per request, µs, from /proc: the process and its main thread, user and system time. */
  user: number;
  system: number;
  mainUser: number;
  mainSystem: number;
  summary?: ReturnType<typeof summarise>;
}

/** User and system CPU ms of a process (or one of its threads), from /proc (10 ms ticks). */
function times(pid: number, thread?: number): [number, number] {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [Number(fields[11]) * 10, Number(fields[12]) * 10];
}

/** Warm-up, then the measured load with CPU read around it; with `runDir`, the main thread's profile summarised over that window. */
async function run(target: Child, request: BenchRequest, runDir?: string): Promise<Run> {
  const pid = target.process.pid!;
  let before, mainBefore, t0, r, after, mainAfter, t1;
  try {
    await measureLoad(target.url, request, WARMUP);
    [before, mainBefore, t0] = [times(pid), times(pid, pid), hrtimeUs()];
    r = await measureLoad(target.url, request, LOAD);
    [after, mainAfter, t1] = [times(pid), times(pid, pid), hrtimeUs()];
  } finally {
    // SIGTERM: the mock (main.ts) and the bare server exit through process.exit, which writes the profile.
    await target.stop();
  }
  if (r.errors) throw new Error(`${target.name}: ${r.errors} errors`);
  const per = (ms: number) => (ms * 1000) / r.requests;
  const figures: Run = {
    rps: r.rps,
    requests: r.requests,
    user: per(after[0] - before[0]),
    system: per(after[1] - before[1]),
    mainUser: per(mainAfter[0] - mainBefore[0]),
    mainSystem: per(mainAfter[1] - mainBefore[1]),
  };
  if (!runDir) return figures;
  const profile = JSON.parse(readFileSync(await mainThreadProfile(runDir, pid), "utf8")) as CpuProfile;
  return { ...figures, summary: summarise(profile, t0, t1) };
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const f1 = (n: number) => n.toFixed(1);
const cpuRow = (name: string, r: Run) =>
  `| ${name} | ${f1(r.user + r.system)} | ${f1(r.user)} | ${f1(r.system)} | ${f1(r.mainUser)} / ${f1(r.mainSystem)} | ${f1(r.user + r.system - r.mainUser - r.mainSystem)} | ${r.rps.toFixed(0)} |`;

const SOCKET_WRITE = "Node: socket write (the writev system call, loopback TCP included)";

/**
 * The profile's main-thread samples by bucket. The socket write is a system call: its share of samples
 * is not a good measure of its cost (a profiling signal is taken on the way back from a system call),
 * so it is listed by share only. The other buckets are user-mode work: their µs per request are their
 * share of the busy samples outside the socket write times the main thread's user time per request
 * measured without the profiler (`plain`).
 */
function printProfile(title: string, r: Run, plain: Run, top: number): void {
  const { busy, idle, buckets, leaves } = r.summary!;
  const write = buckets.get(SOCKET_WRITE) ?? 0;
  const user = busy - write;
  const us = (t: number) => (t === write ? "(system time)" : f1((t / user) * plain.mainUser));
  console.log(
    `\n${title}: main thread busy in ${pct(busy, busy + idle)} of the window's samples; the socket write ${pct(write, busy)} of them.`,
  );
  console.log(
    `µs per request: share of the other busy samples x the main thread's user time per request without the profiler (${f1(plain.mainUser)} µs).\n`,
  );
  console.log("| where (main-thread samples) | share of busy | share outside the socket write | ≈ µs per request |");
  console.log("|---|---|---|---|");
  for (const [bucket, t] of [...buckets].sort((a, b) => b[1] - a[1]))
    if (t / busy >= 0.002)
      console.log(`| ${bucket} | ${pct(t, busy)} | ${t === write ? "" : pct(t, user)} | ${us(t)} |`);
  console.log(
    `\n| self time, top ${top} functions | share of busy | share outside the socket write | ≈ µs per request |`,
  );
  console.log("|---|---|---|---|");
  for (const [leaf, t] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const isWrite = leaf.startsWith("writev [native]");
    console.log(
      `| ${leaf.replaceAll("|", "\\|")} | ${pct(t, busy)} | ${isWrite ? "" : pct(t, user)} | ${isWrite ? "(system time)" : f1((t / user) * plain.mainUser)} |`,
    );
  }
}

const profiler = (runDir: string) => ["--cpu-prof", "--cpu-prof-dir", runDir, "--cpu-prof-interval", String(interval)];

console.log(`<!-- npx tsx scripts/bench/profile.ts ${seconds} --interval ${interval}; profiles in ${dir} -->`);
const probe = await startMockTarget();
let scenarios;
const fixtures = [];
try {
  scenarios = (await buildScenarios(probe.url, MOCK_API_KEY)).slice(0, 2);
  for (const s of scenarios) {
    const a = await exchange(probe.url, s.request);
    fixtures.push({
      method: s.request.method,
      path: s.request.path.split("?")[0],
      status: a.status,
      contentType: a.contentType,
      bodyBase64: a.body.toString("base64"),
    });
  }
} finally {
  await probe.stop();
}
// Ids from each mock process's own seeded world, as in the bench.
const ownRequest = async (mock: Child, i: number) => (await buildScenarios(mock.url, MOCK_API_KEY))[i].request;
for (const [i, s] of scenarios.entries()) {
  const bare = await run(await startBareTarget("http", fixtures), s.request);
  const plainMock = await startMockTarget({ sources: true });
  const plain = await run(plainMock, await ownRequest(plainMock, i));
  // Each thread writes its own profile (tsx's loader runs on one of its own): the main thread's is
  // the file named CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile (thread 0) in its run's directory.
  const bareDir = path.join(dir, `request-${i}-bare`);
  const bareProfiled = await run(await startBareTarget("http", fixtures, profiler(bareDir)), s.request, bareDir);
  const mockDir = path.join(dir, `request-${i}-mock`);
  const profiledMock = await startMockTarget({ nodeArgs: profiler(mockDir), sources: true });
  const profiled = await run(profiledMock, await ownRequest(profiledMock, i), mockDir);

  console.log(`\n#### ${s.name}\n`);
  console.log(`Server CPU per request (µs) from /proc, 8 connections, ${seconds} s measured after 2 s of warm-up:\n`);
  console.log("| | process | user | system | main thread user / system | other threads | req/s |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(cpuRow("(b) bare node:http", bare));
  console.log(cpuRow("the mock as `npm start` runs it", plain));
  console.log(cpuRow("(b) under the profiler", bareProfiled));
  console.log(cpuRow("the mock under the profiler", profiled));
  printProfile("The mock's profile", profiled, plain, 25);
  printProfile("(b) bare node:http's profile, for comparison", bareProfiled, bare, 8);
}
if (!values.keep) rmSync(dir, { recursive: true, force: true });
