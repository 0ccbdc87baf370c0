/**
 * RESULTS.md from one run's figures, rewritten whole each time. The only hand-written part is
 * profile-notes.md (where the mock's CPU goes, with its own figures and the command that produced
 * them: scripts/bench/profile.ts), included verbatim.
 */
import { existsSync, readFileSync } from "node:fs";
import { TARGETS, type CompareRow, type TargetId } from "./compare.js";
import type { LoadOptions, LoadResult } from "./load.js";
import { formatRatio, MSW_BASE_URL, type MswRow } from "./msw.js";
import { CALL_QUERIES, RUN_QUERIES, type ScaleRow } from "./scale.js";
import {
  GATEWAY_BURST,
  GATEWAY_RATE,
  gatewayDerived,
  gatewayGoals,
  GOAL_OVER_FLOOR,
  GOAL_SHARE_429,
  type GatewayFigures,
  type GatewayRun,
} from "./gateway.js";
import type { InstalledFigures } from "./installed.js";
import { type PROFILED, requestMedians, type ExercisedFigures, type ReadFigures } from "./exercised.js";
import {
  formatSentBy,
  ROUND_TRIP_WARMUP,
  STORE_TARGETS,
  type SharedStoreFigures,
  type StoreCell,
} from "./shared-store.js";
import { median, type StartFigures, type ToolingFigures } from "./tooling.js";
import type { UploadFigures } from "./uploads.js";
import { f0, f2, table } from "./markdown.js";

export interface Results {
  date: string;
  command: string;
  quick: boolean;
  machine: {
    cores: number;
    cpu: string;
    node: string;
    os: string;
    memoryGiB: number;
    loadBefore: number[];
    loadAfter: number[];
  };
  load: LoadOptions;
  scaleSamples: number;
  compare: CompareRow[];
  /** Part 2, the MSW door; absent in figures saved before it was measured. */
  msw?: MswRow[];
  scale: ScaleRow[];
  starts: StartFigures;
  installed: InstalledFigures;
  tooling: ToolingFigures;
  uploads: UploadFigures;
  /** Part 6, the shared store (Redis); absent in figures saved before it was measured. */
  sharedStore?: SharedStoreFigures;
  /** Part 7, the conformance suite through a gateway; absent in figures saved before it was measured. */
  gateway?: GatewayFigures;
  durationSec: number;
}

