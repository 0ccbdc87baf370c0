/**
 * The check every response goes through, for one exchange of one operation of a document:
 * - the status is documented for the operation;
 * - a documented body comes as application/json and validates against the schema for that status;
 * - a documented empty response (E13's 204) has no body;
 * - every failure (documented or not) carries the error body of section 2.2, whose `status`, `error`
 *   and `path` agree with the HTTP exchange;
 * - no record in a body was updated before it was created.
 * The suite runs it on every response it gets (conformance/lib/conforms.ts), the upstream door on every
 * answer it proxies (drift.ts): one implementation, so both judge alike.
 */
import { errorBodyIssues } from "./error-body.js";
import { isJsonContentType, preview, type Issue, type ObservedExchange, type RuledIssue } from "./issue.js";
import type { Level } from "./leveled-validators.js";
import { operationIn } from "./operation-table.js";
import { ruledSchemaIssues } from "./schema-issues.js";
import { timelineIssues } from "./timeline.js";

/**
 * Success responses the reference does not show. At level documented any 2xx passes and its body is
 * not validated; at level assumed the spec's choice applies.
 */
const ASSUMED_SUCCESS = new Set(["createIntegrationAuth"]);

/** The issues of one exchange at `level`, each with the rule it breaks. */
export function ruledExchangeIssues(
  doc: object,
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): RuledIssue[] {
  const op = operationIn(doc, operationId);
  const status = String(exchange.status);
  const issues: RuledIssue[] = [];
  const assumedSuccess =
    level === "documented" && ASSUMED_SUCCESS.has(operationId) && exchange.status >= 200 && exchange.status < 300;
  const documented = op.statuses.includes(status);
  if (!documented && !assumedSuccess) {
    issues.push({
      rule: "status",
      issue: {
        pointer: "#status",
        expected: `one of ${op.statuses.join(", ")}`,
        actual: status,
        message: `status ${status} is not documented for ${operationId}`,
      },
    });
  }
  const contentType = exchange.headers.get("content-type");
  const schemaPointer = assumedSuccess
    ? undefined
    : (op.bodySchemas[status] ?? (exchange.status >= 400 ? "/components/schemas/Error" : undefined));
  if (schemaPointer) {
    if (!isJsonContentType(contentType)) {
      issues.push({
        rule: "content-type",
        issue: {
          pointer: "#header/content-type",
          expected: "application/json",
          actual: contentType ?? "(none)",
          message: "a documented body must be application/json",
        },
      });
    }
    if (exchange.json === undefined) {
      issues.push({
        rule: "body",
        issue: {
          pointer: "",
          expected: "a JSON body",
          actual: preview(exchange.text),
          message: "body is missing or not JSON",
        },
      });
    } else {
      issues.push(...ruledSchemaIssues(doc, exchange.json, schemaPointer, level));
    }
  } else if (documented && !assumedSuccess && exchange.text.length > 0) {
    issues.push({
      rule: "body",
      issue: {
        pointer: "",
        expected: "no body",
        actual: preview(exchange.text),
        message: `status ${status} documents no body`,
      },
    });
  }
  if (exchange.status >= 400 && exchange.json && typeof exchange.json === "object")
    issues.push(...errorBodyIssues(exchange).map((issue) => ({ rule: "error-body" as const, issue })));
  if (exchange.status < 300)
    issues.push(...timelineIssues(exchange.json, "").map((issue) => ({ rule: "timeline" as const, issue })));
  return issues;
}

export function conformanceIssues(doc: object, exchange: ObservedExchange, operationId: string, level: Level): Issue[] {
  return ruledExchangeIssues(doc, exchange, operationId, level).map((r) => r.issue);
}

/**
 * Issues found at level assumed, each with the level it rests on: `documented` when the documented
 * (relaxed) check finds an issue at the same pointer, `assumed` otherwise. Shared by leveledIssues and
 * the request checks of drift.ts, which judge at both levels alike.
 */
export function levelByPointer<T>(
  documented: readonly T[],
  assumed: readonly T[],
  pointerOf: (item: T) => string,
): (T & { level: Level })[] {
  const documentedAt = new Set(documented.map(pointerOf));
  return assumed.map((item) => ({
    ...item,
    level: documentedAt.has(pointerOf(item)) ? ("documented" as const) : ("assumed" as const),
  }));
}

/**
 * The issues of one exchange at `level`, each with the level it rests on: at level assumed an issue
 * also found by the documented (relaxed) check is documented, any other one rests on an assumption.
 */
export function leveledRuledIssues(
  doc: object,
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): (RuledIssue & { level: Level })[] {
  if (level === "documented")
    return ruledExchangeIssues(doc, exchange, operationId, "documented").map((r) => ({ ...r, level }));
  // Level documented only relaxes (x-assumption restrictions dropped, objects left open): an exchange
  // with no issue at level assumed has none at level documented either, and most exchanges have none.
  const assumed = ruledExchangeIssues(doc, exchange, operationId, "assumed");
  if (assumed.length === 0) return [];
  const documented = ruledExchangeIssues(doc, exchange, operationId, "documented");
  return levelByPointer(documented, assumed, (r) => r.issue.pointer);
}

export function leveledIssues(
  doc: object,
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): (Issue & { level: Level })[] {
  return leveledRuledIssues(doc, exchange, operationId, level).map((r) => ({ ...r.issue, level: r.level }));
}
