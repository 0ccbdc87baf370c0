/**
 * The machine report: the whole run as one JSON document (results with `known`, the ledger, timings,
 * staleBaseline), with the coverage rows, a summary, and the failures grouped by cause. loadBaseline
 * (baseline.ts) reads it back: every failed rule of it becomes a known failure.
 */
import type { RunResult } from "../lib/runner.js";
import { coverageRows } from "./coverage.js";
import { countingFailures, countOutcomes, groupFailures, runFails, timingRows } from "./group.js";

export function jsonReport(run: RunResult): string {
  const c = countOutcomes(run.results);
  const summary = { verdict: runFails(run) ? "fail" : "pass", passed: c.passed, failed: c.failed, known: c.known, errored: c.errored, skipped: c.skipped, total: c.total };
  const causes = groupFailures(countingFailures(run)).map((g) => ({ level: g.level, message: g.title, pointer: g.pointer, count: g.count, rules: g.rules, example: g.example }));
  return `${JSON.stringify({ ...run, summary, coverage: coverageRows(run), coverageCounts: run.coverage, responseTimes: timingRows(run), causes }, null, 2)}\n`;
}
