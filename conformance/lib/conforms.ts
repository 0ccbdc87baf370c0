/**
 * expectConforms: the one check every response the suite receives goes through.
 * - the status is documented for the operation;
 * - a documented body comes as application/json and validates against the schema for that status;
 * - a documented empty response (E13's 204) has no body;
 * - every failure (documented or not) carries the error body of section 2.2, whose `status`, `error`
 *   and `path` agree with the HTTP exchange;
 * - no record in a body was updated before it was created;
 * - (clockIssues, given the target's clock) an error's timestamp and a new record's creation time are now.
 */
import type { Exchange } from "./http.js";
import { operation, STATUS_TEXT } from "./spec.js";
import { validatorFor, type Level } from "./schemas.js";

export interface Issue {
  /** JSON pointer into the response body ("" for the whole body, "#status" / "#header/..." for the envelope). */
  pointer: string;
  expected: string;
  actual: string;
  message: string;
}

/**
 * Success responses the reference does not show. At level documented any 2xx passes and its body is
 * not validated; at level assumed the spec's choice applies.
 */
const ASSUMED_SUCCESS = new Set(["createIntegrationAuth"]);

const MAX_ISSUES_PER_SCHEMA = 6;

export function preview(value: unknown, max = 160): string {
  if (value === undefined) return "(absent)";
  const s = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const raw of pointer.split("/").slice(1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

export function isJsonContentType(value: string | null): boolean {
  return value !== null && value.split(";")[0].trim().toLowerCase() === "application/json";
}

export function schemaIssues(body: unknown, schemaPointer: string, level: Level): Issue[] {
  const validate = validatorFor(schemaPointer, level);
  if (validate(body)) return [];
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
    return {
      pointer,
      expected,
      actual: preview(valueAt(body, pointer)),
      message: `schema ${e.schemaPath}: ${e.message}`,
    };
  });
}

export function conformanceIssues(exchange: Exchange, operationId: string, level: Level): Issue[] {
  const op = operation(operationId);
  const status = String(exchange.status);
  const issues: Issue[] = [];
  const assumedSuccess =
    level === "documented" && ASSUMED_SUCCESS.has(operationId) && exchange.status >= 200 && exchange.status < 300;
  const documented = op.statuses.includes(status);
  if (!documented && !assumedSuccess) {
    issues.push({
      pointer: "#status",
      expected: `one of ${op.statuses.join(", ")}`,
      actual: status,
      message: `status ${status} is not documented for ${operationId}`,
    });
  }
  const contentType = exchange.headers.get("content-type");
  const schemaPointer = assumedSuccess
    ? undefined
    : (op.bodySchemas[status] ?? (exchange.status >= 400 ? "/components/schemas/Error" : undefined));
  if (schemaPointer) {
    if (!isJsonContentType(contentType)) {
      issues.push({
        pointer: "#header/content-type",
        expected: "application/json",
        actual: contentType ?? "(none)",
        message: "a documented body must be application/json",
      });
    }
    if (exchange.json === undefined) {
      issues.push({
        pointer: "",
        expected: "a JSON body",
        actual: preview(exchange.text),
        message: "body is missing or not JSON",
      });
    } else {
      issues.push(...schemaIssues(exchange.json, schemaPointer, level));
    }
  } else if (documented && !assumedSuccess && exchange.text.length > 0) {
    issues.push({
      pointer: "",
      expected: "no body",
      actual: preview(exchange.text),
      message: `status ${status} documents no body`,
    });
  }
  if (exchange.status >= 400 && exchange.json && typeof exchange.json === "object")
    issues.push(...errorBodyIssues(exchange));
  if (exchange.status < 300) issues.push(...timelineIssues(exchange.json, ""));
  return issues;
}

/** A record is not updated before it is created: updatedAt >= createdAt wherever both are timestamps. */
export function timelineIssues(body: unknown, pointer: string): Issue[] {
  if (Array.isArray(body)) return body.flatMap((item, i) => timelineIssues(item, `${pointer}/${i}`));
  if (!body || typeof body !== "object") return [];
  const record = body as Record<string, unknown>;
  const issues = Object.entries(record).flatMap(([k, v]) =>
    v && typeof v === "object" ? timelineIssues(v, `${pointer}/${k}`) : [],
  );
  const created = typeof record.createdAt === "string" ? Date.parse(record.createdAt) : NaN;
  const updated = typeof record.updatedAt === "string" ? Date.parse(record.updatedAt) : NaN;
  if (updated < created)
    issues.push({
      pointer: `${pointer}/updatedAt`,
      expected: `>= createdAt ${record.createdAt}`,
      actual: preview(record.updatedAt),
      message: "a record is not updated before it is created",
    });
  return issues;
}

