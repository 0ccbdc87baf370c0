/**
 * What a generic rule reads of its run: the run's document, the path prefix its base URL needs, and the
 * options values are made with (a seed the rule's id fixes, the run id as the marker in generated text).
 */
import { createHash } from "node:crypto";
import { bundledDocument, pathPrefix, type SuiteDocument } from "../lib/document.js";
import type { RuleContext } from "../lib/rule.js";
import type { ValueOptions } from "./values.js";

export function documentOf(t: RuleContext): SuiteDocument {
  return t.fixtures.document ?? bundledDocument;
}

export function prefixOf(t: RuleContext): string {
  return pathPrefix(documentOf(t), t.target.baseUrl);
}

/** A seed the rule's id fixes, so a rule sends the same values on every run. */
export function seedOf(name: string): number {
  return Number.parseInt(createHash("sha256").update(name).digest("hex").slice(0, 7), 16);
}

export function valueOptions(t: RuleContext, salt = 0): ValueOptions {
  return { seed: seedOf(t.rule.id) + salt, marker: t.fixtures.runId };
}
