/**
 * npm run bench [-- --quick] [--out FILE] [--json FILE] [--render-from FILE] [--only gateway|compare|upstream|exercised|dashboard|sharing]
 * npm run bench -- --against REV [--only PART[,PART]] [--rounds N] [--json FILE] [--quick]
 * Runs every part of the benchmark in one process on this machine and rewrites scripts/bench/RESULTS.md.
 * --quick: a smoke run of a few seconds per part (tiny durations and sizes, two parts at a time: steps.ts),
 * for `npm test`; its figures mean nothing and it writes RESULTS.md only when --out says so. --json keeps
 * the figures; --render-from rewrites RESULTS.md from such a file without measuring. --only gateway
 * measures part 7 alone and puts its figures into those an earlier run saved (the --json file, default
 * scripts/bench/results.json), then rewrites RESULTS.md (and the --json file) from the whole. --only compare does the same for part 1 (the
 * mock beside bare Express, bare node:http and Prism), the figures a change to the request path moves;
 * --only upstream for part 8 (the upstream door beside a bare proxy, scripts/bench/upstream.ts), whose
 * section RESULTS.md gets from renderUpstream, before the profiling notes; --only exercised for part 9
 * (what observing every answer for coverage and journaling it for the HAR export cost, scripts/bench/
 * exercised.ts), whose section report.ts's renderExercised writes after part 8's; --only dashboard for part 10
 * (what the dashboard's event stream costs the mock, scripts/bench/dashboard.ts, renderDashboard); --only sharing for
 * part 11 (sharing one mock: Redis against in memory, round trips, --workers; scripts/bench/sharing.ts, renderSharing). Every run but --quick
 * saves its figures to the --json file (default scripts/bench/results.json), so a later --only run keeps
 * them; --quick saves them only when --json says where. --against REV [--only PART[,PART]] [--rounds N]
 * builds REV in a temporary worktree and runs each part that runs a mock on this tree's and on REV's,
 * interleaved in rounds, printing each figure as now / REV with its spread (against-parts.ts, against.ts);
 * it writes no RESULTS.md, only --json FILE with every round.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureAgainst, prepareRevision, reportAgainst } from "./against.js";
import { againstParts } from "./against-parts.js";
import { runComparison } from "./compare.js";
import { measureDashboard, renderDashboard, type DashboardFigures, type DashboardPlan } from "./dashboard.js";
import { measureGateway, type GatewayPlan } from "./gateway.js";
import { readHistoryRuns, renderHistoryRuns } from "./history-runs.js";
import type { LoadOptions } from "./load.js";
import { measureInstalledBin } from "./installed.js";
import { measureExercised, type ExercisedFigures, type ExercisedPlan } from "./exercised.js";
import { measureMswDoor } from "./msw.js";
import { renderExercised, renderResults, type Results } from "./report.js";
import { runScale } from "./scale.js";
import { measureSharing, renderSharing, type SharingFigures, type SharingPlan } from "./sharing.js";
import { measureSharedStore } from "./shared-store.js";
import { measureStarts, measureTooling } from "./tooling.js";
import { measureUploads } from "./uploads.js";
import { type Log, runStep, runSteps, type Step, step } from "./steps.js";
import { measureUpstream, renderUpstream, type UpstreamFigures, type UpstreamPlan } from "./upstream.js";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export const FULL = {
  load: { connections: 8, durationSec: 5, warmupSec: 1 } as LoadOptions,
  scale: [
    { calls: 1_000, testRuns: 100 },
    { calls: 100_000, testRuns: 1_000 },
    { calls: 1_000_000, testRuns: 10_000 },
  ],
  scaleSamples: 300,
  startSamples: 3,
  installedSamples: 10,
  /** How long the installed bin sits idle before its RSS is read. */
  installedIdleMs: 2_000,
  warmStart: true,
  uploadSamples: 3,
  /** Part 6: requests of each operation counted for Redis round trips. */
  roundTripRequests: 100,
  /** Part 7: the whole documented-level suite through the gateway, one case after the other. */
  gateway: {} as GatewayPlan,
  /** Part 8: latency at this rate through the bare proxy and the door; RSS while this upload streams through. */
  upstream: { rate: 200, rateConnections: 2, uploadMB: 25, uploads: 4 } as UpstreamPlan,
  /** Part 9: medians of 3 rounds; the journal at its default size; reads of the coverage report and the HAR. */
  exercised: {
    rounds: 3,
    rate: 200,
    rateConnections: 2,
    rateSec: 3,
    profileSec: 3,
    journalSize: 500,
    batches: 51,
    batchMs: 2,
    coverageReads: 20,
    harReads: 10,
  } as ExercisedPlan,
  /** Part 10: medians of 5 rounds; 5,000/s as the issue's goal names (less when the machine cannot offer it). */
  dashboard: {
    rounds: 5,
    rate: 5_000,
    rateConnections: 16,
    rateSec: 5,
    slowWarmup: 5_000,
    slowRequests: 50_000,
  } as DashboardPlan,
  /** Part 11: medians of 3 rounds at 1,000/s; replies held 20 ms to count round trips; redis-benchmark's GET; a 3-master Cluster. */
  sharing: {
    rounds: 3,
    rate: 1_000,
    rateConnections: 2,
    rateSec: 4,
    delayMs: 20,
    sequential: 50,
    benchmarkRequests: 100_000,
    clusterMasters: 3,
  } as SharingPlan,
  /** Parts measured at once: one, so that no part's figures share the machine with another's. */
  lanes: 1,
};

