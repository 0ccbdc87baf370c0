/**
 * What every rule reports, and the exchange the rules judge. The exchange is the least a caller must
 * give: the suite's Exchange (conformance/lib/http.ts) has it, and so does what the upstream door builds
 * from a proxied answer.
 */
import type { DriftRule } from "./rule-names.js";

export interface Issue {
  /** JSON pointer into the response body ("" for the whole body, "#status" / "#header/..." for the envelope). */
  pointer: string;
  expected: string;
  actual: string;
  message: string;
}

/** An issue with the rule it breaks: the suite drops the rule, the drift findings keep it. */
export interface RuledIssue {
  rule: DriftRule;
  issue: Issue;
}

export interface ObservedExchange {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json?: unknown;
  request: {
    method: string;
    /** The URL's path, the base URL's path included. */
    path: string;
    /** The base URL's path ("" at the root, "/api" behind a prefix): error bodies may name paths relative to it. */
    basePath?: string;
  };
}

export function preview(value: unknown, max = 160): string {
  if (value === undefined) return "(absent)";
  const s = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

/** A value as the suite's failures show it: a string as is, anything else previewed (RuleContext.expect). */
export function shown(value: unknown): string {
  return typeof value === "string" ? value : preview(value);
}

export function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const raw of pointer.split("/").slice(1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

export function isJsonContentType(value: string | null | undefined): boolean {
  return typeof value === "string" && value.split(";")[0].trim().toLowerCase() === "application/json";
}