const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "n/a");
const mib = (bytes: number | undefined) => (bytes === undefined ? "n/a" : `${(bytes / 2 ** 20).toFixed(0)} MiB`);
const cpuRatio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}` : "n/a";
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
const measured = (l: LoadOptions) =>
  l.amount ? `${l.amount} requests` : `${l.warmupSec} s warm-up then ${l.durationSec} s measured`;

/** A cell a run did not measure (figures saved by an older bench): rendered as n/a. */
const NOT_MEASURED: LoadResult = { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, errors: 0, requests: 0 };
const at = (row: CompareRow, id: TargetId): LoadResult => row.cells[id] ?? NOT_MEASURED;

function comparison(r: Results): string {
  const ids = TARGETS.map((t) => t.id);
  const rps = table(
    ["request", ...TARGETS.map((t) => t.label), "c/a", "c/b", "c/d"],
    r.compare.map((row) => [
      row.scenario,
      ...ids.map((id) => f0(at(row, id).rps)),
      ratio(at(row, "c").rps, at(row, "a").rps),
      ratio(at(row, "c").rps, at(row, "b").rps),
      ratio(at(row, "c").rps, at(row, "d").rps),
    ]),
  );
  const latency = table(
    ["request", ...TARGETS.map((t) => t.label), "c/a p99", "c/b p99", "c/d p99"],
    r.compare.map((row) => [
      row.scenario,
      ...ids.map((id) => `${f2(at(row, id).p50)} / ${f2(at(row, id).p99)}`),
      ratio(at(row, "c").p99, at(row, "a").p99),
      ratio(at(row, "c").p99, at(row, "b").p99),
      ratio(at(row, "c").p99, at(row, "d").p99),
    ]),
  );
  const cpu = table(
    ["request", ...TARGETS.map((t) => t.label), "c÷a", "c÷b", "c÷d"],
    r.compare.map((row) => [
      row.scenario,
      ...ids.map((id) => f0(at(row, id).cpuUs ?? Number.NaN)),
      cpuRatio(at(row, "c").cpuUs, at(row, "a").cpuUs),
      cpuRatio(at(row, "c").cpuUs, at(row, "b").cpuUs),
      cpuRatio(at(row, "c").cpuUs, at(row, "d").cpuUs),
    ]),
  );
  const errors = table(
    ["request", ...TARGETS.map((t) => t.label)],
    r.compare.map((row) => [row.scenario, ...ids.map((id) => `${at(row, id).errors} of ${at(row, id).requests}`)]),
  );
  return [
    "### Requests per second",
    "c/a, c/b, c/d: (c)'s requests per second over (a)'s, (b)'s, (d)'s (higher is better for the mock).",
    "",
    rps,
    "",
    "### Latency p50 / p99 (ms)",
    latency,
    "",
    "### Server CPU time per request (µs; lower is better)",
    "Read from /proc for the server's process (all its threads) over the measured run, divided by the requests answered. Unlike",
    "requests per second it does not count time spent waiting for a core, so it moves less when the machine is busy.",
    "",
    cpu,
    "",
    "### Errors (connection errors, timeouts and unexpected statuses) of requests answered",
    errors,
  ].join("\n");
}

function msw(r: Results): string {
  if (!r.msw?.length) return "(not measured in this run)";
  const line = (scenario: string, what: string, cell: LoadResult, ratio = "") => [
    scenario,
    what,
    f0(cell.rps),
    `${f2(cell.p50)} / ${f2(cell.p99)}`,
    f0(cell.cpuUs ?? Number.NaN),
    `${cell.errors} of ${cell.requests}`,
    ratio,
  ];
  return table(
    ["request", "handlers", "req/s", "p50 / p99 (ms)", "CPU µs per request (whole process)", "errors", "door / bare"],
    r.msw.flatMap(({ scenario, cell, bare, ratio }) => [
      line(scenario, "the door", cell, formatRatio(ratio)),
      ...(bare ? [line(scenario, "bare msw", bare)] : []),
    ]),
  );
}

function cell(r: Results, scenario: string, id: TargetId): LoadResult {
  const row = r.compare.find((x) => x.scenario.startsWith(scenario));
  return row ? at(row, id) : NOT_MEASURED;
}

/** "1.23x (c-prod 1.40x; by CPU per request 1.10x)": the ratio for (c), then for (c-prod), then by CPU. */
function throughput(r: Results, scenario: string, other: TargetId): string {
  const [c, prod, o] = [cell(r, scenario, "c"), cell(r, scenario, "cprod"), cell(r, scenario, other)];
  const byCpu = o.cpuUs !== undefined && c.cpuUs ? `; by CPU per request ${(o.cpuUs / c.cpuUs).toFixed(2)}x` : "";
  return `${ratio(c.rps, o.rps)} (c-prod ${ratio(prod.rps, o.rps)}${byCpu})`;
}

const ONE = "GET /v1/calls/{callId}";

function targets(r: Results): string {
  const rows: string[][] = [];
  for (const s of ["GET /v1/calls?page", ONE]) {
    const [c, d] = [cell(r, s, "c"), cell(r, s, "d")];
    rows.push([
      `${s.replace("?page", "")}: mock >= 5x Prism req/s`,
      throughput(r, s, "d"),
      verdict(c.rps >= 5 * d.rps),
    ]);
  }
  const [c, a, b] = [cell(r, ONE, "c"), cell(r, ONE, "a"), cell(r, ONE, "b")];
  rows.push([`${ONE}: mock >= 1.0x bare Express req/s`, throughput(r, ONE, "a"), verdict(c.rps >= a.rps)]);
  rows.push([`${ONE}: mock >= 0.3x bare node:http req/s`, throughput(r, ONE, "b"), verdict(c.rps >= 0.3 * b.rps)]);
  for (const row of r.compare) {
    // The single-record read has the tighter bound; the other requests keep the earlier 2x.
    const bound = row.scenario === ONE ? 1.5 : 2;
    const [rc, ra] = [at(row, "c"), at(row, "a")];
    rows.push([
      `${row.scenario}: mock p99 <= ${bound}x bare Express p99`,
      `${f2(rc.p99)} vs ${f2(ra.p99)} ms (${ratio(rc.p99, ra.p99)})`,
      verdict(rc.p99 <= bound * ra.p99),
    ]);
  }
  const spread = (name: string) => {
    const p50s = r.scale.map((s) => s.queries.find((q) => q.name === name)!.p50);
    return Math.max(...p50s) / Math.min(...p50s);
  };
  for (const q of [...CALL_QUERIES.slice(0, 3), ...RUN_QUERIES.slice(0, 2)])
    rows.push([`scale: p50 of "${q}" within 2x across sizes`, `${spread(q).toFixed(2)}x`, verdict(spread(q) <= 2)]);
  const biggest = r.scale.at(-1)!;
  rows.push([
    `scale: RSS at ${biggest.calls.toLocaleString("en")} calls <= 1 GiB`,
    mib(biggest.rss),
    verdict(biggest.rss <= 2 ** 30),
  ]);
  rows.push([
    "start: mock to first 200 on /__mock/health < 1 s (median)",
    `${f0(median(r.starts.mock))} ms`,
    verdict(median(r.starts.mock) < 1000),
  ]);
  const installedStart = median(r.installed.starts);
  rows.push([
    `installed bin \`agent-platform-mock\`: spawn to first 200 < 300 ms (median of ${r.installed.starts.length}), one process`,
    `${f0(installedStart)} ms; ${r.installed.processes} process(es); idle RSS ${mib(r.installed.idleRss)}`,
    verdict(installedStart < 300 && r.installed.processes === 1),
  ]);
  rows.push([
    "`npm run generate` < 10 s",
    `${(r.tooling.generateMs / 1000).toFixed(1)} s`,
    verdict(r.tooling.generateMs < 10_000),
  ]);
  rows.push([
    "full conformance run against a local mock < 20 s",
    `${(r.tooling.conformanceMs / 1000).toFixed(1)} s`,
    verdict(r.tooling.conformanceMs < 20_000 && r.tooling.conformanceExit === 0),
  ]);
  const growth = r.uploads.peakRss - r.uploads.baselineRss;
  rows.push([
    "100 MB upload: 413, RSS grows <= 64 MiB",
    `${r.uploads.oversizeStatus}, +${mib(growth)}`,
    verdict(r.uploads.oversizeStatus === 413 && growth <= 64 * 2 ** 20),
  ]);
  rows.push(...gatewayTargets(r.gateway));
  return table(["target", "measured", "verdict"], rows);
}

