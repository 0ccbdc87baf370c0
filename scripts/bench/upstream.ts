/**
 * Part 8: the upstream door (`--upstream`, issue 24) beside a bare proxy, on the same upstream.
 *   upstream: the compiled mock (`node dist/mock-server/main.js`, NODE_ENV=production) in a child
 *   (p) a bare node:http proxy (bareProxy below: http.request piping request and answer, a kept-alive
 *       agent), in a child: what forwarding costs with nothing else done
 *   (door) `node dist/mock-server/main.js --upstream URL` as `npm start` runs it (NODE_ENV unset, its
 *       request log off): routing, the journal, X-Mock-Source, and the drift checks after each answer
 * For GET one call and GET a page of calls: latency p50/p99 at a fixed moderate rate (autocannon's
 * overallRate: the same requests per second through both, so latency is not queueing), then the most
 * requests per second each takes (part 1's measureLoad). The targets run in turn for each request. Ratios
 * door/bare (bare/door for requests per second) are printed beside the goal of 1.3x; nothing asserts on
 * time. Memory: the door's RSS, sampled from /proc every 10 ms, while a 25 MB multipart upload
 * (createKnowledgeBase) streams through a fresh door: before, peak, after; then while more of them
 * follow, and the same through a fresh bare proxy. One upload's garbage may wait for a collection, so
 * RSS grows by a good part of an upload through a bare pipe too; a door that held bodies would grow
 * by an upload's size with each one, one that streams levels off as the bare proxy does.
 *
 * Also the bare proxy's entry: `node --import tsx scripts/bench/upstream.ts bare-proxy PORT UPSTREAM_URL`.
 */
import http from "node:http";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { freePort, rssOf, startChild, TSX_EXEC_ARGV, watchRss, type Child } from "./children.js";
import { formatCell } from "./compare.js";
import {
  atFixedRate,
  measureLoad,
  type BenchRequest,
  type LoadOptions,
  type LoadResult,
  type RateResult,
} from "./load.js";
import { MB } from "./scenarios.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";
import { upload } from "./uploads.js";
import { f0, f2, table } from "./markdown.js";

export interface UpstreamPlan {
  /** Requests per second, over all connections, for the latency runs. */
  rate: number;
  /** Connections of the latency runs (few: at a moderate rate, latency without queueing). */
  rateConnections: number;
  /** Size of the file streamed through the door while its RSS is sampled. */
  uploadMB: number;
  /** Uploads of that size one after the other (the first one's figures are kept apart). */
  uploads: number;
}

export const UPSTREAM_TARGETS = [
  { id: "bare", label: "(p) bare node:http proxy" },
  { id: "door", label: "(door) --upstream, as npm start runs it" },
] as const;
export type UpstreamTargetId = (typeof UPSTREAM_TARGETS)[number]["id"];

export const UPSTREAM_SCENARIOS = ["GET /v1/calls/{callId}", "GET /v1/calls?page=0&size=10"];

/** The door may cost at most this many times the bare proxy (latency, and requests per second the other way). */
export const UPSTREAM_GOAL = 1.3;

export interface UpstreamCell {
  atRate: RateResult;
  max: LoadResult;
}

export interface UpstreamFigures {
  command: string;
  date: string;
  durationSec: number;
  loadBefore: number[];
  loadAfter: number[];
  load: LoadOptions;
  plan: UpstreamPlan;
  rows: { scenario: string; cells: Record<UpstreamTargetId, UpstreamCell> }[];
  /** Through a fresh door, and a fresh bare proxy for reference. */
  memory: Record<UpstreamTargetId, MemoryFigures>;
}

