/**
 * Whether an answer is the API's or the environment's. The reference documents no 429, 502, 503 or
 * 504 and answers every failure with its error body (section 2.2); a gateway in front of it answers
 * with its own pages. Only the API's answers are judged against the contract.
 */

/** What came back for one attempt. */
export type AnswerKind =
  /** The API answered (any status but those below): judged by the rules. */
  | "api"
  /** 5xx with the 2.2 error body: the API's own failure, retried once to tell flakiness apart. */
  | "api-5xx"
  /** 429: a rate limit, never judged, always retried (the request was not processed). */
  | "rate-limited"
  /** 503 with Retry-After: the service asked to come back later; not processed, retried like a 429. */
  | "unavailable"
  /** 502, 503, 504, or a 5xx whose body is not the 2.2 body: a gateway's page; may or may not have reached the service. */
  | "gateway";

/** A failure before any answer, by what it tells about the request. */
export type NetworkKind =
  /** Connection refused: the request provably never left. */
  | "refused"
  /** Reset or closed before a byte of the request was written: provably unsent. */
  | "reset-unsent"
  /** Reset or closed after the request (or part of it) was written: it may have been processed. */
  | "reset"
  /** No answer within the per-request timeout: it may have been processed. */
  | "timeout"
  /** A certificate refused, a host that does not resolve: no retry changes it. */
  | "fatal";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** The reference's error body (2.2): an object whose `status` is an integer and whose `error` and `message` are strings. */
export function isApiErrorBody(json: unknown): boolean {
  if (!json || typeof json !== "object" || Array.isArray(json)) return false;
  const body = json as Record<string, unknown>;
  return Number.isInteger(body.status) && typeof body.error === "string" && typeof body.message === "string";
}

export function answerKind(answer: Answer): AnswerKind {
  const { status } = answer;
  if (status === 429) return "rate-limited";
  if (status === 503 && answer.headers.has("retry-after")) return "unavailable";
  if (GATEWAY_STATUSES.has(status)) return "gateway";
  if (status >= 500) return isApiErrorBody(answer.json) ? "api-5xx" : "gateway";
  return "api";
}

/** undici's errors, read through fetch's `TypeError: fetch failed` wrapper. */
export function networkKind(error: unknown): NetworkKind {
  const seen = new Set<unknown>();
  let e = error as { name?: string; code?: string; cause?: unknown; socket?: { bytesWritten?: number } } | undefined;
  while (e && !seen.has(e)) {
    seen.add(e);
    if (
      e.name === "TimeoutError" ||
      e.code === "UND_ERR_HEADERS_TIMEOUT" ||
      e.code === "UND_ERR_BODY_TIMEOUT" ||
      e.code === "ETIMEDOUT"
    )
      return "timeout";
    if (e.code === "ECONNREFUSED") return "refused";
    if (e.code === "ENOTFOUND" || /CERT|SELF_SIGNED|ERR_TLS|ERR_SSL|UNABLE_TO_VERIFY/.test(e.code ?? ""))
      return "fatal";
    if (e.socket && typeof e.socket.bytesWritten === "number")
      return e.socket.bytesWritten === 0 ? "reset-unsent" : "reset";
    e = e.cause as typeof e;
  }
  return "reset";
}

/** True when the kind proves the request was not processed, so even a write may be sent again. */
export function provablyUnprocessed(kind: AnswerKind | NetworkKind): boolean {
  return kind === "rate-limited" || kind === "unavailable" || kind === "refused" || kind === "reset-unsent";
}

/** No answer at all: the network failed (`cause` holds undici's error, read by networkKind). */
export class TargetUnreachable extends Error {}
