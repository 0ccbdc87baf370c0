/**
 * Every rule of a document, in the order they run: this API's hand-written rules (operations/) when the
 * document is this API's, then the generic rules of every operation none of them checks.
 */
import { bundledDocument, type SuiteDocument } from "../lib/document.js";
import type { Rule } from "../lib/rule.js";
import { allRules } from "../operations/index.js";
import { genericRules } from "./rules.js";

const rulesByDocument = new WeakMap<SuiteDocument, Rule[]>();

export function documentRules(document: SuiteDocument = bundledDocument): Rule[] {
  let rules = rulesByDocument.get(document);
  if (!rules) {
    const handWritten = document.handWritten ? allRules.filter((r) => document.operations.has(r.operationId)) : [];
    const covered = new Set(handWritten.map((r) => r.operationId));
    rulesByDocument.set(document, (rules = [...handWritten, ...genericRules(document, covered)]));
  }
  return rules;
}
