/**
 * Drift findings: what a real deployment answered, or was sent, that the document does not allow. The
 * upstream door (issue 24) runs these on every exchange it proxies, off the response path; they are the
 * conformance suite's single-exchange checks (exchange-issues.ts, page-invariants.ts, list-order.ts),
 * so a deployment drifts exactly where the suite would fail it.
 *
 * Rules (DRIFT_RULES, rule-names.ts): status, content-type, body, required, enum, format, e164, schema,
 * error-body, pagination, order, timeline.
 *
 * Level: a finding is `documented` when the check at level documented (x-assumption restrictions
 * relaxed) also finds an issue at its path, else `assumed`, as the suite's leveledIssues decides.
 * Pagination arithmetic is documented (2.1); an order takes the level LIST_OPERATIONS gives it.
 */
import { leveledRuledIssues, levelByPointer } from "./exchange-issues.js";
import type { Issue, ObservedExchange } from "./issue.js";
import type { Level } from "./leveled-validators.js";
import { firstOrderViolation } from "./list-order.js";
import { LIST_OPERATIONS } from "./list-operations.js";
import { pageInvariantIssues } from "./page-invariants.js";
import { ruledRequestIssues, type ObservedRequest } from "./request-issues.js";
import { DRIFT_RULES, type DriftRule } from "./rule-names.js";

export { DRIFT_RULES, type DriftRule, type ObservedRequest };

export interface Finding {
  rule: DriftRule;
  level: Level;
  where: "request" | "response";
  /** A JSON pointer into the body, "#status", "#header/content-type", or "/query/size" (a request parameter). */
  path: string;
  /** One sentence: what was expected and what came. */
  message: string;
}

export interface ObservedResponse {
  operationId: string;
  status: number;
  headers: { get(name: string): string | null };
  text: string;
  /** The parsed body; when undefined, `text` is parsed here (an unparseable one is a `body` finding). */
  json?: unknown;
  request: {
    method: string;
    path: string;
    /** The mount or base path before the API's paths: error bodies may name the path without it. */
    basePath?: string;
    /** The query as sent: a page's invariants are judged against the page and size asked. */
    query: Record<string, string | string[]>;
  };
}

/**
 * A schema issue's message names the schema keyword's place (`schema #/components/...: must be >= 1`),
 * which repeats what `expected` says: the sentence says it once, and keeps the place for spec authors.
 */
const sentence = (issue: Issue) => {
  const schema = /^schema (\S+): /.exec(issue.message);
  return schema
    ? `expected ${issue.expected}, got ${issue.actual} (schema ${schema[1].replace(/^spec\.json/, "")})`
    : `${issue.message}: expected ${issue.expected}, got ${issue.actual}`;
};

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** A union (oneOf with null) repeats a field's failure as type and oneOf errors: the specific rule says it. */
const SPECIFIC: ReadonlySet<DriftRule> = new Set(["required", "enum", "format", "e164"]);

function withoutEchoes(findings: Finding[]): Finding[] {
  const specific = new Map<string, Level>();
  for (const f of findings)
    if (SPECIFIC.has(f.rule) && specific.get(`${f.where}${f.path}`) !== "documented")
      specific.set(`${f.where}${f.path}`, f.level);
  return findings.filter((f) => {
    if (f.rule !== "schema") return true;
    const kept = specific.get(`${f.where}${f.path}`);
    return kept === undefined || (kept === "assumed" && f.level === "documented");
  });
}

/** The findings of an answer of the deployment to one request of `operationId`. */
export function responseFindings(doc: object, observed: ObservedResponse): Finding[] {
  const json = observed.json !== undefined ? observed.json : parseJson(observed.text);
  const { method, path, basePath, query } = observed.request;
  const exchange: ObservedExchange = {
    status: observed.status,
    headers: observed.headers,
    text: observed.text,
    json,
    request: { method, path, basePath },
  };
  const findings: Finding[] = leveledRuledIssues(doc, exchange, observed.operationId, "assumed").map((r) => ({
    rule: r.rule,
    level: r.level,
    where: "response",
    path: r.issue.pointer,
    message: sentence(r.issue),
  }));
  const list = LIST_OPERATIONS[observed.operationId];
  if (list && observed.status >= 200 && observed.status < 300) {
    const asked = { page: first(query.page), size: first(query.size) };
    for (const issue of pageInvariantIssues(json, asked, list.totalField))
      findings.push({
        rule: "pagination",
        level: "documented",
        where: "response",
        path: issue.pointer,
        message: sentence(issue),
      });
    const data = (json as { data?: unknown } | undefined)?.data;
    const order = list.order;
    if (order?.field && Array.isArray(data)) {
      const wrong = firstOrderViolation(data, order.field, order.direction);
      if (wrong)
        findings.push({
          rule: "order",
          level: order.level,
          where: "response",
          path: `/data/${wrong.index}/${order.field}`,
          message: `items are ordered ${order.direction} by ${order.field}: expected ${order.direction === "newest-first" ? "<=" : ">="} ${String(wrong.before)}, got ${String(wrong.after)}`,
        });
    }
  }
  return withoutEchoes(findings);
}

/** The findings of a request a client sent to `operationId`: its parameters, content type and JSON body. */
export function requestFindings(doc: object, observed: ObservedRequest): Finding[] {
  // As for answers: nothing at level assumed means nothing at the looser level documented.
  const assumed = ruledRequestIssues(doc, observed, "assumed");
  if (assumed.length === 0) return [];
  const documented = ruledRequestIssues(doc, observed, "documented");
  return withoutEchoes(
    levelByPointer(documented, assumed, (r) => r.issue.pointer).map((r) => ({
      rule: r.rule,
      level: r.level,
      where: "request",
      path: r.issue.pointer,
      message: sentence(r.issue),
    })),
  );
}