export interface MemoryFigures {
  /** Statuses and milliseconds of the uploads, in order. */
  statuses: number[];
  uploadMs: number[];
  /** RSS (bytes) after a 1 MB upload, the highest during and right after the first upload, and after it. */
  before: number;
  peakFirst: number;
  afterFirst: number;
  /** The highest over all the uploads, and after the last. */
  peak: number;
  after: number;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** RSS of a fresh target's process while `plan.uploads` uploads of `plan.uploadMB` stream through it. */
async function streamedRss(target: Child, plan: UpstreamPlan): Promise<MemoryFigures> {
  const pid = target.process.pid;
  await upload(target.url, MB);
  await settle();
  const before = rssOf(pid) ?? Number.NaN;
  const all = watchRss(pid, 10);
  const first = watchRss(pid, 10);
  const statuses: number[] = [];
  const uploadMs: number[] = [];
  let peakFirst = Number.NaN;
  let afterFirst = Number.NaN;
  for (let i = 0; i < plan.uploads; i++) {
    const sent = await upload(target.url, plan.uploadMB * MB);
    statuses.push(sent.status);
    uploadMs.push(sent.ms);
    if (i === 0) {
      await settle();
      peakFirst = first.stop() ?? Number.NaN;
      afterFirst = rssOf(pid) ?? Number.NaN;
    }
  }
  await settle();
  return {
    statuses,
    uploadMs,
    before,
    peakFirst,
    afterFirst,
    peak: all.stop() ?? Number.NaN,
    after: rssOf(pid) ?? Number.NaN,
  };
}

function memoryLine(label: string, plan: UpstreamPlan, m: MemoryFigures): string {
  return `${label}: ${m.statuses.join(", ")}; RSS before ${mib(m.before)}, first upload peak ${mib(m.peakFirst)} (+${mib(m.peakFirst - m.before)}) after ${mib(m.afterFirst)}; ${plan.uploads} uploads (${plan.uploads * plan.uploadMB} MB) peak ${mib(m.peak)} (+${mib(m.peak - m.before)}) after ${mib(m.after)}`;
}

/** The bare proxy: every request to the upstream as it came (Host aside), every answer back as it came. */
export function bareProxy(port: number, upstream: string): http.Server {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const out = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  return server.listen(port, "127.0.0.1");
}

async function startBareProxy(upstream: string): Promise<Child> {
  const port = await freePort();
  return startChild({
    name: "bare node:http proxy",
    args: [...TSX_EXEC_ARGV, fileURLToPath(import.meta.url), "bare-proxy", String(port), upstream],
    url: `http://127.0.0.1:${port}`,
    // Forwarded: the upstream's health.
    readyPath: "/__mock/health",
  });
}

/**
 * The door, as `npm start -- --upstream URL` runs it (the compiled mock, NODE_ENV unset, request log off):
 * the mock of `kit` (this checkout, or REV's worktree under --against), in front of this checkout's upstream.
 */
function startDoor(upstream: string, kit?: string): Promise<Child> {
  return startMockTarget({ name: "door (--upstream)", root: kit, args: ["--upstream", upstream] });
}

const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? a / b : Number.NaN);
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : "n/a");
const goal = (n: number) => (Number.isFinite(n) ? (n <= UPSTREAM_GOAL ? "met" : "**missed**") : "n/a");
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export async function measureUpstream(
  command: string,
  load: LoadOptions,
  plan: UpstreamPlan,
  log: (line: string) => void,
  kit?: string,
): Promise<UpstreamFigures> {
  const started = performance.now();
  const loadBefore = os.loadavg();
  const children: Child[] = [];
  const start = async (child: Promise<Child>) => {
    const running = await child;
    children.push(running);
    return running;
  };
  try {
    const upstream = await start(startMockTarget({ config: "production", name: "upstream" }));
    const [bare, door] = await Promise.all([start(startBareProxy(upstream.url)), start(startDoor(upstream.url, kit))]);
    const calls = (await (await fetch(`${upstream.url}/__mock/workspaces/default/calls`)).json()) as {
      callId: string;
    }[];
    const headers = { "X-API-Key": MOCK_API_KEY };
    const requests: Record<string, BenchRequest> = {
      [UPSTREAM_SCENARIOS[0]]: { method: "GET", path: `/v1/calls/${calls[0].callId}`, headers, expect: 200 },
      [UPSTREAM_SCENARIOS[1]]: { method: "GET", path: "/v1/calls?page=0&size=10", headers, expect: 200 },
    };
    const targets: Record<UpstreamTargetId, Child> = { bare, door };
    const rows: UpstreamFigures["rows"] = [];
    for (const scenario of UPSTREAM_SCENARIOS) {
      const request = requests[scenario];
      const cells = {} as Record<UpstreamTargetId, UpstreamCell>;
      for (const { id } of UPSTREAM_TARGETS) {
        const { url, process } = targets[id];
        const pace = { rate: plan.rate, connections: plan.rateConnections };
        if (load.warmupSec > 0) await atFixedRate(url, request, load, { ...pace, durationSec: load.warmupSec });
        const fixed = await atFixedRate(url, request, load, { ...pace, durationSec: load.durationSec });
        cells[id] = { atRate: fixed, max: await measureLoad(url, request, load, process.pid) };
      }
      for (const { id, label } of UPSTREAM_TARGETS) {
        const { atRate: fixed, max } = cells[id];
        log(
          `  ${scenario.padEnd(30)} ${label.padEnd(40)} at ${fixed.rate.toFixed(0)}/s: p50 ${fixed.p50.toFixed(2)} ms  p99 ${fixed.p99.toFixed(2)} ms  errors ${fixed.errors}; max: ${formatCell(max)}`,
        );
      }
      const { bare: b, door: d } = cells;
      log(
        `  ${scenario.padEnd(30)} door/bare: p50 ${x(ratio(d.atRate.p50, b.atRate.p50))}, p99 ${x(ratio(d.atRate.p99, b.atRate.p99))}; bare/door req/s ${x(ratio(b.max.rps, d.max.rps))} (goal at most ${UPSTREAM_GOAL}x)`,
      );
      rows.push({ scenario, cells });
    }
    await Promise.all(children.splice(1).map((c) => c.stop()));

    // Fresh processes, so a baseline is not the garbage of the load above; one at a time.
    const memory = {} as Record<UpstreamTargetId, MemoryFigures>;
    for (const { id, label } of UPSTREAM_TARGETS) {
      const fresh = await start(id === "door" ? startDoor(upstream.url, kit) : startBareProxy(upstream.url));
      memory[id] = await streamedRss(fresh, plan);
      await fresh.stop();
      log(`  ${plan.uploadMB} MB uploads through ${memoryLine(label, plan, memory[id])}`);
    }
    return {
      command,
      date: new Date().toISOString(),
      durationSec: (performance.now() - started) / 1000,
      loadBefore,
      loadAfter: os.loadavg(),
      load,
      plan,
      rows,
      memory,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

/** The section of RESULTS.md; empty when no run measured this part. */
export function renderUpstream(u: UpstreamFigures | undefined): string {
  if (!u) return "";
  const measured = u.load.amount
    ? `${u.load.amount} requests`
    : `${u.load.warmupSec} s warm-up then ${u.load.durationSec} s measured`;
  const latency = table(
    ["request", ...UPSTREAM_TARGETS.map((t) => `${t.label} p50 / p99`), "door/bare p50", "door/bare p99", "goal"],
    u.rows.map(({ scenario, cells: { bare, door } }) => {
      const p50 = ratio(door.atRate.p50, bare.atRate.p50);
      const p99 = ratio(door.atRate.p99, bare.atRate.p99);
      return [
        scenario,
        `${f2(bare.atRate.p50)} / ${f2(bare.atRate.p99)}`,
        `${f2(door.atRate.p50)} / ${f2(door.atRate.p99)}`,
        x(p50),
        x(p99),
        `p50 ${goal(p50)}, p99 ${goal(p99)}`,
      ];
    }),
  );
  const throughput = table(
    [
      "request",
      ...UPSTREAM_TARGETS.map((t) => `${t.label} req/s`),
      "bare/door",
      "goal",
      "CPU µs/req (p / door)",
      "errors (p / door)",
    ],
    u.rows.map(({ scenario, cells: { bare, door } }) => {
      const slower = ratio(bare.max.rps, door.max.rps);
      return [
        scenario,
        f0(bare.max.rps),
        f0(door.max.rps),
        x(slower),
        goal(slower),
        `${f0(bare.max.cpuUs ?? Number.NaN)} / ${f0(door.max.cpuUs ?? Number.NaN)}`,
        `${bare.max.errors + bare.atRate.errors} / ${door.max.errors + door.atRate.errors}`,
      ];
    }),
  );
  const memory = table(
    [
      "through",
      "statuses",
      "RSS before",
      "first upload: peak (growth)",
      "after it",
      `${u.plan.uploads} uploads (${u.plan.uploads * u.plan.uploadMB} MB): peak (growth)`,
      "after them",
    ],
    UPSTREAM_TARGETS.map(({ id, label }) => {
      const m = u.memory[id];
      return [
        label,
        m.statuses.join(", "),
        mib(m.before),
        `${mib(m.peakFirst)} (+${mib(m.peakFirst - m.before)})`,
        mib(m.afterFirst),
        `${mib(m.peak)} (+${mib(m.peak - m.before)})`,
        mib(m.after),
      ];
    }),
  );
  const door = u.memory.door;
  return `## 8. The upstream door (\`--upstream\`) beside a bare proxy

Generated by \`${u.command}\` on ${u.date} in ${f0(u.durationSec)} s; load average before / after: ${u.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${u.loadAfter.map((n) => n.toFixed(2)).join(", ")}.
\`scripts/bench/upstream.ts\`. One upstream, the compiled mock with \`NODE_ENV=production\`, in a child process; in front of it, each in a
child process too: (p) a bare \`node:http\` proxy of 30 lines (\`http.request\` piping the request and the answer, a kept-alive
agent), the cost of forwarding with nothing else done; (door) \`node dist/mock-server/main.js --upstream URL --log-format off\`
with \`NODE_ENV\` unset, as \`npm start\` runs it: routing, the journal, \`X-Mock-Source\`, and the drift checks of every answer
(off the response path, in the same process). The figures are the whole chain, upstream included; the targets run in turn for
each request. Goal: the door at most ${UPSTREAM_GOAL}x the bare proxy (not asserted; a smaller difference than the run-to-run noise
of a shared 2-core machine means nothing).

### Latency at a fixed rate (ms)

${u.plan.rate} requests per second over ${u.plan.rateConnections} connections (autocannon's \`overallRate\`: each connection sends its share of
a second back to back, one request at a time, then waits for the next second), ${measured}: latency without a queue.

${latency}

### Most requests per second

As part 1: ${u.load.connections} connections, ${measured}; CPU time per request of the proxy's own process (the upstream's not counted).

${throughput}

### Memory while ${u.plan.uploadMB} MB uploads stream through the door

A fresh door (after one 1 MB upload), its RSS sampled from /proc every 10 ms while a ${u.plan.uploadMB} MB multipart upload
(\`createKnowledgeBase\`, one text file) streams through it to the upstream (the first in ${f0(door.uploadMs[0] ?? Number.NaN)} ms), then
${u.plan.uploads - 1} more one after the other; the same through a fresh bare proxy for reference. What one upload leaves is garbage a
collection has not taken yet, so RSS grows by a good part of an upload through the bare pipe too: the door holds no body
when its growth levels off over all the uploads, as the bare proxy's does, instead of adding ${u.plan.uploadMB} MB with each.

${memory}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === "bare-proxy")
  bareProxy(Number(process.argv[3]), process.argv[4]);
