/**
 * Times stamped "now" read as now on the target's clock. Needs the target's clock besides the exchange,
 * so only the suite (which reads it) runs it; the upstream door has no clock of the deployment to go by.
 */
import { preview, type Issue, type ObservedExchange } from "./issue.js";

/**
 * Fields a write stamps with the time it happens (2.4, 2.7, 2.8, 2.14): they must read as now on
 * the target's clock. So must the timestamp of an error (2.2: when the error occurred).
 */
const STAMPED: Record<string, string[]> = {
  createIntegration: ["createdAt", "updatedAt"],
  updateIntegration: ["updatedAt"],
  createBatchRun: ["createdDate"],
  createKnowledgeBase: ["createdAt", "updatedAt"],
  createChat: ["createdAt", "updatedAt"],
};

/** Wide enough for a foreign target's clock read from its Date header; a time zone slip is 30 minutes or more. */
export const CLOCK_TOLERANCE_MS = 10 * 60_000;

export function stampedTimes(exchange: ObservedExchange, operationId: string): { pointer: string; value: unknown }[] {
  const body = exchange.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body)) return [];
  if (exchange.status >= 400) return "timestamp" in body ? [{ pointer: "/timestamp", value: body.timestamp }] : [];
  if (exchange.status >= 300) return [];
  return (STAMPED[operationId] ?? []).filter((f) => f in body).map((f) => ({ pointer: `/${f}`, value: body[f] }));
}

/** `now`: the target's clock (ms) just after the exchange. Timestamps that do not parse are the schema's business. */
export function clockIssues(exchange: ObservedExchange, operationId: string, now: number): Issue[] {
  return stampedTimes(exchange, operationId).flatMap(({ pointer, value }) => {
    const at = typeof value === "string" ? Date.parse(value) : NaN;
    if (Number.isNaN(at) || Math.abs(at - now) <= CLOCK_TOLERANCE_MS) return [];
    const off = Math.round((at - now) / 60_000);
    return [
      {
        pointer,
        expected: `within ${CLOCK_TOLERANCE_MS / 60_000} minutes of the target's clock, ${new Date(now).toISOString()}`,
        actual: preview(value),
        message: `a time stamped now is ${Math.abs(off)} minutes ${off > 0 ? "ahead" : "behind"} (section 1.3: UTC)`,
      },
    ];
  });
}
