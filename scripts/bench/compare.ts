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
}

export async function runComparison(options: LoadOptions, log: (line: string) => void): Promise<CompareRow[]> {
  return (await compareTargets(options, log)) as CompareRow[];
}

/**
 * The comparison of some of the targets (all by default): `kit` is the kit whose mock (c) and (c-prod)
 * run (--against: this tree's or REV's worktree; bench/against.ts). The mock (c) always starts, as the
 * source of the requests' ids and of the bare servers' bytes, and is measured only when asked for.
 */
export async function compareTargets(
  options: LoadOptions,
  log: (line: string) => void,
  { kit, targets = TARGETS.map((t) => t.id) }: { kit?: string; targets?: readonly TargetId[] } = {},
): Promise<{ scenario: string; cells: Partial<Record<TargetId, LoadResult>> }[]> {
  const children: Child[] = [];
  const start = async (child: Promise<Child>) => {
    const started = await child;
    children.push(started);
    return started;
  };
  try {
    const mock = await start(startMockTarget({ root: kit }));
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
    const starters: Record<Exclude<TargetId, "c">, () => Promise<Child>> = {
      a: () => startBareTarget("express", fixtures),
      b: () => startBareTarget("http", fixtures),
      cprod: () => startMockTarget({ config: "production", root: kit }),
      d: () => startPrismTarget(),
    };
    const measured = TARGETS.filter(({ id }) => targets.includes(id));
    const targetOf = { c: mock } as Record<TargetId, Child>;
    await Promise.all(
      measured.map(async ({ id }) => void (id !== "c" && (targetOf[id] = await start(starters[id]())))),
    );
    const rows: { scenario: string; cells: Partial<Record<TargetId, LoadResult>> }[] = [];
    for (const s of scenarios) {
      const cells: Partial<Record<TargetId, LoadResult>> = {};
      const measure = async (id: TargetId) =>
        void (cells[id] = await measureLoad(targetOf[id].url, s.request, options, targetOf[id].process.pid));
      if (options.parallel) await Promise.all(measured.map(({ id }) => measure(id)));
      for (const { id, label } of measured) {
        if (!options.parallel) await measure(id);
        log(`  ${s.name.padEnd(40)} ${label.padEnd(62)} ${formatCell(cells[id]!)}`);
      }
      rows.push({ scenario: s.name, cells });
    }
    return rows;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

export function formatCell(r: LoadResult): string {
  return `${r.rps.toFixed(0).padStart(6)} req/s  ${(r.cpuUs ?? NaN).toFixed(0).padStart(5)} µs CPU/req  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`;
}
