/** The soak's figures as text, and its verdict: zero errors, RSS growth within 20 %, bounded journal and outbox. */
import type { SoakResult } from "./run.js";

export const MAX_RSS_GROWTH = 0.2;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function verdict(r: SoakResult): string[] {
  const problems: string[] = [];
  if (r.errors.total > 0) problems.push(`${r.errors.total} errors`);
  if (!(r.rss.growth <= MAX_RSS_GROWTH))
    problems.push(`RSS grew by ${(r.rss.growth * 100).toFixed(1)} % (at most ${MAX_RSS_GROWTH * 100} %)`);
  if (r.journal.max > r.journal.cap)
    problems.push(`journal held ${r.journal.max} entries, over its cap of ${r.journal.cap}`);
  if (r.outbox.max > r.outbox.cap)
    problems.push(`outbox held ${r.outbox.max} deliveries, over its cap of ${r.outbox.cap}`);
  return problems;
}

export function soakReport(r: SoakResult): string {
  const o = r.options;
  const byOperation = Object.entries(r.failuresByRequest)
    .map(([name, n]) => `${name}: ${n}`)
    .join(", ");
  return [
    `connections ${o.connections}, duration ${r.durationSec} s, ${o.workspaces} workspaces, baseline restored every ${o.resetEverySec || "(never)"} s (${r.resets} times), clock x${o.clockSpeed}`,
    `requests        ${r.requests} (${Math.round(r.requests / r.durationSec)} req/s)`,
    `statuses        ${Object.entries(r.statusCodes)
      .map(([code, n]) => `${code}: ${n}`)
      .join(", ")}`,
    `errors          ${r.errors.total} (connection ${r.errors.connection}, timeouts ${r.errors.timeouts}, non-2xx ${r.errors.non2xx}, control plane ${r.errors.control})${byOperation ? ` [${byOperation}]` : ""}`,
    `latency         p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
    `RSS             ${mb(r.rss.warmBytes)} after ${o.warmupSec} s warm-up -> ${mb(r.rss.endBytes)} at the end (${r.rss.growth >= 0 ? "+" : ""}${(r.rss.growth * 100).toFixed(1)} %), peak ${mb(r.rss.peakBytes)}`,
    `RSS every 5 s   ${r.rss.everyFiveSeconds.map((b) => (b / 1024 / 1024).toFixed(0)).join(" ")} MB`,
    `journal         at most ${r.journal.max} entries (cap --journal-size ${r.journal.cap})`,
    `webhook outbox  at most ${r.outbox.max} deliveries (cap --outbox-size ${r.outbox.cap}); receivers got ${r.deliveries.ok} accepted, ${r.deliveries.fail} refused attempts`,
    `mock exit code  ${r.exitCode} after SIGTERM`,
    ...r.failureSamples.map((s) => `  failure: ${s}`),
  ].join("\n");
}
