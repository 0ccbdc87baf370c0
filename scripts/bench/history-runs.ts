/**
 * RESULTS.md's section on the shared store under concurrency: the figures of the history checker's
 * long runs (`npm run soak -- --replicas N ... --save`), one row per configuration (replicas, store,
 * kills), the latest run of each. They are kept in history-runs.json beside RESULTS.md, apart from the
 * bench's own results.json: a soak is not part of a bench run, and a bench run must not drop them.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { f0, table } from "./markdown.js";

/** The figures a run prints (scripts/soak/history/report.ts figuresOf), with how it was run. */
export interface HistoryRun {
  date: string;
  command: string;
  commit: string;
  seed: number;
  replicas: number;
  cluster: boolean;
  kill: boolean;
  clients: number;
  loadAverage: number[];
  figures: {
    operations: number;
    requests: number;
    anomalies: number;
    conflictsRetried: number;
    latencyMs: { p50: number; p99: number };
    kills: number;
    indeterminate: number;
    differentialComparisons: number;
    registerChecks: number;
    exactlyOnceChecks: number;
    deliveriesVerified: number;
    elapsedSeconds: number;
  };
}

const keyOf = (r: HistoryRun) => `${r.replicas}/${r.cluster}/${r.kill}`;

export function readHistoryRuns(file: string): HistoryRun[] {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as HistoryRun[]) : [];
}

/** Keeps `run` as its configuration's latest, in a stable order (one Redis first, then without kills first). */
export function saveHistoryRun(file: string, run: HistoryRun): void {
  const runs = readHistoryRuns(file).filter((r) => keyOf(r) !== keyOf(run));
  runs.push(run);
  runs.sort(
    (a, b) => Number(a.cluster) - Number(b.cluster) || Number(a.kill) - Number(b.kill) || a.replicas - b.replicas,
  );
  writeFileSync(file, `${JSON.stringify(runs, null, 2)}\n`);
}

/** The section; empty when no run was saved. */
export function renderHistoryRuns(runs: HistoryRun[]): string {
  if (runs.length === 0) return "";
  const rows = runs.map((r) => [
    `${r.replicas} replicas, ${r.cluster ? "Cluster of 3 masters" : "one Redis"}${r.kill ? ", kill -9" : ""}`,
    f0(r.figures.operations),
    f0(r.figures.requests),
    String(r.figures.anomalies),
    f0(r.figures.conflictsRetried),
    `${r.figures.latencyMs.p50} / ${r.figures.latencyMs.p99}`,
    `${r.figures.kills} / ${r.figures.indeterminate}`,
    `${f0(r.figures.differentialComparisons)} / ${f0(r.figures.registerChecks)} / ${f0(r.figures.exactlyOnceChecks)} / ${f0(r.figures.deliveriesVerified)}`,
    f0(r.figures.elapsedSeconds),
  ]);
  const commands = runs.map(
    (r) =>
      `- \`${r.command}\`: commit \`${r.commit}\`, ${r.date}, load average before ${r.loadAverage.map((n) => n.toFixed(2)).join(", ")}`,
  );
  return `## 12. The shared store under concurrency: the history checker

\`npm run soak -- --replicas N --ops K [--cluster] [--kill] [--seed S] --save\` (scripts/soak/history/): N mock processes on one
Redis or a Redis Cluster of 3 masters, ${runs[0].clients} clients at once, each request sent to a replica the seed picks; the
history checked against the in-memory mock as the model (mock-server/docs/shared-store.md lists the invariants). Latency is
per request, from the client, over every replica and operation. "Conflicts retried": commits refused because another process
wrote the unit first, run again (the replicas' \`apm_store_retries_total\`). Checks: differential comparisons with the model /
register reads of another client's writes / exactly-once checks of scheduled work / webhook requests whose signature verified.

${table(
  [
    "run",
    "operations",
    "requests",
    "anomalies",
    "conflicts retried",
    "latency p50 / p99 (ms)",
    "kills / indeterminate",
    "checks",
    "seconds",
  ],
  rows,
)}

${commands.join("\n")}
`;
}
