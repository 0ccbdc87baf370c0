/**
 * What the human reports (console, HTML) share: failures grouped by cause, skipped rules grouped by
 * reason, counts per operation, and response-time percentiles. One module, so both say the same thing.
 */
import type { RuleResult, RunResult } from "../lib/runner.js";
import type { Failure } from "../lib/rule.js";
import type { Level } from "../lib/schemas.js";
import { operationsOfRun, type RulesKind } from "../generic/catalog.js";

/** `/data/3/createdAt` -> `/data/*\/createdAt`: the same check on another item is the same cause. */
export function pointerPattern(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, "/*");
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const REQUEST = /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S*/g;
const PREFIXED_ID = /\b[a-z]{2,12}_(?=[0-9a-z]*\d)[0-9a-z]{8,}\b/gi;
const PHONE = /(%2B|\+)\d{6,15}\b/g;
/** A whole number standing alone (not `E3`, not `1.3`). */
const NUMBER = /(?<![\w.])\d+(?![\w.])/g;
/** An HTTP status where a message names one (`must answer 404`, `refused with 415`, `403 or 404`): it stays, it is the point. */
const STATUS = /^[1-5]\d\d$/;
const STATUS_BEFORE = /\b(answer|answers|answered|with|or|status|code|not|a|an|its)\s$/i;
const STATUS_AFTER = /^\s(or|and|nor)\b/;

/**
 * A failure message with what varies between exchanges taken out: the request (`GET /v1/calls/…`),
 * ids, and counts. `page 2 of 1` and `page 4 of 1` are one cause; `must answer 404` and `must answer 401` are not.
 */
export function messagePattern(message: string): string {
  return message
    .replace(REQUEST, "<request>")
    .replace(UUID, "<id>")
    .replace(PREFIXED_ID, "<id>")
    .replace(PHONE, "<id>")
    .replace(NUMBER, (n, at: number, all: string) =>
      STATUS.test(n) &&
      (STATUS_BEFORE.test(all.slice(Math.max(0, at - 12), at)) || STATUS_AFTER.test(all.slice(at + n.length)))
        ? n
        : "<n>",
    );
}

export interface FailureGroup {
  /** Message pattern and pointer pattern. */
  key: string;
  /** `cause-1`, `cause-2`, ... in the order of the list (an HTML id). */
  anchor: string;
  /** `documented` when any finding of the group rests on the reference, else `assumed`. */
  level: Level;
  /** How many findings rest on each level. */
  levels: Record<Level, number>;
  /** The message when every finding says the same, else its pattern (`<n>`, `<id>`, `<request>` for what varies). */
  title: string;
  pointer: string;
  count: number;
  /** Rule ids, in run order. */
  rules: string[];
  operations: string[];
  /** One finding to show, one with a repro line when there is one. */
  example: Failure;
  findings: Failure[];
}

/** Findings that count against the run: failed rules not known by a baseline, and what crashed rules found before crashing. */
export function countingFailures(run: Pick<RunResult, "results">): Failure[] {
  return run.results
    .filter((r) => (r.outcome === "failed" && !r.known) || r.outcome === "errored")
    .flatMap((r) => r.failures);
}

