/**
 * `npm run bench -- --only compare --against REV`: the mock of this tree beside the mock of REV, request
 * by request, in one run. Two mocks on one busy two-core machine differ by more than a change does when
 * each is measured once (one process's luck, its JIT, its place in the order: ±25 % on part 1's requests),
 * so each round starts a fresh pair of processes per setting, measures every request on both (which one
 * goes first alternates by round), and stops them; the figures are the medians of the rounds. Only the
 * two mocks are measured: the bare servers and Prism do not change with the revision.
 */
import type { Revision } from "./against.js";
import type { Child } from "./children.js";
import { exchange, measureLoad, type LoadOptions, type LoadResult } from "./load.js";
import { buildScenarios, type Scenario } from "./scenarios.js";
import { MOCK_API_KEY, startMockTarget, type MockConfig } from "./targets.js";

export interface AgainstRow {
  scenario: string;
  config: MockConfig;
  /** One result per round, for this tree and for REV. */
  now: LoadResult[];
  then: LoadResult[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The medians of a side's rounds: requests per second and CPU per request. */
export function medians(results: LoadResult[]): { rps: number; cpuUs: number } {
  return { rps: median(results.map((r) => r.rps)), cpuUs: median(results.map((r) => r.cpuUs ?? Number.NaN)) };
}

/** One row as now / REV, the medians of the rounds with the change in CPU per request. */
export function formatAgainstRow(row: AgainstRow, rev: string): string {
  const now = medians(row.now);
  const then = medians(row.then);
  const change = ((now.cpuUs - then.cpuUs) / then.cpuUs) * 100;
  const cpu = (side: LoadResult[]) => side.map((r) => (r.cpuUs ?? Number.NaN).toFixed(0)).join(" ");
  return `${row.scenario.padEnd(40)} ${row.config.padEnd(10)} now / ${rev}: ${now.rps.toFixed(0)} / ${then.rps.toFixed(0)} req/s, ${now.cpuUs.toFixed(0)} / ${then.cpuUs.toFixed(0)} µs CPU/req (${change >= 0 ? "+" : ""}${change.toFixed(1)} %) [rounds: ${cpu(row.now)} / ${cpu(row.then)}]`;
}

async function checkAnswers(target: Child, scenarios: Scenario[]): Promise<void> {
  for (const s of scenarios) {
    const answer = await exchange(target.url, s.request);
    if (answer.status !== s.request.expect)
      throw new Error(`${s.name}: ${target.name} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
  }
}

export async function compareAgainst(
  options: LoadOptions,
  revision: Revision,
  rounds: number,
  log: (line: string) => void,
): Promise<AgainstRow[]> {
  const rows = new Map<string, AgainstRow>();
  for (let round = 0; round < rounds; round++) {
    for (const config of ["npm-start", "production"] as const) {
      const children: Child[] = [];
      try {
        const now = await startMockTarget({ config, name: `mock (${config})` });
        children.push(now);
        const then = await startMockTarget({
          config,
          root: revision.root,
          name: `mock at ${revision.name} (${config})`,
        });
        children.push(then);
        // Both seeded alike (same seed, same world): the same requests, the same answers.
        const scenarios = await buildScenarios(now.url, MOCK_API_KEY);
        await checkAnswers(now, scenarios);
        await checkAnswers(then, scenarios);
        for (const s of scenarios) {
          const key = `${s.name} ${config}`;
          const row = rows.get(key) ?? { scenario: s.name, config, now: [], then: [] };
          rows.set(key, row);
          const order = round % 2 === 0 ? ([now, then] as const) : ([then, now] as const);
          for (const target of order) {
            const result = await measureLoad(target.url, s.request, options, target.process.pid);
            (target === now ? row.now : row.then).push(result);
          }
        }
      } finally {
        await Promise.all(children.map((c) => c.stop()));
      }
      log(`  round ${round + 1}/${rounds} (${config}) measured`);
    }
  }
  return [...rows.values()];
}
