/** The machine report: the whole run, with the coverage rows, as one JSON document. */
import type { RunResult } from "../lib/runner.js";
import { coverageRows } from "./coverage.js";

export function jsonReport(run: RunResult): string {
  const count = (o: string) => run.results.filter((r) => r.outcome === o).length;
  return `${JSON.stringify({ ...run, summary: { passed: count("passed"), failed: count("failed"), skipped: count("skipped") }, coverage: coverageRows(run) }, null, 2)}\n`;
}
