/**
 * expectConforms: the one check every response the suite receives goes through.
 * - the status is documented for the operation;
 * - a documented body comes as application/json and validates against the schema for that status;
 * - a documented empty response (E13's 204) has no body;
 * - every failure (documented or not) carries the error body of section 2.2, whose `status`, `error`
 *   and `path` agree with the HTTP exchange;
 * - no record in a body was updated before it was created;
 * - (clockIssues, given the target's clock) an error's timestamp and a new record's creation time are now.
 * The checks live in mock-server/core/exchange-rules/, for any document, because the mock's upstream
 * door runs them too (drift findings); here they are bound to the bundled spec.
 */
import * as rules from "../../mock-server/core/exchange-rules/exchange-issues.js";
import { schemaIssues as schemaIssuesIn } from "../../mock-server/core/exchange-rules/schema-issues.js";
import type { Issue, ObservedExchange } from "../../mock-server/core/exchange-rules/issue.js";
import { operation, spec } from "./spec.js";
import type { Level } from "./schemas.js";

export { CLOCK_TOLERANCE_MS, clockIssues, stampedTimes } from "../../mock-server/core/exchange-rules/clock-issues.js";
export { errorBodyIssues } from "../../mock-server/core/exchange-rules/error-body.js";
export { isJsonContentType, preview, type Issue } from "../../mock-server/core/exchange-rules/issue.js";
export { timelineIssues } from "../../mock-server/core/exchange-rules/timeline.js";

export function schemaIssues(body: unknown, schemaPointer: string, level: Level): Issue[] {
  return schemaIssuesIn(spec, body, schemaPointer, level);
}

export function conformanceIssues(exchange: ObservedExchange, operationId: string, level: Level): Issue[] {
  operation(operationId); // an id the bundled spec lacks throws here, naming the spec
  return rules.conformanceIssues(spec, exchange, operationId, level);
}

/**
 * The issues of one exchange at `level`, each with the level it rests on: at level assumed an issue
 * also found by the documented (relaxed) check is documented, any other one rests on an assumption.
 */
export function leveledIssues(
  exchange: ObservedExchange,
  operationId: string,
  level: Level,
): (Issue & { level: Level })[] {
  operation(operationId); // as in conformanceIssues
  return rules.leveledIssues(spec, exchange, operationId, level);
}

/** Throws an Error listing every issue; for use in tests and scripts. */
export function expectConforms(exchange: ObservedExchange, operationId: string, level: Level = "assumed"): void {
  const issues = conformanceIssues(exchange, operationId, level);
  if (issues.length > 0) {
    const lines = issues.map(
      (i) => `  ${i.pointer || "(body)"}: expected ${i.expected}, got ${i.actual} (${i.message})`,
    );
    throw new Error(
      `${exchange.request.method} ${exchange.request.path} -> ${exchange.status} does not conform to ${operationId}:\n${lines.join("\n")}`,
    );
  }
}
