/**
 * The generic rules of a document: for every operation without hand-written rules, rules derived from
 * the document alone (basic-rules.ts, input-rule.ts, round-trip.ts). On this repo's spec every one of
 * the 17 operations has hand-written rules, so none are made; an operation a spec author adds gets
 * them at once; with --spec every operation of the other document gets them.
 * Order: reads first, then writes, deletes last, as the hand-written rules run.
 */
import type { SuiteDocument } from "../lib/document.js";
import { defineRules, type Rule, type RuleSpec } from "../lib/rule.js";
import { successRule, noCredentialRule, unknownIdRule } from "./basic-rules.js";
import { collectionsOf, roleOf } from "./collections.js";
import { invalidInputRule } from "./input-rule.js";
import { roundTripRule } from "./round-trip.js";

export const GENERIC_GROUP = "generic";

/** 0 reads, 1 writes, 2 deletes: the order rules run in. */
function phase(rule: RuleSpec, document: SuiteDocument): number {
  if (rule.readOnly) return 0;
  return rule.operationId && roleOf(document, rule.operationId)?.role === "remove" ? 2 : 1;
}

/** The generic rules of every operation of `document` that `handWritten` does not name. */
export function genericRules(document: SuiteDocument, handWritten: ReadonlySet<string>): Rule[] {
  const rules: RuleSpec[] = [];
  for (const op of document.operations.values()) {
    if (handWritten.has(op.operationId)) continue;
    rules.push(successRule(document, op));
    for (const rule of [unknownIdRule(document, op), invalidInputRule(document, op), noCredentialRule(document, op)])
      if (rule) rules.push(rule);
  }
  for (const collection of collectionsOf(document)) {
    if (!collection.create || handWritten.has(collection.create.operationId)) continue;
    const rule = roundTripRule(collection);
    if (rule) rules.push(rule);
  }
  const ordered = rules
    .map((rule, i) => ({ rule, i }))
    .sort((a, b) => phase(a.rule, document) - phase(b.rule, document) || a.i - b.i);
  return defineRules(
    GENERIC_GROUP,
    ordered.map((o) => o.rule),
  );
}