export const QUICK: typeof FULL = {
  load: { connections: 2, durationSec: 1, warmupSec: 0, amount: 10, parallel: true, sampleMs: 20 },
  scale: [
    { calls: 100, testRuns: 10 },
    { calls: 1_000, testRuns: 100 },
  ],
  scaleSamples: 10,
  startSamples: 1,
  installedSamples: 1,
  installedIdleMs: 100,
  warmStart: false,
  uploadSamples: 1,
  roundTripRequests: 5,
  gateway: { only: "listAgents", parallel: true },
  upstream: { rate: 50, rateConnections: 2, uploadMB: 2, uploads: 2 },
  exercised: {
    rounds: 1,
    rate: 50,
    rateConnections: 2,
    rateSec: 1,
    profileSec: 1,
    journalSize: 20,
    batches: 3,
    batchMs: 1,
    coverageReads: 2,
    harReads: 2,
  },
  dashboard: { rounds: 1, rate: 200, rateConnections: 2, rateSec: 1, slowWarmup: 100, slowRequests: 2_000 },
  sharing: {
    rounds: 1,
    rate: 100,
    rateConnections: 2,
    rateSec: 1,
    // Held longer than the full bench's 20 ms: a median of 5 requests must tell one round trip's delay
    // from the machine's noise (bench.test.ts asserts at least half a round trip), with another part
    // (and another test file) beside it.
    delayMs: 100,
    sequential: 5,
    benchmarkRequests: 1_000,
    clusterMasters: 3,
  },
  // Its figures mean nothing and are asserted only to be there and to agree with each other: two parts
  // at a time (QUICK_ORDER), most of whose time is spent waiting for the processes they start.
  lanes: 2,
};

/** --quick's parts, the longest first, so that the lanes end about together. */
const QUICK_ORDER = [
  "tooling",
  "exercised",
  "dashboard",
  "sharing",
  "installed",
  "compare",
  "scale",
  "upstream",
  "starts",
  "sharedStore",
  "gateway",
  "msw",
  "uploads",
] as const;

/** `steps` in the order `order` names them (all of them, each once). */
function orderedFor<S extends Record<string, unknown>>(steps: S, order: readonly (keyof S & string)[]): S {
  const missing = Object.keys(steps).filter((name) => !order.includes(name));
  if (missing.length || order.length !== Object.keys(steps).length)
    throw new Error(`the order names ${order.join(", ")}; the steps are ${Object.keys(steps).join(", ")}`);
  return Object.fromEntries(order.map((name) => [name, steps[name]])) as S;
}

/** Parts that can run alone (--only). */
const ALONE = ["gateway", "compare", "upstream", "exercised", "dashboard", "sharing"] as const;

/** What a run saves: report.ts's figures, and parts 8 to 11 (each absent in figures saved before it was measured). */
type BenchResults = Results & {
  upstream?: UpstreamFigures;
  exercised?: ExercisedFigures;
  dashboard?: DashboardFigures;
  sharing?: SharingFigures;
};

