/** The human report: per operation and rule, then every failure with what reproduces it, then coverage. */
import type { RunResult } from "../lib/runner.js";
import { coverageTable } from "./coverage.js";

const MARK = { passed: "ok  ", failed: "FAIL", skipped: "skip", errored: "ERR " } as const;

export function consoleReport(run: RunResult): string {
  const lines: string[] = [];
  lines.push(`Conformance of ${run.baseUrl} (${run.isMock ? "the kit's mock" : "foreign target"}), level ${run.level}${run.readOnly ? ", read-only" : ""}, run ${run.runId}`);
  const byOperation = new Map<string, typeof run.results>();
  for (const r of run.results) byOperation.set(r.operationId, [...(byOperation.get(r.operationId) ?? []), r]);
  for (const [operationId, results] of byOperation) {
    lines.push("", `${operationId}`);
    for (const r of results) lines.push(`  ${MARK[r.outcome]} ${r.id} [${r.level}]${r.reason ? ` - ${r.reason}` : ""}`);
  }
  const failed = run.results.filter((r) => r.outcome === "failed");
  if (failed.length > 0) {
    lines.push("", "Failures:");
    for (const r of failed) {
      lines.push("", `  ${r.id} [${r.level}] - ${r.description}`);
      for (const f of r.failures.slice(0, 12)) {
        lines.push(`    at ${f.pointer || "(body)"}: ${f.message}`, `      expected: ${f.expected}`, `      actual:   ${f.actual}`);
        if (f.curl) lines.push(`      repro:    ${f.curl}`);
      }
      if (r.failures.length > 12) lines.push(`    ... and ${r.failures.length - 12} more`);
    }
  }
  lines.push("", "Coverage (operation x documented status; * exercised, . not exercised, ! undocumented status seen):", coverageTable(run));
  if (run.ledger.length > 0) {
    lines.push("", "Left on the target (the reference offers no way to remove them):");
    for (const e of run.ledger) lines.push(`  ${e.kind} ${e.id}: ${e.note}`);
  }
  if (run.notCovered.length > 0) {
    lines.push("", "Not covered:");
    for (const n of run.notCovered) lines.push(`  ${n}`);
  }
  const count = (o: string) => run.results.filter((r) => r.outcome === o).length;
  lines.push("", `${count("passed")} passed, ${count("failed")} failed, ${count("skipped")} skipped in ${(run.durationMs / 1000).toFixed(1)} s`);
  return lines.join("\n");
}
