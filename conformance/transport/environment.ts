/**
 * What the environment between the suite and the API did during a run: rate limits and the waits
 * they cost, the pace the run settled on, retries and gateway errors by kind, answers that changed
 * on a retry, and the target's latency. Every report shows it; one line sums it up.
 */
import type { AnswerKind, NetworkKind } from "./answer-kind.js";

export interface FlakyAnswer {
  /** `GET /v1/calls` */
  request: string;
  first: number;
  then: number;
}

/** The `environment` section of a report (JSON field names are an interface: ../shared/DESIGN.md). */
export interface EnvironmentReport {
  /** Requests sent to the target, retries included. */
  requests: number;
  /** Answers that were 429. */
  rateLimited: number;
  /** Seconds spent waiting on Retry-After and backoff (time nothing could be sent, counted once). */
  waitedSeconds: number;
  /** The pace the run settled on, requests per second; null when it never needed one. */
  pace: number | null;
  paceMode: "auto" | "fixed";
  /** Requests sent again, by why. */
  retries: Record<"rateLimited" | "unavailable" | "gateway" | "network" | "timeout" | "api5xx", number>;
  /** Gateway answers (not the API's) by status, and network failures by kind. */
  gatewayErrors: Record<string, number>;
  networkErrors: Record<string, number>;
  /** API 5xx answers that differed when sent again. */
  flaky: FlakyAnswer[];
  /** Rules that got no real answer through the environment (filled by the runner). */
  inconclusive: string[];
  /** Response times of the target's own answers, in ms. */
  latency: { p50: number | null; p95: number | null; p99: number | null };
  /** One line for the console. */
  summary: string;
}

export type RetryReason = keyof EnvironmentReport["retries"];

export class EnvironmentStats {
  requests = 0;
  rateLimited = 0;
  retries: EnvironmentReport["retries"] = {
    rateLimited: 0,
    unavailable: 0,
    gateway: 0,
    network: 0,
    timeout: 0,
    api5xx: 0,
  };
  gatewayErrors: Record<string, number> = {};
  networkErrors: Record<string, number> = {};
  flaky: FlakyAnswer[] = [];
  private latencies: number[] = [];
  private waitedMs = 0;
  private waitedUntil = 0;

  /** One attempt's outcome. */
  attempt(kind: AnswerKind | NetworkKind, status: number | undefined, durationMs: number | undefined): void {
    this.requests++;
    if (kind === "rate-limited") this.rateLimited++;
    else if (kind === "gateway" || kind === "unavailable")
      this.gatewayErrors[String(status)] = (this.gatewayErrors[String(status)] ?? 0) + 1;
    else if (
      kind === "refused" ||
      kind === "reset" ||
      kind === "reset-unsent" ||
      kind === "timeout" ||
      kind === "fatal"
    )
      this.networkErrors[kind] = (this.networkErrors[kind] ?? 0) + 1;
    if ((kind === "api" || kind === "api-5xx") && durationMs !== undefined) this.latencies.push(durationMs);
  }

  retry(reason: RetryReason): void {
    this.retries[reason]++;
  }

  /** A wait from `from` to `until` (performance.now() times); overlapping waits count once. */
  waited(from: number, until: number): void {
    const start = Math.max(from, this.waitedUntil);
    if (until > start) this.waitedMs += until - start;
    this.waitedUntil = Math.max(this.waitedUntil, until);
  }

  get waitedSeconds(): number {
    return this.waitedMs / 1000;
  }

  report(pace: number | undefined, paceMode: "auto" | "fixed", inconclusive: string[]): EnvironmentReport {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
    const report: EnvironmentReport = {
      requests: this.requests,
      rateLimited: this.rateLimited,
      waitedSeconds: round(this.waitedSeconds),
      pace: pace === undefined ? null : round(pace),
      paceMode,
      retries: { ...this.retries },
      gatewayErrors: { ...this.gatewayErrors },
      networkErrors: { ...this.networkErrors },
      flaky: [...this.flaky],
      inconclusive: [...inconclusive],
      latency: { p50: at(0.5), p95: at(0.95), p99: at(0.99) },
      summary: "",
    };
    report.summary = environmentLine(report);
    return report;
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** e.g. "target rate-limited 262 requests at about 20/s; waited 31 s; 11 gateway errors retried; 0 inconclusive" */
export function environmentLine(env: Omit<EnvironmentReport, "summary">): string {
  const paceText = env.pace === null ? "" : ` at about ${formatPace(env.pace)}`;
  const limited =
    env.rateLimited > 0
      ? `target rate-limited ${env.rateLimited} request${env.rateLimited === 1 ? "" : "s"}${paceText}`
      : `no rate limit met${env.paceMode === "fixed" && env.pace !== null ? ` (paced at ${formatPace(env.pace)})` : ""}`;
  const gateway = sum(env.gatewayErrors);
  const network = sum(env.networkErrors);
  return [
    limited,
    `waited ${Math.round(env.waitedSeconds)} s`,
    `${gateway} gateway error${gateway === 1 ? "" : "s"}${network > 0 ? ` and ${network} network error${network === 1 ? "" : "s"}` : ""} retried`,
    ...(env.flaky.length > 0 ? [`${env.flaky.length} flaky answer${env.flaky.length === 1 ? "" : "s"}`] : []),
    `${env.inconclusive.length} inconclusive`,
  ].join("; ");
}

function formatPace(perSecond: number): string {
  return perSecond >= 1 ? `${Math.round(perSecond)}/s` : `${Math.round(perSecond * 60)}/m`;
}
