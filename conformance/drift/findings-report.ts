/**
 * Drift findings in the suite's report model, so the suite's own writers (report/junit.ts, html.ts,
 * json.ts) write them: each kind of finding, (operationId, rule, where), is one rule result with one
 * failure per finding (message, pointer, the value there, the exchange as a curl line and a summary of
 * the answer). A kind that counts under --fail-on is `failed`; one that does not (an assumed finding at
 * `documented`, a request finding without --include-requests) is `skipped` with the reason and its first
 * finding, so the reports' verdict is the command's exit code. The console summary is one line per kind.
 */
import type { Failure } from "../lib/rule.js";
import type { RuleResult, RunResult } from "../lib/runner.js";
import { curlLine, type Exchange } from "../lib/http.js";
import type { Level } from "../lib/schemas.js";
import { resolvePointer, type Json } from "../lib/spec.js";
import { jsonReport } from "../report/json.js";
import { isCounted, type DriftFinding, type FailOn, type Where } from "./finding.js";

/** Failures listed per kind at most; the count and the JSON report's `findings` hold them all. */
export const MAX_FAILURES_PER_KIND = 50;

export interface FindingKind {
  /** `<operationId>.<where>.<rule>`: the rule id the reports name. */
  id: string;
  operationId: string;
  rule: string;
  where: Where;
  /** `documented` when any finding of the kind is. */
  level: Level;
  levels: Record<Level, number>;
  findings: DriftFinding[];
  /** How many findings count under --fail-on. */
  counted: number;
}

/** Findings by (operationId, rule, where), ordered by operation, response before request, then rule. */
export function findingKinds(findings: DriftFinding[], failOn: FailOn): FindingKind[] {
  const kinds = new Map<string, FindingKind>();
  for (const f of findings) {
    const id = `${f.operationId}.${f.where}.${f.rule}`;
    let kind = kinds.get(id);
    if (!kind) {
      kind = {
        id,
        operationId: f.operationId,
        rule: f.rule,
        where: f.where,
        level: f.level,
        levels: { documented: 0, assumed: 0 },
        findings: [],
        counted: 0,
      };
      kinds.set(id, kind);
    }
    kind.findings.push(f);
    kind.levels[f.level]++;
    if (f.level === "documented") kind.level = "documented";
    if (isCounted(f, failOn)) kind.counted++;
  }
  // Counted findings first, so the first one a report shows is one that fails the run.
  for (const kind of kinds.values())
    kind.findings.sort((a, b) => Number(isCounted(b, failOn)) - Number(isCounted(a, failOn)));
  return [...kinds.values()].sort(
    (a, b) =>
      a.operationId.localeCompare(b.operationId) ||
      (a.where === b.where ? 0 : a.where === "response" ? -1 : 1) ||
      a.rule.localeCompare(b.rule),
  );
}

/** `documented`, `assumed`, or `documented 2, assumed 1`. */
export function levelMark(kind: Pick<FindingKind, "levels">): string {
  const { documented, assumed } = kind.levels;
  return documented > 0 && assumed > 0
    ? `documented ${documented}, assumed ${assumed}`
    : documented > 0
      ? "documented"
      : "assumed";
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

function text(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Headers a repro line does without: the transport's own, and the client's name (curl sends its own). */
const TRANSPORT_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "accept-encoding",
  "te",
  "upgrade",
  "user-agent",
]);

/** The finding's exchange in the suite's Exchange shape, for its curl line (the key read from $API_KEY). */
function asExchange(f: DriftFinding, baseUrl: string): Exchange | undefined {
  const x = f.exchange;
  if (!x) return undefined;
  let url: URL;
  try {
    url = new URL(x.request.url, `${baseUrl}/`);
  } catch {
    return undefined;
  }
  const headers = Object.fromEntries(Object.entries(x.request.headers).filter(([n]) => !TRANSPORT_HEADERS.has(n)));
  const responseText = text(x.response?.body);
  let responseHeaders: Headers;
  try {
    responseHeaders = new Headers(Object.entries(x.response?.headers ?? {}));
  } catch {
    // A value Headers refuses (not a byte string): the curl line needs none of them.
    responseHeaders = new Headers();
  }
  return {
    request: {
      method: x.request.method,
      url: url.toString(),
      path: url.pathname,
      basePath: "",
      headers,
      bodyText: x.request.body === undefined ? undefined : text(x.request.body),
    },
    status: x.response?.status ?? 0,
    headers: responseHeaders,
    text: responseText,
    json: x.response?.body,
    durationMs: 0,
  };
}