function scale(r: Results): string {
  const queries = [...CALL_QUERIES, ...RUN_QUERIES];
  const head = [
    "",
    ...r.scale.map((s) => `${s.calls.toLocaleString("en")} calls, ${s.testRuns.toLocaleString("en")} test runs`),
  ];
  const rows = [
    [
      "load time (calls + test runs)",
      ...r.scale.map((s) => `${(s.loadCallsMs / 1000).toFixed(2)} s + ${(s.loadTestRunsMs / 1000).toFixed(2)} s`),
    ],
    ["RSS after load and a full GC", ...r.scale.map((s) => mib(s.rss))],
    ["heap used after load and a full GC", ...r.scale.map((s) => mib(s.heapUsed))],
    ["peak RSS while loading", ...r.scale.map((s) => mib(s.peakRss))],
    ...queries.map((q) => [
      `${q}: p50 / p99 ms`,
      ...r.scale.map((s) => {
        const m = s.queries.find((x) => x.name === q)!;
        return `${f2(m.p50)} / ${f2(m.p99)}${m.errors ? ` (${m.errors} errors)` : ""}`;
      }),
    ]),
  ];
  return table(head, rows);
}

function startAndTooling(r: Results): string {
  const list = (xs: number[]) => `${f0(median(xs))} ms (samples: ${xs.map(f0).join(", ")})`;
  return table(
    ["measure", "figure"],
    [
      [
        "mock from the sources: `node --import tsx mock-server/main.ts`, spawn to first 200 on /__mock/health",
        list(r.starts.mock),
      ],
      ["mock from the sources: CPU time used by then (main and loader threads)", list(r.starts.mockCpu)],
      [
        "mock: `npm start` (npm, its shell and the compiled mock in dist/), spawn to first 200",
        list(r.starts.npmStart),
      ],
      [
        "installed bin: `agent-platform-mock` from the packed tarball in a fresh project, spawn to first 200",
        list(r.installed.starts),
      ],
      ["installed bin: CPU time used by then", list(r.installed.startCpu)],
      [
        `installed bin: RSS after ${(r.installed.idleMs ?? 2_000) / 1000} s idle; processes`,
        `${mib(r.installed.idleRss)}; ${r.installed.processes}`,
      ],
      [
        "packed tarball: size, files; packages an install of it alone brings",
        `${(r.installed.tarballBytes / 1024).toFixed(0)} KiB, ${r.installed.tarballFiles} files; ${r.installed.packages} packages`,
      ],
      ["Prism: `prism mock generated/openapi.json`, spawn to first 200 on GET /v1/agents", list(r.starts.prism)],
      ["Prism: CPU time used by then", list(r.starts.prismCpu)],
      [
        "`npm run generate` (in a copy of the repo)",
        `${(r.tooling.generateMs / 1000).toFixed(2)} s; output ${r.tooling.generateIdentical ? "identical to" : "**differs from**"} generated/`,
      ],
      [
        "`npm run conformance` against a local mock (whole command)",
        `${(r.tooling.conformanceMs / 1000).toFixed(2)} s; exit ${r.tooling.conformanceExit}; ${r.tooling.conformanceSummary}`,
      ],
    ],
  );
}

function uploads(r: Results): string {
  const u = r.uploads;
  return table(
    ["measure", "figure"],
    [
      [
        "25 MB text file, first byte to 201",
        `${f0(median(u.throughputMBps))} MB/s median (samples: ${u.throughputMBps.map(f0).join(", ")} MB/s; statuses ${u.statuses25.join(", ")})`,
      ],
      [
        `${u.oversizeMB} MB text file`,
        `status ${u.oversizeStatus} after ${f0(u.oversizeAnswerMs)} ms (the body is still drained after the answer)`,
      ],
      [
        "mock RSS: baseline / peak during the upload / growth",
        `${mib(u.baselineRss)} / ${mib(u.peakRss)} / +${mib(u.peakRss - u.baselineRss)}`,
      ],
    ],
  );
}

const round = (n: number | undefined, digits: number) =>
  n !== undefined && Number.isFinite(n) ? Number(n.toFixed(digits)) : Number.NaN;
const f3 = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(3) : "n/a");
const errorsOf = (c: StoreCell) =>
  `${c.errors} of ${c.requests}${
    c.unexpected
      ? ` (statuses ${Object.entries(c.unexpected)
          .map(([s, n]) => `${s}: ${n}`)
          .join(", ")})`
      : ""
  }`;

function storeLoad(s: SharedStoreFigures): string {
  return table(
    [
      "request",
      "target",
      "req/s",
      "p50 / p99 (ms)",
      "mock CPU ms per request (its processes)",
      "redis-server CPU ms per request",
      "script calls per request",
      "errors",
    ],
    s.rows.flatMap((row) =>
      STORE_TARGETS.map(({ id, label }) => {
        const c = row.cells[id];
        const processes =
          c.mockProcesses > 1
            ? `${f3(c.mockCpuMs)} (${c.mockProcesses}: ${c.mockCpuMsByProcess.map(f3).join(" + ")})`
            : f3(c.mockCpuMs);
        return [
          row.scenario,
          label,
          f0(c.rps),
          `${f2(c.p50)} / ${f2(c.p99)}`,
          processes,
          f3(c.redisCpuMs),
          c.scriptCallsPerRequest === undefined ? "n/a" : f2(c.scriptCallsPerRequest),
          errorsOf(c),
        ];
      }),
    ),
  );
}

