/**
 * Part 1 of the bench: the six requests against (a) bare Express, (b) bare node:http, (c) the mock
 * as `npm start` runs it (response validation on), (c-prod) the mock with NODE_ENV=production
 * (response validation off), (d) Prism. For each request the targets run in turn (a, b, c, c-prod,
 * d), so a drift in the machine's load spreads over all of them instead of falling on one.
 */
import type { Fixture } from "./bare-server.js";
import type { Child } from "./children.js";
import { exchange, measureLoad, type LoadOptions, type LoadResult } from "./load.js";
import { buildScenarios } from "./scenarios.js";
import type { Revision } from "./against.js";
import { MOCK_API_KEY, startBareTarget, startMockTarget, startPrismTarget } from "./targets.js";

export const TARGETS = [
  { id: "a", label: "(a) bare Express" },
  { id: "b", label: "(b) bare node:http" },
  { id: "c", label: "(c) mock as `npm start` (response validation on)" },
  { id: "cprod", label: "(c-prod) mock, NODE_ENV=production (response validation off)" },
  { id: "d", label: "(d) prism mock" },
] as const;

export type TargetId = (typeof TARGETS)[number]["id"];

export interface CompareRow {
  scenario: string;
  cells: Record<TargetId, LoadResult>;
  /** With --against REV: the mock of that revision, as `npm start` (c) and with NODE_ENV=production (cprod). */
  against?: { c: LoadResult; cprod: LoadResult };
}

/** One figure as now / REV, with the change in CPU per request (steadier than req/s on a shared machine). */
export function formatAgainst(now: LoadResult, then: LoadResult, rev: string): string {
  const change = now.cpuUs !== undefined && then.cpuUs ? ((now.cpuUs - then.cpuUs) / then.cpuUs) * 100 : NaN;
  const sign = change >= 0 ? "+" : "";
  return `now / ${rev}: ${now.rps.toFixed(0)} / ${then.rps.toFixed(0)} req/s, ${(now.cpuUs ?? NaN).toFixed(0)} / ${(then.cpuUs ?? NaN).toFixed(0)} µs CPU/req (${sign}${change.toFixed(1)} %), p99 ${now.p99.toFixed(2)} / ${then.p99.toFixed(2)} ms`;
}

/**
 * `against`: another revision, built (against.ts): its mock is measured too, right after this one's for
 * each request and setting, so both meet the same load on the machine.
 */
export async function runComparison(
  options: LoadOptions,
  log: (line: string) => void,
  against?: Revision,
): Promise<CompareRow[]> {
  const children: Child[] = [];
  const start = async (child: Promise<Child>) => {
    const started = await child;
    children.push(started);
    return started;
  };
  try {
    const mock = await start(startMockTarget());
    const scenarios = await buildScenarios(mock.url, MOCK_API_KEY);
    const fixtures: Fixture[] = [];
    for (const s of scenarios) {
      const answer = await exchange(mock.url, s.request);
      if (answer.status !== s.request.expect)
        throw new Error(`${s.name}: the mock answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
      fixtures.push({
        method: s.request.method,
        path: s.request.path.split("?")[0],
        status: answer.status,
        contentType: answer.contentType,
        bodyBase64: answer.body.toString("base64"),
      });
    }
    const [a, b, cprod, d] = await Promise.all([
      start(startBareTarget("express", fixtures)),
      start(startBareTarget("http", fixtures)),
      start(startMockTarget({ config: "production" })),
      start(startPrismTarget()),
    ]);
    const targets: Record<TargetId, Child> = { a, b, c: mock, cprod, d };
    const then = against && {
      c: await start(startMockTarget({ root: against.root, name: `mock at ${against.name}` })),
      cprod: await start(
        startMockTarget({ root: against.root, config: "production", name: `mock at ${against.name} (production)` }),
      ),
    };
    const rows: CompareRow[] = [];
    for (const s of scenarios) {
      const cells = {} as Record<TargetId, LoadResult>;
      if (options.parallel)
        await Promise.all(
          TARGETS.map(
            async ({ id }) =>
              void (cells[id] = await measureLoad(targets[id].url, s.request, options, targets[id].process.pid)),
          ),
        );
      for (const { id, label } of TARGETS) {
        if (!options.parallel)
          cells[id] = await measureLoad(targets[id].url, s.request, options, targets[id].process.pid);
        log(`  ${s.name.padEnd(40)} ${label.padEnd(62)} ${formatCell(cells[id])}`);
      }
      const row: CompareRow = { scenario: s.name, cells };
      if (then && against) {
        // Interleaved: this revision's mock again right after the other's, per setting.
        row.against = {} as NonNullable<CompareRow["against"]>;
        for (const id of ["c", "cprod"] as const) {
          const other = await measureLoad(then[id].url, s.request, options, then[id].process.pid);
          const again = await measureLoad(targets[id].url, s.request, options, targets[id].process.pid);
          // The two runs of this revision around the other's: their mean against the other's one.
          const now = meanOf(cells[id], again);
          row.against[id] = other;
          cells[id] = now;
          log(`  ${s.name.padEnd(40)} ${id.padEnd(6)} ${formatAgainst(now, other, against.name)}`);
        }
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

/** Two runs of one target as one: rates and CPU averaged, latencies the worse of the two. */
function meanOf(a: LoadResult, b: LoadResult): LoadResult {
  const mean = (x?: number, y?: number) => (x === undefined || y === undefined ? (x ?? y) : (x + y) / 2);
  return {
    ...a,
    rps: (a.rps + b.rps) / 2,
    cpuUs: mean(a.cpuUs, b.cpuUs),
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
    errors: a.errors + b.errors,
    requests: a.requests + b.requests,
  };
}

export function formatCell(r: LoadResult): string {
  return `${r.rps.toFixed(0).padStart(6)} req/s  ${(r.cpuUs ?? NaN).toFixed(0).padStart(5)} µs CPU/req  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`;
}