/**
 * Fields a write stamps with the time it happens (2.4, 2.7, 2.8, 2.14): they must read as now on
 * the target's clock. So must the timestamp of an error (2.2: when the error occurred).
 */
const STAMPED: Record<string, string[]> = {
  createIntegration: ["createdAt", "updatedAt"],
  updateIntegration: ["updatedAt"],
  createBatchRun: ["createdDate"],
  createKnowledgeBase: ["createdAt", "updatedAt"],
  createChat: ["createdAt", "updatedAt"],
};

/** Wide enough for a foreign target's clock read from its Date header; a time zone slip is 30 minutes or more. */
export const CLOCK_TOLERANCE_MS = 10 * 60_000;

export function stampedTimes(exchange: Exchange, operationId: string): { pointer: string; value: unknown }[] {
  const body = exchange.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body)) return [];
  if (exchange.status >= 400) return "timestamp" in body ? [{ pointer: "/timestamp", value: body.timestamp }] : [];
  if (exchange.status >= 300) return [];
  return (STAMPED[operationId] ?? []).filter((f) => f in body).map((f) => ({ pointer: `/${f}`, value: body[f] }));
}

/** `now`: the target's clock (ms) just after the exchange. Timestamps that do not parse are the schema's business. */
export function clockIssues(exchange: Exchange, operationId: string, now: number): Issue[] {
  return stampedTimes(exchange, operationId).flatMap(({ pointer, value }) => {
    const at = typeof value === "string" ? Date.parse(value) : NaN;
    if (Number.isNaN(at) || Math.abs(at - now) <= CLOCK_TOLERANCE_MS) return [];
    const off = Math.round((at - now) / 60_000);
    return [
      {
        pointer,
        expected: `within ${CLOCK_TOLERANCE_MS / 60_000} minutes of the target's clock, ${new Date(now).toISOString()}`,
        actual: preview(value),
        message: `a time stamped now is ${Math.abs(off)} minutes ${off > 0 ? "ahead" : "behind"} (section 1.3: UTC)`,
      },
    ];
  });
}

/** Section 2.2 and 7: the error body repeats the HTTP status, its status text and the request path. */
export function errorBodyIssues(exchange: Exchange): Issue[] {
  const body = exchange.json as Record<string, unknown>;
  const issues: Issue[] = [];
  if (body.status !== exchange.status) {
    issues.push({
      pointer: "/status",
      expected: String(exchange.status),
      actual: preview(body.status),
      message: "error body status must equal the HTTP status",
    });
  }
  if (typeof body.message === "string" && body.message.trim() === "") {
    issues.push({
      pointer: "/message",
      expected: "a detailed message",
      actual: '""',
      message: "message says what went wrong (2.2)",
    });
  }
  const text = STATUS_TEXT[exchange.status];
  if (text && body.error !== text) {
    issues.push({
      pointer: "/error",
      expected: JSON.stringify(text),
      actual: preview(body.error),
      message: "error must be the HTTP status text",
    });
  }
  // Section 1: paths are relative to {base_url}. Behind a prefix (https://host/api) a deployment may
  // name the full path (/api/v1/agents) or the path relative to the base URL (/v1/agents): both are right.
  const path = exchange.request.path;
  const base = exchange.request.basePath ?? "";
  const relative = base && path.startsWith(`${base}/`) ? path.slice(base.length) : path;
  const accepted = new Set([path, safeDecode(path), relative, safeDecode(relative)]);
  if (typeof body.path === "string" && !accepted.has(body.path) && !accepted.has(safeDecode(body.path))) {
    const expected =
      relative === path ? JSON.stringify(path) : `${JSON.stringify(path)} or ${JSON.stringify(relative)}`;
    issues.push({ pointer: "/path", expected, actual: preview(body.path), message: "path must be the request path" });
  }
  return issues;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The issues of one exchange at `level`, each with the level it rests on: at level assumed an issue
 * also found by the documented (relaxed) check is documented, any other one rests on an assumption.
 */
export function leveledIssues(exchange: Exchange, operationId: string, level: Level): (Issue & { level: Level })[] {
  const documented = conformanceIssues(exchange, operationId, "documented");
  if (level === "documented") return documented.map((i) => ({ ...i, level }));
  const documentedAt = new Set(documented.map((i) => i.pointer));
  return conformanceIssues(exchange, operationId, "assumed").map((i) => ({
    ...i,
    level: documentedAt.has(i.pointer) ? "documented" : "assumed",
  }));
}

/** Throws an Error listing every issue; for use in tests and scripts. */
export function expectConforms(exchange: Exchange, operationId: string, level: Level = "assumed"): void {
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