/** RESULTS.md: report.ts's document with parts 8 to 11 before the profiling notes (kept by hand, last). */
export function renderMarkdown(results: BenchResults): string {
  const markdown = renderResults(results, here("profile-notes.md"));
  const section = [
    renderUpstream(results.upstream),
    renderExercised(results.exercised),
    renderDashboard(results.dashboard),
    renderSharing(results.sharing),
    // Saved by the soak's history checker (--save), not measured by the bench: kept across its runs.
    renderHistoryRuns(readHistoryRuns(here("history-runs.json"))),
  ]
    .filter(Boolean)
    .join("\n");
  const notes = markdown.indexOf("\n## Profiling");
  if (!section) return markdown;
  return notes < 0 ? `${markdown}\n${section}` : `${markdown.slice(0, notes)}\n${section}${markdown.slice(notes)}`;
}

/**
 * --against REV: every part that runs a mock (against-parts.ts), or those --only names (one or several,
 * comma-separated), measured on this working tree and on REV (built in a temporary worktree) in
 * --rounds N rounds (default 3; 1 with --quick), A B then B A (against.ts); each figure printed as now /
 * REV with its spread. RESULTS.md is left as it is (two revisions side by side are not this revision's
 * results); --json keeps every round's figures as measured.
 */
async function runAgainst(
  rev: string,
  values: { quick?: boolean; only?: string; json?: string; rounds?: string },
  command: string,
  log: (line: string) => void,
): Promise<BenchResults> {
  const rounds = Number(values.rounds ?? (values.quick ? 1 : 3));
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds takes a whole number of at least 1, not ${values.rounds}`);
  const all = againstParts(values.quick ? QUICK : FULL, command);
  const names = values.only?.split(",").map((name) => name.trim()) ?? Object.keys(all);
  const unknown = names.filter((name) => !(name in all));
  if (unknown.length)
    throw new Error(`--only with --against takes some of ${Object.keys(all).join(", ")}, not ${unknown.join(", ")}`);
  const parts = Object.fromEntries(names.map((name) => [name, all[name]]));
  const revision = await prepareRevision(rev, log);
  try {
    log(`this tree against ${rev} (${revision.commit.slice(0, 10)}): ${names.join(", ")}; ${rounds} round(s)`);
    const record = await measureAgainst(parts, revision, rounds, log);
    for (const line of reportAgainst(parts, record, rev)) log(line);
    if (values.json)
      writeFileSync(
        values.json,
        JSON.stringify({ command, against: { rev, commit: revision.commit }, rounds, parts: record }, null, 2),
      );
    return {} as BenchResults;
  } finally {
    await revision.remove();
  }
}

export async function runBench(argv: string[], log: (line: string) => void = console.log): Promise<BenchResults> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean" },
      out: { type: "string" },
      json: { type: "string" },
      "render-from": { type: "string" },
      only: { type: "string" },
      against: { type: "string" },
      rounds: { type: "string" },
    },
    strict: true,
  });
  const command = `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}`;
  if (values.against !== undefined) return runAgainst(values.against, values, command, log);
  if (values.only !== undefined && !(ALONE as readonly string[]).includes(values.only))
    throw new Error(
      `--only takes ${ALONE.slice(0, -1).join(", ")} or ${ALONE.at(-1)} (the parts that run alone), not ${values.only}`,
    );
  if (values["render-from"]) {
    // Rebuilds the markdown from a run's saved figures (after editing profile-notes.md); measures nothing.
    const saved = JSON.parse(readFileSync(values["render-from"], "utf8")) as BenchResults;
    writeFileSync(values.out ?? here("RESULTS.md"), renderMarkdown(saved));
    return saved;
  }
  const quick = Boolean(values.quick);
  const plan = quick ? QUICK : FULL;
  const started = performance.now();
  const loadBefore = os.loadavg();
  const write = (results: BenchResults) => {
    const out = values.out ?? (quick ? undefined : here("RESULTS.md"));
    if (out) writeFileSync(out, renderMarkdown(results));
    // Saved beside RESULTS.md, so that a later --only run keeps this run's figures of the other parts.
    const json = values.json ?? (quick ? undefined : here("results.json"));
    if (json) writeFileSync(json, JSON.stringify(results, null, 2));
    return out;
  };

  // The parts that can run alone (--only), each with its number, its title and what measures it.
  const parts = {
    compare: {
      number: 1,
      title: "1. side by side: bare Express, bare node:http, mock as npm start, mock with NODE_ENV=production, Prism",
      measure: (log: Log) => runComparison(plan.load, log),
    },
    gateway: {
      number: 7,
      title:
        "7. the conformance suite through an API gateway: clean, rate-limited 20/s (Retry-After in seconds, as a date, none), a realistic mix",
      measure: (log: Log) => measureGateway(command, plan.gateway, log),
    },
    upstream: {
      number: 8,
      title:
        "8. the upstream door (--upstream) beside a bare node:http proxy: latency at a fixed rate, most requests per second, RSS during an upload",
      measure: (log: Log) => measureUpstream(command, plan.load, plan.upstream, log),
    },
    exercised: {
      number: 9,
      title:
        "9. what was exercised: observing each answer for coverage, the HAR journal's memory, reading the coverage report and the HAR",
      measure: (log: Log) => measureExercised(command, plan.load, plan.exercised, log),
    },
    dashboard: {
      number: 10,
      title:
        "10. the dashboard's cost: most requests per second and CPU per request with its event stream read, a reader that stops reading",
      measure: (log: Log) => measureDashboard(command, plan.load, plan.dashboard, log),
    },
    sharing: {
      number: 11,
      title:
        "11. sharing one mock: CPU per request on Redis against in memory, round trips on the response path, --workers 1 and 2",
      measure: (log: Log) => measureSharing(command, plan.load, plan.sharing, log),
    },
  } satisfies Record<
    (typeof ALONE)[number],
    { number: number; title: string; measure: (log: Log) => Promise<unknown> }
  >;
  const part = <K extends keyof typeof parts>(name: K) =>
    step<unknown>(parts[name].title, parts[name].measure) as Step<Awaited<ReturnType<(typeof parts)[K]["measure"]>>>;

  if (values.only !== undefined) {
    const name = values.only as keyof typeof parts;
    const from = values.json ?? here("results.json");
    const saved = JSON.parse(readFileSync(from, "utf8")) as BenchResults;
    const results: BenchResults = { ...saved, [name]: await runStep(part(name), log) };
    const out = write(results);
    log(`part ${parts[name].number} done; the other parts' figures from ${from}${out ? `; wrote ${out}` : ""}`);
    return results;
  }

  const steps = {
    compare: part("compare"),
    msw: step("2. the MSW door (setupServer in Node, fetch in the same process)", (log) =>
      measureMswDoor(plan.load, log),
    ),
    scale: step("3. scale", (log) => runScale(plan.scale, plan.scaleSamples, log)),
    starts: step("4. start times", () => measureStarts(plan.startSamples, plan.warmStart)),
    installed: step("4. the packed tarball installed in a fresh project: its bin's start and idle RSS", () =>
      measureInstalledBin(plan.installedSamples, plan.installedIdleMs),
    ),
    tooling: step("4. npm run generate, conformance against a local mock", () => measureTooling()),
    uploads: step("5. uploads", () => measureUploads(plan.uploadSamples)),
    sharedStore: step(
      "6. shared store: in memory, --store redis (1 process), --store redis --workers 2; Redis round trips per operation",
      (log) => measureSharedStore(plan.load, plan.roundTripRequests, log),
    ),
    gateway: part("gateway"),
    upstream: part("upstream"),
    exercised: part("exercised"),
    dashboard: part("dashboard"),
    sharing: part("sharing"),
  };
  const {
    compare,
    msw,
    scale,
    starts,
    installed,
    tooling,
    uploads,
    sharedStore,
    gateway,
    upstream,
    exercised,
    dashboard,
    sharing,
  } = await runSteps(quick ? orderedFor(steps, QUICK_ORDER) : steps, plan.lanes, log);

  const cpus = os.cpus();
  const results: BenchResults = {
    date: new Date().toISOString(),
    command,
    quick,
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model.trim() ?? "unknown",
      node: process.version,
      os: `${os.type()} ${os.release()}`,
      memoryGiB: os.totalmem() / 2 ** 30,
      loadBefore,
      loadAfter: os.loadavg(),
    },
    load: plan.load,
    scaleSamples: plan.scaleSamples,
    compare,
    msw,
    scale,
    starts,
    installed,
    tooling,
    uploads,
    sharedStore,
    gateway,
    upstream,
    exercised,
    dashboard,
    sharing,
    durationSec: (performance.now() - started) / 1000,
  };
  const out = write(results);
  log(`done in ${results.durationSec.toFixed(0)} s${out ? `; wrote ${out}` : ""}`);
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runBench(process.argv.slice(2)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
