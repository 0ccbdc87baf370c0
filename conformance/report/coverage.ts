/** Coverage: which documented statuses of which operation the run actually received. */
import { operationsOfRun, type RulesKind } from "../generic/catalog.js";
import { documentedKey } from "../lib/document-issues.js";
import type { RunResult } from "../lib/runner.js";

export interface CoverageCell {
  status: string;
  documented: boolean;
  exercised: number;
}

export interface CoverageRow {
  operationId: string;
  method: string;
  path: string;
  /** Whether the operation's rules are hand-written (operations/) or generic (derived from the document). */
  rules: RulesKind;
  statuses: CoverageCell[];
}

export function coverageRows(run: Pick<RunResult, "coverage" | "operations">): CoverageRow[] {
  return operationsOfRun(run).map((op) => {
    const seen = run.coverage[op.operationId] ?? {};
    // A status the document covers by a range (4XX) or `default` exercises that response.
    const exercised: Record<string, number> = {};
    const extra: CoverageCell[] = [];
    for (const [status, times] of Object.entries(seen)) {
      const key = documentedKey(op.statuses, Number(status));
      if (key === undefined) extra.push({ status, documented: false, exercised: times });
      else exercised[key] = (exercised[key] ?? 0) + times;
    }
    const documented = op.statuses.map((status) => ({ status, documented: true, exercised: exercised[status] ?? 0 }));
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      rules: op.rules,
      statuses: [...documented, ...extra],
    };
  });
}

/** `200*` documented and exercised, `404.` documented not exercised, `500!` seen but undocumented. */
export function describeCell(s: CoverageCell): string {
  return `${s.status}${s.documented ? (s.exercised > 0 ? "*" : ".") : "!"}`;
}

export function coverageTable(run: Pick<RunResult, "coverage" | "operations">): string {
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
