/**
 * The operations of a run's document as the reports list them: method, path, documented statuses, and
 * whether the operation's rules are `hand-written` (operations/) or `generic` (derived from the document).
 */
import { bundledDocument, type SuiteDocument } from "../lib/document.js";
import type { Rule } from "../lib/rule.js";
import { documentRules } from "./document-rules.js";
import { GENERIC_GROUP } from "./rules.js";

export type RulesKind = "hand-written" | "generic";

export interface OperationSummary {
  operationId: string;
  method: string;
  path: string;
  /** Documented statuses, as the document writes them ("200", "404", "4XX", "default"). */
  statuses: string[];
  rules: RulesKind;
}

export function operationCatalog(document: SuiteDocument, rules: readonly Rule[]): OperationSummary[] {
  const handWritten = new Set(rules.filter((r) => r.group !== GENERIC_GROUP).map((r) => r.operationId));
  return [...document.operations.values()].map((op) => ({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    statuses: op.statuses,
    rules: handWritten.has(op.operationId) ? "hand-written" : "generic",
  }));
}

/** The operations of a run: its own list, or (a run recorded before runs carried one) the bundled spec's. */
export function operationsOfRun(run: { operations?: OperationSummary[] }): OperationSummary[] {
  return run.operations ?? operationCatalog(bundledDocument, documentRules(bundledDocument));
}
