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
