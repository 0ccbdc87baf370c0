/**
 * The human report on a terminal: no line per passing rule. An interrupted run says so first; then what
 * failed, grouped by cause (each cause once, with an example and one repro line), crashes, known failures,
 * skips by reason, inconclusive rules by reason, the ledger (and its file), what was not covered, the
 * environment (rate limits, waits, retries, latency) and its one-line summary, a table by operation, and
 * the summary line last.
 */
import type { RunResult } from "../lib/runner.js";
import { coverageRows, describeCell } from "./coverage.js";
import { environmentRows } from "./environment.js";
import {
  countingFailures,
  countOutcomes,
  crashLines,
  groupFailures,
  groupInconclusive,
  groupSkipped,
  ledgerAlarms,
  levelLabel,
  notCoveredBeyondSkips,
  operationRows,
  sortLedger,
} from "./group.js";

/** At most this many rule ids on one line; the rest are counted. */
const RULES_SHOWN = 4;
/** Expected/actual values are cut here on a terminal (the HTML and JSON reports have them whole). Repro lines never are. */
const VALUE_MAX = 300;

const cut = (s: string, max = VALUE_MAX) =>
  s.length > max ? `${s.slice(0, max)}... (${s.length - max} more characters)` : s;
const list = (ids: string[], shown = RULES_SHOWN) =>
  `${ids.slice(0, shown).join(", ")}${ids.length > shown ? `, ... (+${ids.length - shown} more)` : ""}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** Ledger states a person must act on, in capitals; the others as they are. */
const LOUD: Partial<Record<RunResult["ledger"][number]["state"], string>> = {
  "not-restored": "NOT RESTORED",
  "maybe-left": "MAYBE LEFT",
  "maybe-removed": "MAYBE REMOVED",
  changing: "CHANGING",
};

/** `40 passed, 0 failed (0 known), 0 errored, 2 inconclusive, 12 skipped in 3.1 s`; `N inconclusive` only when there are any. */
export function summaryLine(run: RunResult): string {
  const c = countOutcomes(run.results);
  return `${c.passed} passed, ${c.failed} failed (${c.known} known), ${c.errored} errored, ${c.inconclusive > 0 ? `${c.inconclusive} inconclusive, ` : ""}${c.skipped} skipped in ${(run.durationMs / 1000).toFixed(1)} s`;
}

export function consoleReport(run: RunResult): string {
  const lines: string[] = [];
  const c = countOutcomes(run.results);
  const kind = run.target?.kind ?? (run.isMock ? "mock" : "foreign");
  lines.push(`Conformance of ${run.baseUrl}`);
  lines.push(
    `  Target: ${kind === "mock" ? "the kit's mock" : "a foreign deployment"} (${run.target?.reason ?? "no reason recorded"})`,
  );
  lines.push(`  Level:  ${run.level}${run.readOnly ? ", read-only (only GET requests)" : ""}`);
  if (run.document && !run.document.handWritten) lines.push(`  Spec:   ${run.document.source} (generic rules only)`);
  lines.push(`  Run:    ${run.runId}, started ${run.startedAt}, ${plural(c.total, "rule")}`);
  if (run.interrupted) {
    lines.push(
      "",
      `!!! INTERRUPTED (${run.interrupted}): the run stopped before its last rule; ${plural(c.total, "rule")} reported, the rest did not run !!!`,
    );
  }

  const groups = groupFailures(countingFailures(run));
  if (groups.length > 0) {
    const rules = new Set(groups.flatMap((g) => g.rules));
    lines.push(
      "",
      `Failures by cause: ${plural(groups.length, "cause")}, ${plural(
        groups.reduce((s, g) => s + g.count, 0),
        "finding",
      )} in ${plural(rules.size, "rule")} (most frequent first; each with one example):`,
    );
    groups.forEach((g, i) => {
      const single = g.rules.length === 1 ? ` (${g.rules[0]})` : "";
      lines.push(
        `${String(i + 1).padStart(3)}. ${g.count}x [${levelLabel(g)}] at ${g.pointer || "(body)"}: ${g.title}${single}`,
      );
      if (!single) lines.push(`     ${g.rules.length} rules: ${list(g.rules)}`);
      if (g.title !== g.example.message) lines.push(`     e.g. ${g.example.message}`);
      const { expected, actual } = g.example;
      if (expected.length + actual.length <= 90 && !/\n/.test(expected + actual))
        lines.push(`     expected ${expected}, actual ${actual}`);
      else lines.push(`     expected ${cut(expected)}`, `     actual   ${cut(actual)}`);
      if (g.example.curl) lines.push(`     repro: ${g.example.curl}`);
    });
  }

  const crashed = run.results.filter((r) => r.outcome === "errored");
  if (crashed.length > 0) {
    lines.push(
      "",
      `Crashed rules (the rule could not finish; fix the rule or the answer it could not read): ${crashed.length}`,
    );
    for (const r of crashed) {
      const [first, frame] = crashLines(r.error);
      lines.push(`  ${r.id}: ${first}${frame ? `  (${frame})` : ""}`);
    }
  }

  const known = run.results.filter((r) => r.outcome === "failed" && r.known);
  if (known.length > 0) {
    lines.push("", `Known failures (baseline; they do not fail the run): ${known.length}`);
    for (const r of known) {
      const pointers = [...new Set(r.failures.map((f) => f.pointer || "(body)"))];
      lines.push(
        `  ${r.id}: ${plural(r.failures.length, "finding")} at ${list(pointers, 4)}: ${cut(r.failures[0]?.message ?? "", 120)}`,
      );
    }
  }
  if (run.staleBaseline && run.staleBaseline.length > 0) {
    lines.push(
      "",
      `Stale baseline entries (they no longer fail: remove them from the baseline): ${run.staleBaseline.length}`,
    );
    for (const s of run.staleBaseline) lines.push(`  ${s}`);
  }

  const skipped = groupSkipped(run.results);
  if (skipped.length > 0) {
    lines.push("", `Skipped: ${plural(c.skipped, "rule")}, by reason:`);
    for (const s of skipped) lines.push(`  ${String(s.rules.length).padStart(3)}  ${s.reason}: ${list(s.rules, 4)}`);
  }

  const inconclusive = groupInconclusive(run.results);
  if (inconclusive.length > 0) {
    lines.push(
      "",
      `Inconclusive: ${plural(c.inconclusive, "rule")} got no real answer through the environment after retries (neither passed nor failed), by reason:`,
    );
    for (const s of inconclusive)
      lines.push(`  ${String(s.rules.length).padStart(3)}  ${s.reason}: ${list(s.rules, 4)}`);
  }

  if (run.ledger.length > 0 || run.ledgerFile) {
    const { notRestored, uncertain } = ledgerAlarms(run.ledger);
    lines.push("", `Ledger (what the run did to the target that outlives it):`);
    if (run.ledgerFile)
      lines.push(
        `  File: ${run.ledgerFile} (agent-platform-conformance cleanup --ledger ${run.ledgerFile} undoes what is left)`,
      );
    if (notRestored > 0)
      lines.push(
        `  !!! ${plural(notRestored, "change")} could NOT be put back: the target keeps ${notRestored === 1 ? "it" : "them"}; fix by hand !!!`,
      );
    if (uncertain > 0)
      lines.push(
        `  !!! ${plural(uncertain, "write")} the run could not confirm (the environment swallowed the answer): the target MAY keep ${uncertain === 1 ? "it" : "them"}; check by hand !!!`,
      );
    if (run.ledger.length === 0) lines.push("  nothing: the run left nothing on the target");
    for (const e of sortLedger(run.ledger))
      lines.push(`  ${(LOUD[e.state] ?? e.state).padEnd(12)} ${e.kind} ${e.id}: ${e.note}`);
  }

  const notCovered = notCoveredBeyondSkips(run);
  if (notCovered.length > 0) {
    lines.push("", "Not covered:");
    for (const n of notCovered) lines.push(`  ${n}`);
  }

  if (run.environment) {
    lines.push("", "Environment (what stood between the suite and the API):");
    const rows = environmentRows(run.environment);
    const width = Math.max(...rows.map(([label]) => label.length));
    for (const [label, value] of rows) lines.push(`  ${label.padEnd(width)}  ${value}`);
    lines.push("", `Environment: ${run.environment.summary}`);
  }

  // The inconclusive column only when a rule was: a run that met no trouble reads as before.
  const withInconclusive = c.inconclusive > 0;
  // Where every operation has hand-written rules one line says so; else a column says it per operation.
  const operations = operationRows(run);
  const allHandWritten = operations.every((r) => r.rulesKind !== "generic");
  lines.push(
    "",
    "By operation (statuses seen: * documented and exercised, . documented not exercised, ! undocumented status seen):",
  );
  if (allHandWritten) lines.push("  rules: hand-written for every operation (none generic)");
  const cells = new Map(coverageRows(run).map((r) => [r.operationId, r.statuses.map(describeCell).join(" ")]));
  const rows = operations.map((r) => [
    r.operationId,
    ...(allHandWritten ? [] : [r.rulesKind ?? ""]),
    String(r.counts.passed),
    r.counts.known > 0 ? `${r.counts.failed} (${r.counts.known}k)` : String(r.counts.failed),
    String(r.counts.errored),
    ...(withInconclusive ? [String(r.counts.inconclusive)] : []),
    String(r.counts.skipped),
    cells.get(r.operationId) ?? "",
  ]);
  const header = [
    "operation",
    ...(allHandWritten ? [] : ["rules"]),
    "passed",
    "failed",
    "errored",
    ...(withInconclusive ? ["inconclusive"] : []),
    "skipped",
    "statuses seen",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const textColumns = allHandWritten ? 1 : 2;
  const fmt = (r: string[]) =>
    `  ${r.map((v, i) => (i < textColumns || i === r.length - 1 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ")}`.trimEnd();
  lines.push(fmt(header), fmt(widths.map((w) => "-".repeat(w))), ...rows.map(fmt));

  lines.push("", summaryLine(run));
  return lines.join("\n");
}
