/**
 * What a mock tells the instruments a door brings (Prometheus metrics, OpenTelemetry spans: node/metrics.ts,
 * node/tracing.ts): each answered request and each webhook attempt. The core and the dispatcher only call
 * these; the instruments and their packages stay in the Node doors, so the MSW handlers carry none of them.
 */
import type { RequestLogEntry } from "./exchange.js";

/**
 * How one webhook attempt ended: `delivered` (2xx), `failed` (the receiver answered another status),
 * `error` (no answer: refused, TLS, timeout, cut), `skipped` (a reserved example domain, never called).
 */
export type WebhookAttemptOutcome = "delivered" | "failed" | "error" | "skipped";

export const WEBHOOK_ATTEMPT_OUTCOMES: readonly WebhookAttemptOutcome[] = ["delivered", "failed", "error", "skipped"];

export interface Telemetry {
  /** Once per answered request (the dashboard's own quiet reads excepted), as the request log gets it. */
  requestDone(entry: RequestLogEntry): void;
  /** Once per webhook attempt, retries and redeliveries included. */
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
}

/** Several instruments told as one; undefined when there is none, so the core builds nothing for them. */
export function combineTelemetry(...parts: (Partial<Telemetry> | undefined)[]): Telemetry | undefined {
  const present = parts.filter((part): part is Partial<Telemetry> => part !== undefined);
  const requests = present.flatMap((part) => (part.requestDone ? [part.requestDone.bind(part)] : []));
  const attempts = present.flatMap((part) => (part.webhookAttempt ? [part.webhookAttempt.bind(part)] : []));
  if (requests.length === 0 && attempts.length === 0) return undefined;
  return {
    requestDone: (entry) => {
      for (const told of requests) told(entry);
    },
    webhookAttempt: (outcome) => {
      for (const told of attempts) told(outcome);
    },
  };
}
