/**
 * The statuses the generic rules expect, read from the operation's documented responses: a documented
 * success (its 2xx codes, a `2XX` range, or `default` when it documents no success of its own), a
 * documented client error (a 4xx code, `4XX`, or `default`), the documented 404.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import type { Exchange } from "../lib/http.js";
import { preview } from "../lib/conforms.js";
import type { RuleContext } from "../lib/rule.js";
import { documentedKey } from "../lib/document-issues.js";
import { successStatuses } from "./collections.js";

const shown = (exchange: Exchange) => `${exchange.status} ${preview(exchange.json ?? exchange.text, 200)}`;

/** What a success of `op` may answer, in words: `201`, `200 or 204`, `any 2xx`. */
export function successWords(op: OperationInfo): string {
  const codes = successStatuses(op).filter((s) => /^\d+$/.test(s));
  return codes.length > 0 && codes.length === successStatuses(op).length ? codes.join(" or ") : "a 2xx";
}

export function isSuccess(op: OperationInfo, status: number): boolean {
  if (status < 200 || status >= 300) return false;
  const key = documentedKey(op.statuses, status);
  return key !== undefined && (key !== "default" || successStatuses(op).length === 0);
}

export function expectSuccess(t: RuleContext, exchange: Exchange, op: OperationInfo, what: string): boolean {
  return t.expect(isSuccess(op, exchange.status), {
    pointer: "#status",
    expected: `${successWords(op)} (documented success)`,
    actual: shown(exchange),
    message: `${what}: ${exchange.request.method} ${exchange.request.path} must answer its documented success`,
    exchange,
  });
}

/** The client errors `op` documents (codes and ranges), for messages. */
export function clientErrorWords(op: OperationInfo): string {
  const listed = op.statuses.filter((s) => /^4/.test(s));
  return listed.length > 0 ? listed.join(", ") : op.statuses.includes("default") ? "a 4xx (default)" : "none";
}

/** Whether `op` documents any client error at all (a 4xx code, `4XX`, or `default`). */
export function documentsClientError(op: OperationInfo): boolean {
  return op.statuses.some((s) => /^4/.test(s) || s === "default");
}

export function expectClientError(t: RuleContext, exchange: Exchange, op: OperationInfo, why: string): boolean {
  const ok =
    exchange.status >= 400 && exchange.status < 500 && documentedKey(op.statuses, exchange.status) !== undefined;
  return t.expect(ok, {
    pointer: "#status",
    expected: `a documented 4xx (${clientErrorWords(op)})`,
    actual: shown(exchange),
    message: `${why}: ${exchange.request.method} ${exchange.request.path} must be refused with a documented 4xx`,
    exchange,
  });
}

/** Whether `op` documents 404 (its code, or `4XX`). */
export function documentsNotFound(op: OperationInfo): boolean {
  return op.statuses.includes("404") || op.statuses.some((s) => s.toUpperCase() === "4XX");
}

export function expectNotFound(t: RuleContext, exchange: Exchange, op: OperationInfo, why: string): boolean {
  const documented = documentsNotFound(op);
  const ok = documented ? exchange.status === 404 : exchange.status >= 400 && exchange.status < 500;
  return t.expect(ok, {
    pointer: "#status",
    expected: documented ? "404 (documented)" : "a 4xx (the document shows no 404)",
    actual: shown(exchange),
    message: `${why}: ${exchange.request.method} ${exchange.request.path} must answer ${documented ? "404" : "a 4xx"}`,
    exchange,
  });
}
