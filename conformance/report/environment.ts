/**
 * The environment section every report shows (transport/environment.ts gathers it): what stood between
 * the suite and the API during the run. The console and the HTML page show the same figures with the
 * same labels; JUnit carries them as properties named after the JSON fields.
 */
import type { EnvironmentReport } from "../transport/environment.js";

const RETRY_LABELS: Record<keyof EnvironmentReport["retries"], string> = {
  rateLimited: "rate limited (429)",
  unavailable: "unavailable (503 with Retry-After)",
  gateway: "gateway page",
  network: "network",
  timeout: "timeout",
  api5xx: "API 5xx",
};

const counted = (counts: Record<string, number>, label: (key: string) => string = (k) => k) => {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${label(k)} x${n}`);
  return parts.length > 0 ? parts.join(", ") : "none";
};

const perSecond = (pace: number) => (pace >= 1 ? `${pace} req/s` : `${pace} req/s (${Math.round(pace * 60)}/min)`);
const millis = (v: number | null) => (v === null ? "-" : `${v} ms`);

/** [label, value] rows for a person: requests, 429s and the wait, pace and its mode, retries, gateway and network errors, flaky answers, latency. */
export function environmentRows(env: EnvironmentReport): [string, string][] {
  const pace =
    env.pace === null
      ? env.paceMode === "auto"
        ? "none needed (auto: slows down when the target answers 429)"
        : "none (fixed)"
      : `${perSecond(env.pace)} (${env.paceMode === "auto" ? "auto: learnt from the target's 429s" : "fixed by --rate-limit"})`;
  const { p50, p95, p99 } = env.latency;
  return [
    ["requests", `${env.requests} sent, retries included`],
    ["rate limited", `${env.rateLimited} answered 429; waited ${env.waitedSeconds} s`],
    ["pace", pace],
    ["retries", counted(env.retries, (k) => RETRY_LABELS[k as keyof typeof RETRY_LABELS] ?? k)],
    ["gateway errors", counted(env.gatewayErrors)],
    ["network errors", counted(env.networkErrors)],
    [
      "flaky answers",
      env.flaky.length === 0 ? "none" : env.flaky.map((f) => `${f.request}: ${f.first}, then ${f.then}`).join("; "),
    ],
    [
      "latency",
      p50 === null ? "no answer of the API was timed" : `p50 ${millis(p50)}, p95 ${millis(p95)}, p99 ${millis(p99)}`,
    ],
  ];
}

/**
 * JUnit `<property>` pairs, named after the JSON fields: `environment.requests`, `environment.retries.gateway`,
 * `environment.gatewayErrors.502`, `environment.latency.p95`, ... Counts are numbers; `pace` and the
 * latencies are left out when null (no pace was needed, no answer was timed); `flaky` and `inconclusive` are counts.
 */
export function environmentProperties(env: EnvironmentReport): [string, string][] {
  const p: [string, string][] = [
    ["environment.requests", String(env.requests)],
    ["environment.rateLimited", String(env.rateLimited)],
    ["environment.waitedSeconds", String(env.waitedSeconds)],
    ...(env.pace === null ? [] : [["environment.pace", String(env.pace)] as [string, string]]),
    ["environment.paceMode", env.paceMode],
    ...Object.entries(env.retries).map(([k, n]): [string, string] => [`environment.retries.${k}`, String(n)]),
    ...Object.entries(env.gatewayErrors).map(([k, n]): [string, string] => [
      `environment.gatewayErrors.${k}`,
      String(n),
    ]),
    ...Object.entries(env.networkErrors).map(([k, n]): [string, string] => [
      `environment.networkErrors.${k}`,
      String(n),
    ]),
    ["environment.flaky", String(env.flaky.length)],
    ["environment.inconclusive", String(env.inconclusive.length)],
  ];
  for (const q of ["p50", "p95", "p99"] as const)
    if (env.latency[q] !== null) p.push([`environment.latency.${q}`, String(env.latency[q])]);
  p.push(["environment.summary", env.summary]);
  return p;
}
