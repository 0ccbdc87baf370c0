/**
 * The machine report: the whole run as one JSON document (results with `known`, the ledger and its file,
 * timings, staleBaseline, the environment, `interrupted`), with the coverage rows, a summary, and the
 * failures grouped by cause. loadBaseline (baseline.ts) reads it back: every failed rule of it becomes a
 * known failure (inconclusive rules do not: they did not finish).
 */
import type { RunResult } from "../lib/runner.js";
import { coverageRows } from "./coverage.js";
import { countingFailures, countOutcomes, groupFailures, runFails, timingRows, type VerdictOptions } from "./group.js";

/**
 * `environment` is the run's (requests, rateLimited, waitedSeconds, pace, paceMode, retries, gatewayErrors,
 * networkErrors, flaky, inconclusive, latency.p50/p95/p99, summary: ../shared/DESIGN.md), null for a run
 * that has none; `summary.verdict` follows `runFails(run, options)`.
 */
export function jsonReport(run: RunResult, options: VerdictOptions = {}): string {
  const c = countOutcomes(run.results);
  const summary = {
    verdict: runFails(run, options) ? "fail" : "pass",
    passed: c.passed,
    failed: c.failed,
    known: c.known,
    errored: c.errored,
    skipped: c.skipped,
    inconclusive: c.inconclusive,
    total: c.total,
  };
  const causes = groupFailures(countingFailures(run)).map((g) => ({
    level: g.level,
    message: g.title,
    pointer: g.pointer,
    count: g.count,
    rules: g.rules,
    example: g.example,
  }));
  return `${JSON.stringify({ ...run, environment: run.environment ?? null, summary, coverage: coverageRows(run), coverageCounts: run.coverage, responseTimes: timingRows(run), causes }, null, 2)}\n`;
}
