/**
 * RESULTS.md from one run's figures, rewritten whole each time. The only hand-written part is
 * profile-notes.md (what profiling found and changed, with its own before/after figures and
 * commands), included verbatim.
 */
import { existsSync, readFileSync } from "node:fs";
import { TARGETS, type CompareRow, type TargetId } from "./compare.js";
import type { LoadOptions } from "./load.js";
import { CALL_QUERIES, RUN_QUERIES, type ScaleRow } from "./scale.js";
import { median, type StartFigures, type ToolingFigures } from "./tooling.js";
import type { UploadFigures } from "./uploads.js";

export interface Results {
  date: string;
  command: string;
  quick: boolean;
  machine: { cores: number; cpu: string; node: string; os: string; memoryGiB: number; loadBefore: number[]; loadAfter: number[] };
  load: LoadOptions;
  scaleSamples: number;
  compare: CompareRow[];
  scale: ScaleRow[];
  starts: StartFigures;
  tooling: ToolingFigures;
  uploads: UploadFigures;
  durationSec: number;
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "n/a");
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "n/a");
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "n/a");
const mib = (bytes: number | undefined) => (bytes === undefined ? "n/a" : `${(bytes / 2 ** 20).toFixed(0)} MiB`);
const cpuRatio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}` : "n/a");
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
const table = (head: string[], rows: string[][]) => [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

function comparison(r: Results): string {
  const ids = TARGETS.map((t) => t.id);
  const rps = table(
    ["request", ...TARGETS.map((t) => t.label), "c/a", "c/b", "c/d"],
    r.compare.map((row) => [row.scenario, ...ids.map((id) => f0(row.cells[id].rps)), ratio(row.cells.c.rps, row.cells.a.rps), ratio(row.cells.c.rps, row.cells.b.rps), ratio(row.cells.c.rps, row.cells.d.rps)]),
  );
  const latency = table(["request", ...TARGETS.map((t) => t.label), "c/a p99"], r.compare.map((row) => [row.scenario, ...ids.map((id) => `${f2(row.cells[id].p50)} / ${f2(row.cells[id].p99)}`), ratio(row.cells.c.p99, row.cells.a.p99)]));
  const cpu = table(
    ["request", ...TARGETS.map((t) => t.label), "c÷a", "c÷d"],
    r.compare.map((row) => [row.scenario, ...ids.map((id) => f0(row.cells[id].cpuUs ?? Number.NaN)), cpuRatio(row.cells.c.cpuUs, row.cells.a.cpuUs), cpuRatio(row.cells.c.cpuUs, row.cells.d.cpuUs)]),
  );
  const errors = table(["request", ...TARGETS.map((t) => t.label)], r.compare.map((row) => [row.scenario, ...ids.map((id) => `${row.cells[id].errors} of ${row.cells[id].requests}`)]));
  return [
    "### Requests per second",
    rps,
    "",
    "### Latency p50 / p99 (ms)",
    latency,
    "",
    "### Server CPU time per request (µs; lower is better)",
    "Read from /proc for the server's process over the measured run, divided by the requests answered. Unlike requests per",
    "second it does not count time spent waiting for a core, so it moves less when the machine is busy.",
    "",
    cpu,
    "",
    "### Errors (connection errors, timeouts and unexpected statuses) of requests answered", errors].join("\n");
}

function cell(r: Results, scenario: string, id: TargetId) {
  return r.compare.find((row) => row.scenario.startsWith(scenario))?.cells[id];
}

function targets(r: Results): string {
  const rows: string[][] = [];
  for (const s of ["GET /v1/calls?page", "GET /v1/calls/{callId}"]) {
    const c = cell(r, s, "c")!;
    const d = cell(r, s, "d")!;
    rows.push([`${s.replace("?page", "")}: mock >= 3x Prism req/s`, ratio(c.rps, d.rps), verdict(c.rps >= 3 * d.rps)]);
  }
  const c = cell(r, "GET /v1/calls/{callId}", "c")!;
  const a = cell(r, "GET /v1/calls/{callId}", "a")!;
  const cpuShare = a.cpuUs !== undefined && c.cpuUs ? ` (by CPU per request: ${(a.cpuUs / c.cpuUs).toFixed(2)}x)` : "";
  rows.push(["GET /v1/calls/{callId}: mock >= 0.7x bare Express req/s (request validation on)", `${ratio(c.rps, a.rps)}${cpuShare}`, verdict(c.rps >= 0.7 * a.rps)]);
  for (const row of r.compare) rows.push([`${row.scenario}: mock p99 <= 2x bare Express p99`, `${f2(row.cells.c.p99)} vs ${f2(row.cells.a.p99)} ms (${ratio(row.cells.c.p99, row.cells.a.p99)})`, verdict(row.cells.c.p99 <= 2 * row.cells.a.p99)]);
  const spread = (name: string) => {
    const p50s = r.scale.map((s) => s.queries.find((q) => q.name === name)!.p50);
    return Math.max(...p50s) / Math.min(...p50s);
  };
  for (const q of [...CALL_QUERIES.slice(0, 3), ...RUN_QUERIES.slice(0, 2)]) rows.push([`scale: p50 of "${q}" within 2x across sizes`, `${spread(q).toFixed(2)}x`, verdict(spread(q) <= 2)]);
  const biggest = r.scale.at(-1)!;
  rows.push([`scale: RSS at ${biggest.calls.toLocaleString("en")} calls <= 1 GiB`, mib(biggest.rss), verdict(biggest.rss <= 2 ** 30)]);
  rows.push(["start: mock to first 200 on /__mock/health < 1 s (median)", `${f0(median(r.starts.mock))} ms`, verdict(median(r.starts.mock) < 1000)]);
  rows.push(["`npm run generate` < 10 s", `${(r.tooling.generateMs / 1000).toFixed(1)} s`, verdict(r.tooling.generateMs < 10_000)]);
  rows.push(["full conformance run against a local mock < 20 s", `${(r.tooling.conformanceMs / 1000).toFixed(1)} s`, verdict(r.tooling.conformanceMs < 20_000 && r.tooling.conformanceExit === 0)]);
  const growth = r.uploads.peakRss - r.uploads.baselineRss;
  rows.push(["100 MB upload: 413, RSS grows <= 64 MiB", `${r.uploads.oversizeStatus}, +${mib(growth)}`, verdict(r.uploads.oversizeStatus === 413 && growth <= 64 * 2 ** 20)]);
  return table(["target", "measured", "verdict"], rows);
}

function scale(r: Results): string {
  const queries = [...CALL_QUERIES, ...RUN_QUERIES];
  const head = ["", ...r.scale.map((s) => `${s.calls.toLocaleString("en")} calls, ${s.testRuns.toLocaleString("en")} test runs`)];
  const rows = [
    ["load time (calls + test runs)", ...r.scale.map((s) => `${(s.loadCallsMs / 1000).toFixed(2)} s + ${(s.loadTestRunsMs / 1000).toFixed(2)} s`)],
    ["RSS after load and a full GC", ...r.scale.map((s) => mib(s.rss))],
    ["heap used after load and a full GC", ...r.scale.map((s) => mib(s.heapUsed))],
    ["peak RSS while loading", ...r.scale.map((s) => mib(s.peakRss))],
    ...queries.map((q) => [`${q}: p50 / p99 ms`, ...r.scale.map((s) => {
      const m = s.queries.find((x) => x.name === q)!;
      return `${f2(m.p50)} / ${f2(m.p99)}${m.errors ? ` (${m.errors} errors)` : ""}`;
    })]),
  ];
  return table(head, rows);
}

function startAndTooling(r: Results): string {
  const list = (xs: number[]) => `${f0(median(xs))} ms (samples: ${xs.map(f0).join(", ")})`;
  return table(["measure", "figure"], [
    ["mock: `node --import tsx mock-server/main.ts`, spawn to first 200 on /__mock/health", list(r.starts.mock)],
    ["mock: CPU time used by then (main and loader threads)", list(r.starts.mockCpu)],
    ["mock: `npm start` (npm and tsx launchers included), spawn to first 200", list(r.starts.npmStart)],
    ["Prism: `prism mock generated/openapi.json`, spawn to first 200 on GET /v1/agents", list(r.starts.prism)],
    ["Prism: CPU time used by then", list(r.starts.prismCpu)],
    ["`npm run generate` (in a copy of the repo)", `${(r.tooling.generateMs / 1000).toFixed(2)} s; output ${r.tooling.generateIdentical ? "identical to" : "**differs from**"} generated/`],
    ["`npm run conformance` against a local mock (whole command)", `${(r.tooling.conformanceMs / 1000).toFixed(2)} s; exit ${r.tooling.conformanceExit}; ${r.tooling.conformanceSummary}`],
  ]);
}

function uploads(r: Results): string {
  const u = r.uploads;
  return table(["measure", "figure"], [
    ["25 MB text file, first byte to 201", `${f0(median(u.throughputMBps))} MB/s median (samples: ${u.throughputMBps.map(f0).join(", ")} MB/s; statuses ${u.statuses25.join(", ")})`],
    [`${u.oversizeMB} MB text file`, `status ${u.oversizeStatus} after ${f0(u.oversizeAnswerMs)} ms (the body is still drained after the answer)`],
    ["mock RSS: baseline / peak during the upload / growth", `${mib(u.baselineRss)} / ${mib(u.peakRss)} / +${mib(u.peakRss - u.baselineRss)}`],
  ]);
}

export function renderResults(r: Results, notesFile: string): string {
  const notes = existsSync(notesFile) ? readFileSync(notesFile, "utf8").trim() : "(no profile notes)";
  return `# Benchmark results

