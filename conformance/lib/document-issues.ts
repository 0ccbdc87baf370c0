/**
 * The check every response goes through, for the run's document. This API's documents (the bundled
 * spec, or a copy of it with operations added) are judged by mock-server/core/exchange-rules as always:
 * exact statuses, the 2.2 error body. Another document (--spec) is judged by what it states: a status
 * is documented when its code, its range (`4XX`) or `default` is; the body validates against the
 * schema of that response; no error body shape is assumed beyond its schema.
 */
import * as rules from "../../mock-server/core/exchange-rules/exchange-issues.js";
import {
  isJsonContentType,
  preview,
  type Issue,
  type ObservedExchange,
} from "../../mock-server/core/exchange-rules/issue.js";
import type { Level } from "../../mock-server/core/exchange-rules/leveled-validators.js";
import { ruledSchemaIssues } from "../../mock-server/core/exchange-rules/schema-issues.js";
import { timelineIssues } from "../../mock-server/core/exchange-rules/timeline.js";
import type { SuiteDocument } from "./document.js";

/** The response key of the document that covers `status`: the code itself, its range, or `default`. */
export function documentedKey(statuses: readonly string[], status: number): string | undefined {
  const code = String(status);
  const range = `${code[0]}XX`;
  return (
    statuses.find((s) => s === code) ??
    statuses.find((s) => s.toUpperCase() === range) ??
    statuses.find((s) => s === "default")
  );
}

/** The issues of one exchange of another document, at one level. */
function otherDocumentIssues(
  document: SuiteDocument,
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): Issue[] {
  const op = document.operations.get(operationId);
  if (!op) throw new Error(`Unknown operationId ${operationId}: not in ${document.source}`);
  const issues: Issue[] = [];
  const key = documentedKey(op.statuses, exchange.status);
  if (key === undefined)
    issues.push({
      pointer: "#status",
      expected: `one of ${op.statuses.join(", ")}`,
      actual: String(exchange.status),
      message: `status ${exchange.status} is not documented for ${operationId}`,
    });
  const schemaPointer = key === undefined ? undefined : op.bodySchemas[key];
  if (schemaPointer) {
    if (!isJsonContentType(exchange.headers.get("content-type")))
      issues.push({
        pointer: "#header/content-type",
        expected: "application/json",
        actual: exchange.headers.get("content-type") ?? "(none)",
        message: "a documented body must be application/json",
      });
    if (exchange.json === undefined)
      issues.push({
        pointer: "",
        expected: "a JSON body",
        actual: preview(exchange.text),
        message: "body is missing or not JSON",
      });
    else issues.push(...ruledSchemaIssues(document.doc, exchange.json, schemaPointer, level).map((r) => r.issue));
  }
  if (exchange.status < 300) issues.push(...timelineIssues(exchange.json, ""));
  return issues;
}

/**
 * The issues of one exchange at `level` against the run's document, each with the level it rests on
 * (at level assumed, an issue the documented check finds too is documented).
 */
export function documentIssues(
  document: SuiteDocument,
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): (Issue & { level: Level })[] {
  if (document.referenceErrors) {
    if (!document.operations.has(operationId))
      throw new Error(`Unknown operationId ${operationId}: not in ${document.source}`);
    return rules.leveledIssues(document.doc, exchange, operationId, level);
  }
  if (level === "documented")
    return otherDocumentIssues(document, exchange, operationId, level).map((i) => ({ ...i, level }));
  const assumed = otherDocumentIssues(document, exchange, operationId, "assumed");
  if (assumed.length === 0) return [];
  return rules.levelByPointer(
    otherDocumentIssues(document, exchange, operationId, "documented"),
    assumed,
    (i) => i.pointer,
  );
}
