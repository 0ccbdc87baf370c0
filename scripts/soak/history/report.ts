/**
 * What the history checker prints: the figures of a run, and for an anomaly the seed, the command that
 * reruns it, and the shortest history that shows it (the workspace's own ops up to it, plus the other
 * clients' ops and the kills that overlapped it), one line per request.
 */
import type { Anomaly, Entry, History } from "./history.js";
import type { CheckerOptions, RunResult } from "./run.js";

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function figuresOf(result: RunResult) {
  const f = result.figures;
  return {
    operations: Object.values(f.operations).reduce((s, n) => s + n, 0),
    operationsByKind: Object.fromEntries(Object.entries(f.operations).sort()),
    requests: f.requests,
    anomalies: result.history.anomalies.length,
    conflictsRetried: f.conflictsRetried,
    latencyMs: { p50: percentile(f.latenciesMs, 50), p99: percentile(f.latenciesMs, 99) },
    kills: f.kills,
    indeterminate: f.indeterminate,
    differentialComparisons: f.comparisons,
    endComparisons: f.endComparisons,
    registerChecks: f.registerChecks,
    deletedKeyProbes: f.deletedKeyProbes,
    exactlyOnceChecks: f.exactlyOnceChecks,
    deliveriesChecked: f.deliveriesChecked,
    deliveriesVerified: f.deliveriesVerified,
    elapsedSeconds: Math.round(f.elapsedMs / 100) / 10,
  };
}

export function printFigures(result: RunResult): string {
  const f = figuresOf(result);
  return [
    `operations: ${f.operations} (${Object.entries(f.operationsByKind)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")})`,
    `requests: ${f.requests}; differential comparisons: ${f.differentialComparisons}; end comparisons: ${f.endComparisons}`,
    `register reads checked: ${f.registerChecks}; deleted-key probes: ${f.deletedKeyProbes}; exactly-once checks: ${f.exactlyOnceChecks}`,
    `deliveries checked: ${f.deliveriesChecked}; receiver requests verified: ${f.deliveriesVerified}`,
    `anomalies: ${f.anomalies}; conflicts retried: ${f.conflictsRetried}; latency p50 ${f.latencyMs.p50} ms, p99 ${f.latencyMs.p99} ms`,
    `kills: ${f.kills}; indeterminate ops: ${f.indeterminate}; elapsed: ${f.elapsedSeconds} s`,
  ].join("\n");
}

export function entryLine(e: Entry, t0: number): string {
  const status = e.status === null ? "no answer" : String(e.status);
  const note = e.note ? ` (${e.note})` : "";
  return `#${e.id} c${e.client} ${e.replica} ${e.invoke - t0}→${e.complete - t0}ms ${e.method} ${e.path} -> ${status}${note}`;
}

/** The ops relevant to an anomaly: its workspace's up to it, the others and the kills that overlapped it. */
export function relevant(history: History, anomaly: Anomaly, limit = 40): string[] {
  const t0 = history.entries[0]?.invoke ?? 0;
  const at = anomaly.entry ? history.entries[anomaly.entry - 1] : undefined;
  const end = at?.complete ?? anomaly.at;
  const start = at?.invoke ?? end;
  const own = history.entries.filter(
    (e) => e.workspace !== undefined && e.workspace === anomaly.workspace && e.invoke <= end,
  );
  const overlapping = history.entries.filter((e) => !own.includes(e) && e.invoke <= end && e.complete >= start);
  const lines = [...own.slice(-limit), ...overlapping.slice(0, 12)]
    .sort((a, b) => a.id - b.id)
    .map((e) => `  ${entryLine(e, t0)}`);
  for (const k of history.kills)
    if (k.at <= end && (k.restartedAt ?? Infinity) >= start - 30_000)
      lines.push(
        `  kill ${k.replica} at ${k.at - t0}ms${k.restartedAs ? `, restarted as ${k.restartedAs} at ${(k.restartedAt ?? 0) - t0}ms` : ""}`,
      );
  return lines;
}

export function rerunCommand(
  options: Pick<CheckerOptions, "replicas" | "ops" | "cluster" | "kill" | "seed" | "clients">,
): string {
  return `npm run soak -- --replicas ${options.replicas} --ops ${options.ops}${options.clients !== 6 ? ` --clients ${options.clients}` : ""}${options.cluster ? " --cluster" : ""}${options.kill ? " --kill" : ""} --seed ${options.seed}`;
}

export function printAnomalies(result: RunResult, options: Parameters<typeof rerunCommand>[0], max = 8): string {
  const { anomalies } = result.history;
  const out = [
    `seed: ${options.seed}`,
    `rerun: ${rerunCommand(options)}`,
    "(the same seed regenerates the same workload; the interleaving of real processes may differ)",
    `shortest failing history: ${result.history.entries.length} requests, ${result.workload.clients.reduce((s, c) => s + c.length, 0)} ops of ${result.workload.clients.length} clients, ${result.workload.kills.length} kills`,
  ];
  for (const a of anomalies.slice(0, max)) {
    out.push(`ANOMALY [${a.kind}] ${a.message}`);
    out.push(...relevant(result.history, a));
  }
  if (anomalies.length > max) out.push(`... and ${anomalies.length - max} more anomalies`);
  return out.join("\n");
}
