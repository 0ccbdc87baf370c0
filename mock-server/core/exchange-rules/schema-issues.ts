/**
 * A value against a schema of the document at a level: ajv's errors as issues, each with the rule it
 * breaks (required, enum, format, e164, or schema for any other keyword).
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { preview, valueAt, type Issue, type RuledIssue } from "./issue.js";
import { leveledValidators, type Level } from "./leveled-validators.js";
import type { Json, JsonObject } from "./json-document.js";
import type { DriftRule } from "./rule-names.js";

/** Past this many errors one value says little more: the first ones point at the drift. */
const MAX_ISSUES_PER_SCHEMA = 6;

const E164_MENTION = /e\.?164/i;
const e164ByDocument = new WeakMap<object, Set<string>>();

/**
 * The patterns of the document's phone number fields: those of a schema named E164, or whose
 * description or format names E.164. A pattern error against one of them is an `e164` drift.
 */
function e164Patterns(doc: object): Set<string> {
  let patterns = e164ByDocument.get(doc);
  if (patterns) return patterns;
  const found = new Set<string>();
  const visit = (node: Json, name: string): void => {
    if (Array.isArray(node)) return node.forEach((child) => visit(child, ""));
    if (!node || typeof node !== "object") return;
    const { pattern, description, format } = node as JsonObject;
    if (
      typeof pattern === "string" &&
      (E164_MENTION.test(name) ||
        (typeof description === "string" && E164_MENTION.test(description)) ||
        (typeof format === "string" && E164_MENTION.test(format)))
    )
      found.add(pattern);
    for (const [key, child] of Object.entries(node)) visit(child, key);
  };
  visit(doc as Json, "");
  e164ByDocument.set(doc, (patterns = found));
  return patterns;
}

function ruleOf(error: ErrorObject, e164: Set<string>): DriftRule {
  switch (error.keyword) {
    case "required":
      return "required";
    case "enum":
    case "const":
      return "enum";
    case "format":
      return "format";
    case "pattern":
      return e164.has((error.params as { pattern: string }).pattern) ? "e164" : "schema";
    default:
      return "schema";
  }
}

/**
 * `validate(value)` as issues with their rules; none when it passes. `shownFrom`: where the values the
 * issues show are read, when `value` is a copy the validator coerces (parameters arrive as strings).
 */
export function validationIssues(
  doc: object,
  validate: ValidateFunction,
  value: unknown,
  shownFrom: unknown = value,
): RuledIssue[] {
  if (validate(value)) return [];
  const e164 = e164Patterns(doc);
  return (validate.errors ?? []).slice(0, MAX_ISSUES_PER_SCHEMA).map((e) => {
    const extra =
      e.keyword === "unevaluatedProperties" || e.keyword === "additionalProperties"
        ? `/${(e.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ?? (e.params as { additionalProperty?: string }).additionalProperty}`
        : e.keyword === "required"
          ? `/${(e.params as { missingProperty: string }).missingProperty}`
          : "";
    const pointer = e.instancePath + extra;
    const expected =
      e.keyword === "required"
        ? "present (required)"
        : e.keyword.endsWith("Properties")
          ? "no such property"
          : `${e.message}${e.keyword === "enum" ? ` ${preview((e.params as { allowedValues: unknown }).allowedValues)}` : ""}`;
    const issue: Issue = {
      pointer,
      expected,
      actual: preview(valueAt(shownFrom, pointer)),
      message: `schema ${e.schemaPath}: ${e.message}`,
    };
    return { rule: ruleOf(e, e164), issue };
  });
}

/** `body` against the schema at `schemaPointer` of `doc`, at `level`. */
export function ruledSchemaIssues(doc: object, body: unknown, schemaPointer: string, level: Level): RuledIssue[] {
  return validationIssues(doc, leveledValidators(doc).validatorFor(schemaPointer, level), body);
}

export function schemaIssues(doc: object, body: unknown, schemaPointer: string, level: Level): Issue[] {
  return ruledSchemaIssues(doc, body, schemaPointer, level).map((r) => r.issue);
}