export function groupFailures(failures: Failure[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const f of failures) {
    const pattern = messagePattern(f.message);
    const pointer = pointerPattern(f.pointer);
    const key = `${pattern}|${pointer}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        anchor: "",
        level: f.level,
        levels: { documented: 0, assumed: 0 },
        title: f.message,
        pointer,
        count: 0,
        rules: [],
        operations: [],
        example: f,
        findings: [],
      };
      groups.set(key, group);
    }
    group.count++;
    group.levels[f.level]++;
    if (f.level === "documented") group.level = "documented";
    group.findings.push(f);
    if (group.title !== f.message) group.title = pattern;
    if (!group.rules.includes(f.rule)) group.rules.push(f.rule);
    if (!group.operations.includes(f.operationId)) group.operations.push(f.operationId);
    if (!group.example.curl && f.curl) group.example = f;
  }
  const sorted = [...groups.values()].sort(
    (a, b) =>
      b.count - a.count ||
      b.rules.length - a.rules.length ||
      (a.level === b.level ? 0 : a.level === "documented" ? -1 : 1) ||
      a.title.localeCompare(b.title),
  );
  sorted.forEach((g, i) => (g.anchor = `cause-${i + 1}`));
  return sorted;
}

export interface SkipGroup {
  reason: string;
  rules: string[];
}

/** Rules of one outcome grouped by their reason, the largest group first. */
function groupByReason(results: RuleResult[], outcome: RuleResult["outcome"]): SkipGroup[] {
  const groups = new Map<string, string[]>();
  for (const r of results)
    if (r.outcome === outcome)
      groups.set(r.reason ?? "(no reason given)", [...(groups.get(r.reason ?? "(no reason given)") ?? []), r.id]);
  return [...groups]
    .map(([reason, rules]) => ({ reason, rules }))
    .sort((a, b) => b.rules.length - a.rules.length || a.reason.localeCompare(b.reason));
}

export function groupSkipped(results: RuleResult[]): SkipGroup[] {
  return groupByReason(results, "skipped");
}

/** Inconclusive rules (no real answer through the environment) by reason, the prefix every reason shares taken out. */
export function groupInconclusive(results: RuleResult[]): SkipGroup[] {
  return groupByReason(results, "inconclusive").map((g) => ({
    ...g,
    reason: g.reason.replace(INCONCLUSIVE_PREFIX, "") || g.reason,
  }));
}

/** What run-rule.ts puts before the reason of every inconclusive rule; the heading says it once. */
const INCONCLUSIVE_PREFIX = /^no real answer through the environment: /;

/**
 * The run's "not covered" list without the entries a skipped rule already says (`<rule>: <reason>`):
 * those are shown grouped by reason.
 */
export function notCoveredBeyondSkips(run: Pick<RunResult, "results" | "notCovered">): string[] {
  const said = new Set(run.results.filter((r) => r.outcome === "skipped").map((r) => `${r.id}: ${r.reason}`));
  return run.notCovered.filter((n) => !said.has(n));
}

export interface Counts {
  passed: number;
  failed: number;
  /** Failed rules a baseline knows; included in `failed`. */
  known: number;
  errored: number;
  skipped: number;
  /** No real answer came through the environment: neither passed nor failed, and not a finding. */
  inconclusive: number;
  total: number;
}

export function countOutcomes(results: RuleResult[]): Counts {
  const c: Counts = { passed: 0, failed: 0, known: 0, errored: 0, skipped: 0, inconclusive: 0, total: results.length };
  for (const r of results) {
    c[r.outcome]++;
    if (r.outcome === "failed" && r.known) c.known++;
  }
  return c;
}

export interface OperationRow {
  operationId: string;
  method?: string;
  path?: string;
  /** Whether the operation's rules are hand-written or generic (undefined: an operation the document lacks). */
  rulesKind?: RulesKind;
  counts: Counts;
  rules: RuleResult[];
}

/** Every operation of the run's document (in its order), then any other operation a rule named; with its rules' outcomes. */
export function operationRows(run: Pick<RunResult, "results" | "operations">): OperationRow[] {
  const catalog = new Map(operationsOfRun(run).map((op) => [op.operationId, op]));
  const byOp = new Map<string, RuleResult[]>();
  for (const id of catalog.keys()) byOp.set(id, []);
  for (const r of run.results) byOp.set(r.operationId, [...(byOp.get(r.operationId) ?? []), r]);
  return [...byOp].map(([operationId, rules]) => {
    const op = catalog.get(operationId);
    return {
      operationId,
      method: op?.method.toUpperCase(),
      path: op?.path,
      rulesKind: op?.rules,
      counts: countOutcomes(rules),
      rules,
    };
  });
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; undefined for none. */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}

export interface TimingRow {
  operationId: string;
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export function timingRows(run: Pick<RunResult, "timings">): TimingRow[] {
  return Object.entries(run.timings ?? {})
    .filter(([, times]) => times.length > 0)
    .map(([operationId, times]) => ({
      operationId,
      count: times.length,
      p50: percentile(times, 50)!,
      p95: percentile(times, 95)!,
      max: Math.max(...times),
    }))
    .sort((a, b) => a.operationId.localeCompare(b.operationId));
}

export interface VerdictOptions {
  /** `--fail-on-inconclusive`: a rule the environment kept from an answer fails the run too. */
  failOnInconclusive?: boolean;
}

/**
 * True when the run fails: a rule crashed, or failed without a baseline knowing it; an inconclusive
 * rule only with `failOnInconclusive`.
 */
export function runFails(run: Pick<RunResult, "results">, options: VerdictOptions = {}): boolean {
  return run.results.some(
    (r) =>
      r.outcome === "errored" ||
      (r.outcome === "failed" && !r.known) ||
      (r.outcome === "inconclusive" && options.failOnInconclusive === true),
  );
}

type LedgerEntry = RunResult["ledger"][number];

/**
 * The ledger, loudest first: changes that could not be put back, writes whose answer the environment
 * swallowed (the target may or may not keep them), changes caught halfway, then what was left, removed, restored.
 */
const LEDGER_ORDER: Record<LedgerEntry["state"], number> = {
  "not-restored": 0,
  "maybe-left": 1,
  "maybe-removed": 2,
  changing: 3,
  left: 4,
  removed: 5,
  restored: 6,
};

export function sortLedger(ledger: LedgerEntry[]): LedgerEntry[] {
  return [...ledger].sort((a, b) => (LEDGER_ORDER[a.state] ?? 7) - (LEDGER_ORDER[b.state] ?? 7));
}

/** Entries a person must look at: not put back, or not known whether the target keeps them. */
export function ledgerAlarms(ledger: LedgerEntry[]): { notRestored: number; uncertain: number } {
  return {
    notRestored: ledger.filter((e) => e.state === "not-restored").length,
    uncertain: ledger.filter((e) => e.state === "maybe-left" || e.state === "maybe-removed" || e.state === "changing")
      .length,
  };
}

/** `documented`, `assumed`, or `documented 49, assumed 39` for a group mixing both. */
export function levelLabel(g: Pick<FailureGroup, "levels">): string {
  const { documented, assumed } = g.levels;
  return documented > 0 && assumed > 0
    ? `documented ${documented}, assumed ${assumed}`
    : documented > 0
      ? "documented"
      : "assumed";
}

/** First line of a crash's stack, and the first frame when there is one. */
export function crashLines(error: string | undefined): string[] {
  const lines = (error ?? "(no stack)")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const frame = lines.find((l) => l.startsWith("at "));
  return frame ? [lines[0], frame] : [lines[0] ?? "(no stack)"];
}