function storeRoundTrips(s: SharedStoreFigures): string {
  return table(
    [
      "operation",
      "commands the mock sent per request (awaited or not)",
      "by command",
      "EVALSHA + EVAL per request (commandstats)",
      "commands Redis executed per request (its scripts' included)",
      "errors",
    ],
    s.roundTrips.map((t) => [
      t.operation,
      f2(t.sent),
      formatSentBy(t.sentBy),
      f2(t.scriptCalls),
      f2(t.executed),
      `${t.errors} of ${t.requests}`,
    ]),
  );
}

/** The scaling arithmetic for one request, from (b)'s figures (and (a)'s, (c)'s for comparison). */
function scalingOf(row: SharedStoreFigures["rows"][number]): string {
  const [a, b, c] = [row.cells.memory, row.cells.redis, row.cells.workers];
  // Computed from the figures as printed (rounded), so the arithmetic shown checks out by hand.
  const Z = round(b.redisCpuMs, 3);
  const M = round(b.mockCpuMs, 3);
  const ceiling = round(1000 / Z, 0);
  const perCore = round(1000 / M, 0);
  const lines = [
    `- **${row.scenario}** (${row.kind}): one process on Redis (b) served ${f0(b.rps)} req/s at ${f3(M)} ms of mock CPU and ${f3(Z)} ms of`,
    `  redis-server CPU per request (in memory, (a): ${f0(a.rps)} req/s at ${f3(a.mockCpuMs)} ms). Redis runs commands on one thread, so at ${f3(Z)} ms`,
    `  per request it saturates one core at 1000 / ${f3(Z)} = **${f0(ceiling)} req/s**: the ceiling however many machines run the mock.`,
    `  A mock process bound by its own CPU serves 1000 / ${f3(M)} = **${f0(perCore)} req/s per core**, so each additional core of mock (a`,
    `  process per core, on as many machines as it takes) adds about ${f0(perCore)} req/s until ${f0(ceiling)} / ${f0(perCore)} = ${f2(ceiling / perCore)} cores' worth,`,
    `  where Redis is full. Two workers on this machine (c) served ${f0(c.rps)} req/s (${ratio(c.rps, b.rps)} of (b)) at ${f3(c.mockCpuMs)} ms of mock CPU`,
    `  and ${f3(c.redisCpuMs)} ms of Redis CPU per request.`,
  ];
  const [calls, one] = [round(c.scriptCallsPerRequest, 2), round(b.scriptCallsPerRequest, 2)];
  if (row.kind === "write" && Number.isFinite(calls)) {
    lines.push(
      `  Every write here goes to one workspace, and a process runs the writes to one workspace one at a time, each over its commit's`,
      `  round trip. With two processes each write took ${f2(calls)} script calls against ${f2(one)} for one: (${f2(calls)} - ${f2(one)}) / 2 = ${f2((calls - one) / 2)} commits per`,
      `  request refused because the other process wrote first (each costs a refused commit and a re-read), and by (c)'s Redis CPU`,
      `  Redis is full at 1000 / ${f3(c.redisCpuMs)} = ${f0(1000 / round(c.redisCpuMs, 3))} req/s: concurrent writers of one workspace scale worse than the arithmetic above.`,
      `  The version check is per workspace, so writers of different workspaces do not refuse each other (not measured here).`,
    );
  }
  return lines.join("\n");
}

function sharedStore(r: Results): string {
  const s = r.sharedStore;
  if (!s) return "(not measured in this run)";
  const accounting = (yes: boolean) => (yes ? "counts" : "does not count");
  return `Three targets, each the compiled mock as \`npm start\` runs it (\`node dist/mock-server/main.js\`, \`NODE_ENV\` unset, so response
validation is on) with \`--clock virtual --log-format off\`: (a) in memory, one process; (b) \`--store redis://127.0.0.1:PORT\`,
one process, on a fresh redis-server (${s.redisVersion}, no persistence) started by the bench; (c) \`--store redis://... --workers 2\`
(node:cluster: a primary handing connections to two workers) on another fresh redis-server. Same load as part 1
(${r.load.connections} connections, ${measured(r.load)} per request and target, targets in turn). The mock's CPU time is read
from /proc for its process and every descendant (for (c) the primary + both workers, listed in that order) and redis-server's
from its own pid, over the measured run, each divided by the requests answered. Script calls per request: EVALSHA + EVAL by
INFO commandstats over the run, the mock's script calls to Redis (awaited or not), retried commits included.

**This machine has ${r.machine.cores} cores**: autocannon, the mock's processes and redis-server share them, so (c)'s two workers do not
get a core each and its requests per second say little about what two machines would do; CPU time per request does.

${storeLoad(s)}

### Redis commands per operation

${s.roundTripRequests} requests of each operation one after the other (after ${ROUND_TRIP_WARMUP} not counted) to a one-process mock (b) on a fresh
redis-server. The commands the mock sent, whether its answer waited for them or not (the store sends journal and coverage writes without
waiting: part 11 counts the round trips an answer waits for), seen with MONITOR, leaving out those its Lua scripts ran (source
\`lua\`): on this Redis a command run by a script ${accounting(s.scriptCommandsCounted.commandstats)} in INFO commandstats under its own name and
${accounting(s.scriptCommandsCounted.totalCommandsProcessed)} in total_commands_processed (checked by this run: one EVAL running one EXISTS)${s.scriptCommandsCounted.commandstats ? ", so neither counter alone tells\nwhat a client sent" : ""}. EVALSHA + EVAL by commandstats is the cross-check; the executed column sums commandstats, scripts' commands included.

${storeRoundTrips(s)}

### Scaling, from the figures above

${s.rows.map(scalingOf).join("\n")}

These ceilings take Redis's CPU time per request at this load (not saturated) as what a request costs it at saturation, and
the mock's CPU time as what bounds a mock process; network latency between machines adds to each request's time, not to
either CPU figure.`;
}