Generated by \`${r.command}\` on ${r.date} in ${f0(r.durationSec)} s${r.quick ? " (**--quick**: a smoke run, figures are not meaningful)" : ""}. Rewritten whole by each run;
only the profiling notes at the end are kept by hand in \`scripts/bench/profile-notes.md\`.

Machine: ${r.machine.cores} cores (${r.machine.cpu}), ${r.machine.memoryGiB.toFixed(0)} GiB, Node ${r.machine.node}, ${r.machine.os}.
Load average before / after the run: ${r.machine.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${r.machine.loadAfter.map((n) => n.toFixed(2)).join(", ")}.

How it runs: every server under test is a child process of the bench, and autocannon (the load generator) runs in the bench's own
process, so on ${r.machine.cores} cores the load generator and the server share the CPU. Anything else running on the machine
shows in the figures (see the load average); rerun on a quiet machine before trusting a small difference.
Load: ${r.load.connections} connections, ${r.load.warmupSec} s warm-up then ${r.load.durationSec} s measured per request and target; targets run in turn
(a, b, c, c+rv, d) for each request. Latencies are per response, to the microsecond (autocannon's own histogram is in whole ms).

Targets:
- (a) a bare Express 5 app answering the mock's own response bytes for each request as a constant (the ceiling for an Express app);
- (b) the same on bare \`node:http\` (the ceiling for Node);
- **(c) the mock as \`npm start\` runs it with \`NODE_ENV=production\`: auth, request validation, store, request journal on;
  response validation off** (its production setting; it is on in development and tests);
- (c+rv) the same mock with \`--validate-responses on\`, for comparison;
- (d) \`prism mock generated/openapi.json\` (Prism 5), with \`-v error\` so its per-request logging does not slow it down.
  Prism answers the upload with 400 (its multipart validation does not take one file part as the \`knowledge_base_files\`
  array), so its upload row counts every answer as an error.

Requests per second depend on how the two cores are shared between autocannon and the server at that moment; Prism's
figures in particular vary from run to run. Server CPU time per request (below) is the steadier comparison.

## Targets

${targets(r)}

## 1. Side by side

${comparison(r)}

## 3. Scale

Each size in a fresh mock process: a seeded workspace, plus bulk-loaded calls (70% ended, 15% not_connected, 15% error) and one
batch run holding the test runs, loaded through the store API (\`scripts/bench/bulk-loader.ts\`). Each page is timed
${r.scaleSamples} times, one request at a time on one kept-alive connection (loopback round trip included).

${scale(r)}

## 4. Start and tooling

${startAndTooling(r)}

## 5. Uploads (E9)

${uploads(r)}

## Profiling: what was changed, before and after

${notes}
`;
}