/** What the exchange holds at the finding's pointer: the status, a header, a query parameter, or a value of the body. */
function valueAt(f: DriftFinding): string | undefined {
  const x = f.exchange;
  if (!x) return undefined;
  const side = f.where === "request" ? x.request : x.response;
  if (f.path === "#status") return x.response ? String(x.response.status) : undefined;
  const header = /^#header\/(.+)$/.exec(f.path);
  if (header) {
    const value = side?.headers[header[1].toLowerCase()];
    return value === undefined ? "(no such header)" : value;
  }
  const query = /^\/query\/(.+)$/.exec(f.path);
  if (f.where === "request" && query) {
    try {
      const values = new URL(x.request.url, "http://mock").searchParams.getAll(
        query[1].replace(/~1/g, "/").replace(/~0/g, "~"),
      );
      return values.length === 0 ? "(absent)" : values.join(", ");
    } catch {
      return undefined;
    }
  }
  if (f.where === "request" && f.path.startsWith("/path/")) return undefined;
  if (!side || !("body" in side)) return undefined;
  if (f.path === "" || f.path === "/") return clip(text(side.body), 300);
  if (!f.path.startsWith("/")) return undefined;
  const value = resolvePointer(side.body as Json, f.path);
  return value === undefined ? "(absent)" : clip(text(value), 300);
}

/** `GET /v1/calls?x=1 -> 200 application/json {"data":...}`: one exchange in one line. */
export function exchangeSummary(f: DriftFinding): string {
  const x = f.exchange;
  if (!x) return "(no exchange recorded)";
  const response = x.response
    ? `${x.response.status} ${x.response.headers["content-type"] ?? "(no content-type)"}${
        x.response.body === undefined ? "" : ` ${clip(oneLine(text(x.response.body)), 200)}`
      }`
    : "(no answer)";
  const request = `${x.request.method} ${x.request.url}${
    x.request.body === undefined ? "" : ` ${clip(oneLine(text(x.request.body)), 200)}`
  }`;
  return `${request} -> ${response}`;
}

function failureOf(f: DriftFinding, kind: FindingKind, baseUrl: string): Failure {
  const exchange = asExchange(f, baseUrl);
  const value = valueAt(f);
  return {
    rule: kind.id,
    operationId: f.operationId,
    level: f.level,
    pointer: f.path,
    expected:
      f.level === "documented"
        ? `what the spec documents (drift rule ${f.rule})`
        : `what the kit assumes, an x-assumption (drift rule ${f.rule})`,
    actual: [
      ...(value === undefined ? [] : [`${f.where} at ${f.path || "(body)"}: ${value}`]),
      `exchange: ${exchangeSummary(f)}`,
      `finding ${f.id} at ${f.at || "(no time)"}${f.workspaceId ? `, workspace ${f.workspaceId}` : ""}`,
    ].join("; "),
    message: f.message,
    ...(exchange ? { curl: curlLine(exchange) } : {}),
  };
}

/** Why a kind that holds findings does not fail the run. */
function notCountedReason(kind: FindingKind, failOn: FailOn): string {
  if (kind.where === "request" && !failOn.includeRequests) return "a request finding (--include-requests counts it)";
  return "assumed (--fail-on assumed counts it)";
}

function ruleResultOf(kind: FindingKind, failOn: FailOn, baseUrl: string): RuleResult {
  const n = kind.findings.length;
  const shown = kind.findings.slice(0, MAX_FAILURES_PER_KIND);
  const first = kind.findings[0];
  const side = kind.where === "response" ? "the upstream's answers to" : "what clients sent, through the door, to";
  const description = `Drift in ${side} ${kind.operationId} (rule ${kind.rule}): ${n} finding${n === 1 ? "" : "s"} (${levelMark(
    kind,
  )})${n > shown.length ? `, the first ${shown.length} listed` : ""}`;
  const base = {
    id: kind.id,
    group: `${kind.where}-drift`,
    operationId: kind.operationId,
    level: kind.level,
    readOnly: true,
    description,
    failures: shown.map((f) => failureOf(f, kind, baseUrl)),
    durationMs: 0,
  };
  if (kind.counted > 0) return { ...base, outcome: "failed" };
  return {
    ...base,
    outcome: "skipped",
    reason: `not counted, ${notCountedReason(kind, failOn)}: ${n} finding${n === 1 ? "" : "s"}, e.g. [${first.level}] ${first.message} at ${first.path || "(body)"}`,
  };
}

