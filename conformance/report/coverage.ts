/** Coverage: which documented statuses of which operation the run actually received. */
import type { RunResult } from "../lib/runner.js";
import { operations } from "../lib/spec.js";

export interface CoverageCell {
  status: string;
  documented: boolean;
  exercised: number;
}

export interface CoverageRow {
  operationId: string;
  method: string;
  path: string;
  statuses: CoverageCell[];
}

export function coverageRows(run: Pick<RunResult, "coverage">): CoverageRow[] {
  return [...operations.values()].map((op) => {
    const seen = run.coverage[op.operationId] ?? {};
    const documented = op.statuses.map((status) => ({ status, documented: true, exercised: seen[status] ?? 0 }));
    const extra = Object.keys(seen)
      .filter((s) => !op.statuses.includes(s))
      .map((status) => ({ status, documented: false, exercised: seen[status] }));
    return { operationId: op.operationId, method: op.method, path: op.path, statuses: [...documented, ...extra] };
  });
}

/** `200*` documented and exercised, `404.` documented not exercised, `500!` seen but undocumented. */
export function describeCell(s: CoverageCell): string {
  return `${s.status}${s.documented ? (s.exercised > 0 ? "*" : ".") : "!"}`;
}

export function coverageTable(run: Pick<RunResult, "coverage">): string {
  const rows = coverageRows(run);
  const width = Math.max(...rows.map((r) => r.operationId.length));
  return rows
    .map((r) => {
      const covered = r.statuses.filter((s) => s.documented && s.exercised > 0).length;
      const documented = r.statuses.filter((s) => s.documented).length;
      return `  ${r.operationId.padEnd(width)}  ${r.statuses.map(describeCell).join(" ")}  (${covered}/${documented})`;
    })
    .join("\n");
}