const pct = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : "n/a");
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";
const GOAL_TEXT = `wall <= ${GOAL_OVER_FLOOR}x its floor, <= ${GOAL_SHARE_429 * 100} % of requests met a 429, none sent during an announced wait`;

/** A rate-limited case's goals as one row of the targets table; the mix's also wants no failed and no inconclusive rule. */
function gatewayTargets(g: GatewayFigures | undefined): string[][] {
  if (!g) return [];
  return g.runs
    .filter((run) => run.limited)
    .map((run) => {
      const d = gatewayDerived(run);
      const goals = gatewayGoals(run);
      const clean = run.id !== "mix" || (run.rules.failed === 0 && run.rules.inconclusive === 0);
      const measuredText = `${f2(d.overFloor)}x, ${pct(d.share429)}, ${run.gateway.early} early${run.id === "mix" ? `; ${run.rules.failed} failed, ${run.rules.inconclusive} inconclusive` : ""}`;
      return [
        `conformance through a gateway, ${run.label}: ${GOAL_TEXT}${run.id === "mix" ? ", no rule failed or inconclusive" : ""}`,
        measuredText,
        verdict(goals.floor && goals.share && goals.early && clean),
      ];
    });
}

function gatewayRow(run: GatewayRun, clean: GatewayRun | undefined): string[] {
  const e = run.environment;
  const d = gatewayDerived(run);
  const limited = (text: string) => (run.limited ? text : "-");
  return [
    run.label,
    `${run.wallSec.toFixed(1)} s${clean && run !== clean ? ` (${ratio(run.wallSec, clean.wallSec)} clean)` : ""}`,
    `${e.requests} / ${run.gateway.received}`,
    limited(`${d.floorSec.toFixed(1)} s`),
    limited(ratio(run.wallSec, d.floorSec)),
    `${run.gateway.rateLimited}${run.limited ? ` (${pct(d.share429)})` : ""}`,
    `${e.waitedSeconds} s`,
    e.pace === null ? "none" : `${e.pace}/s`,
    String(run.gateway.early),
    counts(e.retries),
    `${counts(run.gateway.errorPages)}; resets ${run.gateway.resets}`,
    `${run.rules.failed} / ${run.rules.inconclusive} (exit ${run.exit})`,
  ];
}

function gateway(r: Results): string {
  const g = r.gateway;
  if (!g) return "(not measured in this run)";
  const clean = g.runs.find((run) => run.id === "clean");
  const mix = g.runs.find((run) => run.id === "mix");
  const loads = (xs: number[]) => xs.map((n) => n.toFixed(2)).join(", ");
  const mixText =
    mix && clean
      ? `The mix took ${mix.wallSec.toFixed(1)} s: ${ratio(mix.wallSec, clean.wallSec)} the clean run and ${ratio(mix.wallSec, gatewayDerived(mix).floorSec)} its own floor; the gateway answered
${counts(mix.gateway.errorPages)} with its own error pages and reset ${mix.gateway.resets} connections; the suite sent again after ${counts(mix.environment.retries)}
(by why); ${mix.rules.failed} rules failed and ${mix.rules.inconclusive} were inconclusive (exit ${mix.exit}). Latency p50 / p95 / p99 of the target's own answers:
${mix.environment.latency.p50} / ${mix.environment.latency.p95} / ${mix.environment.latency.p99} ms (clean: ${clean.environment.latency.p50} / ${clean.environment.latency.p95} / ${clean.environment.latency.p99} ms).`
      : "";
  return `Measured by \`${g.command}\` on ${g.date} in ${f0(g.durationSec)} s (load average before / after: ${loads(g.loadBefore)} / ${loads(g.loadAfter)})${g.only ? `, **--only ${g.only}**, not the whole suite` : ""}.

Each row is one run of the ${g.only ? `rules matching \`${g.only}\`` : "whole documented-level suite"} (\`main([..., "--target", "foreign"])\` from \`conformance/cli.ts\` in the bench's
process, every other option at its default: \`--rate-limit auto\`, 3 retries, 500 ms backoff, 30 s timeout) against a fresh kit mock
(\`startKitMock({ clock: "real" })\`) behind a fresh gateway double (\`conformance/test/gateway/gateway.ts\`, default seed). Rate-limited
rows: a token bucket of ${GATEWAY_RATE}/s with a burst of ${GATEWAY_BURST}; a refused request consumes no token. Wall time is the run's, from
\`main()\` to its return. The floor is the requests the gateway received / ${GATEWAY_RATE} per second (the burst lets the first
${GATEWAY_BURST} through at once, so the bucket's own floor is a second less). Requests: sent by the suite (environment.requests) / received
by the gateway. 429s: the gateway's, their share of what it received. Waited: the run's seconds waiting on Retry-After and backoff.
Pace: the pace \`--rate-limit auto\` settled on. Early: requests the gateway received while a wait it had announced still ran.
Goals for every rate-limited run: ${GOAL_TEXT}.

${table(
  [
    "gateway",
    "wall",
    "requests (suite / gateway)",
    "floor",
    "wall / floor",
    "429s",
    "waited",
    "pace",
    "early",
    "retries by why",
    "error pages; resets",
    "rules failed / inconclusive",
  ],
  g.runs.map((run) => gatewayRow(run, clean)),
)}

${mixText}

${table(["goal", "measured", "verdict"], gatewayTargets(g))}`;
}