/** Statuses the upstream answered in the exchanges that drifted (each exchange once): the reports' coverage table. */
function statusesSeen(findings: DriftFinding[]): RunResult["coverage"] {
  const seen = new Set<string>();
  const coverage: RunResult["coverage"] = {};
  for (const f of findings) {
    const x = f.exchange;
    if (!x?.response) continue;
    const key = `${f.operationId} ${f.at} ${x.request.method} ${x.request.url} ${x.response.status}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const byStatus = (coverage[f.operationId] ??= {});
    byStatus[String(x.response.status)] = (byStatus[String(x.response.status)] ?? 0) + 1;
  }
  return coverage;
}

export interface DriftRun {
  /** The mock's base URL. */
  baseUrl: string;
  failOn: FailOn;
  findings: DriftFinding[];
  /** The answer's items as the mock served them, for the JSON report (default: `findings`). */
  served?: unknown[];
  startedAt: string;
  durationMs: number;
}

/** The findings as a run of the suite: what report/junit.ts, html.ts and json.ts take. */
export function driftRunResult(drift: DriftRun): RunResult {
  const kinds = findingKinds(drift.findings, drift.failOn);
  const run: Omit<RunResult, "environment"> = {
    baseUrl: drift.baseUrl,
    level: drift.failOn.level,
    isMock: true,
    target: {
      kind: "mock",
      reason: `drift findings of the mock's upstream door (GET /__mock/drift); counted: ${
        drift.failOn.includeRequests ? "response and request" : "response"
      } findings at level ${drift.failOn.level}`,
    },
    readOnly: true,
    runId: `drift-${drift.startedAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`,
    startedAt: drift.startedAt,
    durationMs: drift.durationMs,
    results: kinds.map((k) => ruleResultOf(k, drift.failOn, drift.baseUrl)),
    coverage: statusesSeen(drift.findings),
    timings: {},
    ledger: [],
    notCovered: [],
  };
  // No environment stood between this command and the mock: the writers show none (JSON: null).
  return run as RunResult;
}

/**
 * The suite's JSON report of the run, with the drift's own: `drift` (url, failOn, includeRequests, how
 * many findings count, the kinds) and every finding as the mock served it.
 */
export function driftJsonReport(drift: DriftRun, run: RunResult = driftRunResult(drift)): string {
  const report = JSON.parse(jsonReport(run)) as Record<string, unknown>;
  const kinds = findingKinds(drift.findings, drift.failOn);
  report.drift = {
    url: drift.baseUrl,
    failOn: drift.failOn.level,
    includeRequests: drift.failOn.includeRequests,
    findings: drift.findings.length,
    counted: kinds.reduce((s, k) => s + k.counted, 0),
    kinds: kinds.map((k) => ({
      id: k.id,
      operationId: k.operationId,
      rule: k.rule,
      where: k.where,
      level: k.level,
      levels: k.levels,
      count: k.findings.length,
      counted: k.counted,
      example: k.findings[0].message,
    })),
  };
  report.findings = drift.served ?? drift.findings;
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** The console: one line per kind, grouped by operation, counted kinds marked ✗, the others ·; then the verdict. */
export function driftConsoleReport(drift: DriftRun): string {
  const kinds = findingKinds(drift.findings, drift.failOn);
  const counted = kinds.reduce((s, k) => s + k.counted, 0);
  const what = `${drift.failOn.includeRequests ? "response and request" : "response"} findings at level ${drift.failOn.level}${
    drift.failOn.level === "assumed" ? " (documented and assumed)" : ""
  }`;
  const lines = [
    `Drift findings of ${drift.baseUrl} (GET /__mock/drift): ${drift.findings.length} finding${
      drift.findings.length === 1 ? "" : "s"
    } of ${kinds.length} kind${kinds.length === 1 ? "" : "s"}; counting ${what}`,
  ];
  const label = (k: FindingKind) => `${k.where} ${k.rule} [${levelMark(k)}]`;
  const width = Math.max(0, ...kinds.map((k) => label(k).length));
  const countWidth = Math.max(0, ...kinds.map((k) => String(k.findings.length).length));
  let operation: string | undefined;
  for (const k of kinds) {
    if (k.operationId !== operation) lines.push(`  ${(operation = k.operationId)}`);
    const first = k.findings[0];
    const note =
      k.counted === 0
        ? `  (not counted: ${notCountedReason(k, drift.failOn)})`
        : k.counted < k.findings.length
          ? `  (${k.counted} counted)`
          : "";
    lines.push(
      `    ${k.counted > 0 ? "✗" : "·"} ${label(k).padEnd(width)}  ${String(k.findings.length).padStart(countWidth)}×  e.g. ${clip(
        oneLine(first.message),
        160,
      )}${first.path ? ` at ${first.path}` : ""}${note}`,
    );
  }
  if (drift.findings.length === 0)
    lines.push("  none (the list is empty when the mock runs without --upstream, and after POST /__mock/reset)");
  const failing = kinds.filter((k) => k.counted > 0).length;
  lines.push(
    counted > 0
      ? `FAIL: ${counted} finding${counted === 1 ? "" : "s"} of ${failing} kind${failing === 1 ? "" : "s"} count (${what})`
      : `PASS: no ${what}${drift.findings.length > 0 ? `; ${drift.findings.length} other finding${drift.findings.length === 1 ? "" : "s"} reported, not counted` : ""}`,
  );
  return lines.join("\n");
}