/**
 * Figures saved before (c) became the mock as `npm start` runs it: their (c+rv) (response validation on)
 * is today's (c) and their (c) (NODE_ENV=production) today's (c-prod).
 */
function upgrade(r: Results): Results {
  type Old = Record<string, LoadResult>;
  const compare = r.compare.map((row) => {
    const old = row.cells as unknown as Old;
    return old.crv && !old.cprod ? { ...row, cells: { a: old.a, b: old.b, c: old.crv, cprod: old.c, d: old.d } } : row;
  });
  return { ...r, compare };
}

export function renderResults(saved: Results, notesFile: string): string {
  const r = upgrade(saved);
  const notes = existsSync(notesFile) ? readFileSync(notesFile, "utf8").trim() : "(no profile notes)";
  return `# Benchmark results

Generated by \`${r.command}\` on ${r.date} in ${f0(r.durationSec)} s${r.quick ? " (**--quick**: a smoke run, figures are not meaningful)" : ""}. Rewritten whole by each run;
only the profiling notes at the end are kept by hand in \`scripts/bench/profile-notes.md\`.

Machine: ${r.machine.cores} cores (${r.machine.cpu}), ${r.machine.memoryGiB.toFixed(0)} GiB, Node ${r.machine.node}, ${r.machine.os}.
Load average before / after the run: ${r.machine.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${r.machine.loadAfter.map((n) => n.toFixed(2)).join(", ")}.

How it runs: every server under test is a child process of the bench, and autocannon (the load generator) runs in the bench's own
process, so on ${r.machine.cores} cores the load generator and the server share the CPU. Anything else running on the machine
shows in the figures (see the load average); rerun on a quiet machine before trusting a small difference.
Load: ${r.load.connections} connections, ${measured(r.load)} per request and target; targets run in turn
(a, b, c, c-prod, d) for each request. Latencies are per response, to the microsecond (autocannon's own histogram is in whole ms).

The mock is one core without transport (\`mock-server/core/pipeline.ts\`: routing, API key, body rules, request validation,
Prefer, handlers, response validation, journal) behind three doors: the standalone \`node:http\` server that \`npm start\` runs
(\`mock-server/main.ts\` → \`server.ts\` → \`node/serve.ts\`, no Express on the way), \`createApp()\` (an Express app mounting
the core) and the MSW 2 handlers \`createMockHandlers()\`. Part 1 measures the \`node:http\` door over sockets, part 2 the MSW
door in-process; \`createApp()\` is not measured here.

Targets of part 1:
- (a) a bare Express 5 app answering the mock's own response bytes for each request as a constant (the ceiling for an Express app);
- (b) the same on bare \`node:http\` (the ceiling for Node);
- **(c) the mock exactly as \`npm start\` runs it: \`node dist/mock-server/main.js\` (the compiled mock) with \`NODE_ENV\` unset, so the core
  runs with auth (API key digest), request validation, store, request journal and response validation on** (response
  validation is on unless \`NODE_ENV=production\`), with \`--log-format off\` (like Prism's \`-v error\` below: the console's
  line per request is not what is measured). The ratios c/a, c/b, c/d and the targets are this column's;
- (c-prod) the same mock with \`NODE_ENV=production\`: response validation off, everything else as (c), for comparison;
- (d) \`prism mock generated/openapi.json\` (Prism 5), with \`-v error\` so its per-request logging does not slow it down.
  Prism answers the upload with 400 (its multipart validation does not take one file part as the \`knowledge_base_files\`
  array), so its upload row counts every answer as an error.

Requests per second depend on how the two cores are shared between autocannon and the server at that moment; Prism's
figures in particular vary from run to run. Server CPU time per request (below) is the steadier comparison.
The other parts run the mock as before: start times as \`npm start\` runs it (in the bench's environment), scale through
\`startMock\` with response validation off (\`scripts/bench/scale-server.ts\`), conformance and uploads with \`NODE_ENV=production\`.

## Targets

Throughput rows: the ratio for (c), then for (c-prod); "by CPU per request" is the other server's CPU time per request over
(c)'s, what the ratio would be if both were bound by their own CPU rather than by the cores they share with autocannon.

${targets(r)}

## 1. Side by side

${comparison(r)}

## 2. The MSW door (for the record)

Not comparable with part 1: there is no socket, and the \`fetch\` client, msw's interception and the core share one process
and one JavaScript thread, so its CPU time per request counts all three.

\`createMockHandlers({ baseUrl: "${MSW_BASE_URL}", clock: "real", validateResponses: true })\` and
\`setupServer(...handlers).listen({ onUnhandledRequest: "error" })\` in a child process (\`scripts/bench/msw-door.ts\`),
driven by ${r.load.connections} concurrent \`fetch\` loops in that process (each reads the whole body), ${measured(r.load)} per request;
the child's CPU time is read from /proc over the measured run, as in part 1. Beside it, interleaved with it in the same run,
its baseline: bare msw handlers (\`http.get\`, one per request) answering the door's own status, headers and bytes for each
request as constants (\`scripts/bench/msw-bare.ts\`), driven the same way; door / bare is the ratio of requests per second
(below 1: slower) and of CPU per request (above 1: costlier).

${msw(r)}

## 3. Scale

Each size in a fresh mock process: a seeded workspace, plus bulk-loaded calls (70% ended, 15% not_connected, 15% error) and one
batch run holding the test runs, loaded through the store API (\`scripts/bench/bulk-loader.ts\`). Each page is timed
${r.scaleSamples} times, one request at a time on one kept-alive connection (loopback round trip included).

${scale(r)}

## 4. Start and tooling

${startAndTooling(r)}

## 5. Uploads (E9)

${uploads(r)}

## 6. Shared store (Redis, \`--store\`, \`--workers\`)

${sharedStore(r)}

## 7. The conformance suite through an API gateway

${gateway(r)}

## Profiling: where the mock's CPU goes

${notes}
`;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib1 = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const grown = (before: number, after: number) =>
  `${mib1(before)} → ${mib1(after)} (${after >= before ? "+" : "−"}${mib1(Math.abs(after - before))})`;
const us = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : "n/a");

function readRow(endpoint: string, r: ReadFigures): string[] {
  return [
    endpoint,
    r.what,
    `${f2(median(r.ms))} (${f2(Math.min(...r.ms))}–${f2(Math.max(...r.ms))})`,
    kib(r.bytes),
    r.detail,
  ];
}

/**
 * Part 9 (scripts/bench/exercised.ts): what observing every /v1 answer against the variant catalogue and
 * journaling its exchange for the HAR export cost, and what the two new reports take to read. Empty when
 * no run measured it.
 */
export function renderExercised(e: ExercisedFigures | undefined): string {
  if (!e) return "";
  const { plan } = e;
  const observe = table(
    [
      "answer",
      "JSON text",
      "variant keys found",
      "observedVariants µs",
      "journal's cut (`capped`) µs",
      "page faults per cut",
    ],
    e.observe.map((o) => [
      o.answer,
      kib(o.bytes),
      String(o.keys),
      us(o.observeUs),
      `${us(o.cappedUs)}${o.cut ? " (cut)" : " (kept whole)"}`,
      o.cut ? f2(o.cappedFaults) : "-",
    ]),
  );
  const requests = table(
    ["request", `at ${plan.rate}/s: p50 / p99 ms`, "most req/s", "mock CPU µs per request", "errors"],
    e.requests.map((row) => {
      const m = requestMedians(row);
      return [
        row.scenario,
        `${f2(m.p50)} / ${f2(m.p99)}`,
        f0(m.rps),
        f0(m.cpuUs),
        `${m.errors} of ${[...row.atRate, ...row.max].reduce((n, r) => n + r.requests, 0)}`,
      ];
    }),
  );
  const underProfile = (m: ReturnType<typeof requestMedians>, cpuUs: number, f: (typeof PROFILED)[number]) =>
    `${us(m.profiled[f])} (${pct(m.profiled[f] / cpuUs)})`;
  const shares = table(
    [
      "request",
      "observation (above) / mock CPU per request",
      "profiled mock: CPU µs per request",
      "under `observedVariants` µs",
      "under `addVariants` µs",
      "under `capped` µs",
      "busy samples",
    ],
    e.requests.map((row) => {
      const m = requestMedians(row);
      const cpu = row.profile.cpuUs;
      return [
        row.scenario,
        `${us(row.observeUs)} / ${f0(m.cpuUs)} = ${pct(m.share)}`,
        f0(cpu),
        underProfile(m, cpu, "observedVariants"),
        underProfile(m, cpu, "addVariants"),
        underProfile(m, cpu, "capped"),
        String(row.profile.busySamples),
      ];
    }),
  );
  const memory = table(
    [
      "journal filled with",
      "one answer",
      "kept (cut; by reference)",
      "response bodies held as text",
      "RSS after a full GC",
      "heap used",
      "ArrayBuffers",
    ],
    e.memory.rows.map((m) => [
      `${m.entries} × ${m.answer}${m.unexpected ? ` (${m.unexpected} unexpected statuses)` : ""}`,
      kib(m.answerBytes),
      `${m.entries} (${m.cut}; ${m.byReference ?? 0})`,
      mib1(m.heldBytes),
      grown(m.before.rss, m.after.rss),
      grown(m.before.heapUsed, m.after.heapUsed),
      grown(m.before.arrayBuffers, m.after.arrayBuffers),
    ]),
  );
  const reads = table(
    ["endpoint", "on", `median ms (min–max) of ${plan.coverageReads} / ${plan.harReads} reads`, "size", "holds"],
    [
      ...e.coverage.map((c) => readRow("`GET /__mock/coverage`", c)),
      e.har
        ? readRow("`GET /__mock/requests.har`", e.har)
        : ["`GET /__mock/requests.har`", "-", `not measured: answered ${e.harStatus}`, "-", "-"],
    ],
  );
  const profileText = e.load.amount ? `${e.load.amount} requests` : `${plan.profileSec} s`;
  const rateText = e.load.amount ? `${e.load.amount} requests` : `${plan.rateSec} s`;
  const measuredText = e.load.amount
    ? `${e.load.amount} requests`
    : `${e.load.warmupSec} s warm-up then ${e.load.durationSec} s measured`;
  const bound = plan.journalSize * e.memory.captureLimit;
  const cutRow = e.observe.find((o) => o.cut);
  const pages = cutRow && Math.ceil((cutRow.bytes + e.memory.captureLimit) / 4096);
  return `## 9. What was exercised: coverage and the HAR journal

Generated by \`${e.command}\` on ${e.date} in ${f0(e.durationSec)} s; load average before / after: ${e.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${e.loadAfter.map((n) => n.toFixed(2)).join(", ")}.
\`scripts/bench/exercised.ts\`. Since issue 25 the mock observes every \`/v1\` answer against the spec's catalogue of response
variants (\`observedVariants\`, from the pipeline's \`variantsOf\`; the keys go into the journal's per-workspace set) and
journals the exchange's headers and bodies by reference for the HAR export, copying and cutting a response body over
${kib(e.memory.captureLimit)} (\`capped\`). What that costs per answer, per request, in memory, and what the two new reports take
to read. Nothing is asserted on time. Rerun this part alone with \`npm run bench -- --only exercised\` (the other parts'
figures are kept from \`scripts/bench/results.json\`).

### Observing one answer (in a process of its own)

The catalogue of \`generated/openapi.json\` (${e.catalogue.variants} variants; built once per spec document, in ${f2(e.catalogue.buildMs)} ms).
The answers are the texts a mock answered (its default workspace, topped up to 120 calls), parsed as the pipeline's
handler object would be. Timed in a child process that loads the compiled modules and nothing else of the bench: each
function is called for 100 ms unmeasured, then in ${plan.batches} batches of about ${plan.batchMs} ms; the median batch's time per call is shown.
A cut measures the body's size and encodes only its first ${kib(e.memory.captureLimit)}, into fresh memory. On this VM a page fault costs
microseconds, so the cut's time follows how often the allocator maps new pages (the faults column${
    pages
      ? `; ${pages} pages of
4 KiB a cut when none is reused`
      : ""
  }); the profile below shows what it costs inside the mock.

${observe}

### The whole request, and the share observing and cutting take

The compiled mock as \`npm start\` runs it (\`node dist/mock-server/main.js\`, \`NODE_ENV\` unset so response validation is
on, \`--log-format off\`, \`--journal-size ${plan.journalSize}\`), in a child process, answering the three requests above.
${plan.rounds} round${plan.rounds === 1 ? "" : "s"}, the requests in turn in each: latency at ${plan.rate} requests per second over ${plan.rateConnections} connections for ${rateText}
(autocannon's \`overallRate\`, as part 8), then the most requests per second over ${e.load.connections} connections with the mock's CPU
time per request from /proc (as part 1), ${measuredText}; medians of the rounds.

${requests}

**The observation is not switched off for a baseline** (that needs a second build or a patched module, and the difference
would drown in this machine's noise). Instead, two shares: (1)'s in-process µs over the CPU µs the mock spends on the whole
request; and, inside the mock's own process, a fresh mock per request under \`node --cpu-prof --cpu-prof-interval 500\`
(otherwise the same), ${profileText} of the same load: the main thread's busy samples in that window with
\`observedVariants\` (the observation), \`addVariants\` (its fold into the workspace's set) or \`capped\` (the journal's
cut) on their stack, as a share of the busy samples times that run's CPU per request (the profiler's own cost included).
The garbage a cut leaves is collected with the rest and is not counted under \`capped\`. Where the profile finds more
than (1) for the same work, most likely it is because (1) repeats one answer, its objects warm in the cache, while the mock
meets a new one each time.

${shares}

### Memory of a full journal

For each row a fresh mock (\`startMock\` from \`dist/\` with the real clock and a journal of ${plan.journalSize}, in a child with
\`--expose-gc\`), topped up to 120 calls; its memory after a full GC, then after ${plan.journalSize} requests of that answer and another
full GC. A body over ${kib(e.memory.captureLimit)} is kept as a cut copy (an ArrayBuffer), a smaller one as the very string sent, so the
journal's bodies are bounded by ${plan.journalSize} × ${kib(e.memory.captureLimit)} = ${mib1(bound)}, plus each exchange's header objects.

${memory}

### Reading the reports

\`GET /__mock/coverage\`: on a fresh \`every-variant\` workspace (\`POST /__mock/workspaces {"scenario": "every-variant"}\`) and on
the default workspace after the load above; one read not counted, then ${plan.coverageReads}. \`GET /__mock/requests.har\`: the journal counts
control-plane requests too, so each of the ${plan.harReads} reads follows ${plan.journalSize} \`/v1\` requests that fill it again, cycling through a
page of 10 calls, one call, a page of 100 (cut), \`GET /v1/webhooks?active=true\`, a 404, a PATCH of an integration and a
\`POST /v1/chat\`. Time from the request to the last byte of the answer, through \`fetch\` on loopback.

${reads}
`;
}
