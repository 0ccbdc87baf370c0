/**
 * The human report on a terminal: no line per passing rule. What failed, grouped by cause (each cause
 * once, with an example and one repro line), crashes, known failures, skips by reason, the ledger, what
 * was not covered, a table by operation, and the summary line last.
 */
import type { RunResult } from "../lib/runner.js";
import { coverageRows, describeCell } from "./coverage.js";
import { countingFailures, countOutcomes, crashLines, groupFailures, groupSkipped, levelLabel, notCoveredBeyondSkips, operationRows } from "./group.js";

/** At most this many rule ids on one line; the rest are counted. */
const RULES_SHOWN = 4;
/** Expected/actual values are cut here on a terminal (the HTML and JSON reports have them whole). Repro lines never are. */
const VALUE_MAX = 300;

const cut = (s: string, max = VALUE_MAX) => (s.length > max ? `${s.slice(0, max)}... (${s.length - max} more characters)` : s);
const list = (ids: string[], shown = RULES_SHOWN) => `${ids.slice(0, shown).join(", ")}${ids.length > shown ? `, ... (+${ids.length - shown} more)` : ""}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function summaryLine(run: RunResult): string {
  const c = countOutcomes(run.results);
  return `${c.passed} passed, ${c.failed} failed (${c.known} known), ${c.errored} errored, ${c.skipped} skipped in ${(run.durationMs / 1000).toFixed(1)} s`;
}

export function consoleReport(run: RunResult): string {
  const lines: string[] = [];
  const c = countOutcomes(run.results);
  const kind = run.target?.kind ?? (run.isMock ? "mock" : "foreign");
  lines.push(`Conformance of ${run.baseUrl}`);
  lines.push(`  Target: ${kind === "mock" ? "the kit's mock" : "a foreign deployment"} (${run.target?.reason ?? "no reason recorded"})`);
  lines.push(`  Level:  ${run.level}${run.readOnly ? ", read-only (only GET requests)" : ""}`);
  lines.push(`  Run:    ${run.runId}, started ${run.startedAt}, ${plural(c.total, "rule")}`);

  const groups = groupFailures(countingFailures(run));
  if (groups.length > 0) {
    const rules = new Set(groups.flatMap((g) => g.rules));
    lines.push("", `Failures by cause: ${plural(groups.length, "cause")}, ${plural(groups.reduce((s, g) => s + g.count, 0), "finding")} in ${plural(rules.size, "rule")} (most frequent first; each with one example):`);
    groups.forEach((g, i) => {
      const single = g.rules.length === 1 ? ` (${g.rules[0]})` : "";
      lines.push(`${String(i + 1).padStart(3)}. ${g.count}x [${levelLabel(g)}] at ${g.pointer || "(body)"}: ${g.title}${single}`);
      if (!single) lines.push(`     ${g.rules.length} rules: ${list(g.rules)}`);
      if (g.title !== g.example.message) lines.push(`     e.g. ${g.example.message}`);
      const { expected, actual } = g.example;
      if (expected.length + actual.length <= 90 && !/\n/.test(expected + actual)) lines.push(`     expected ${expected}, actual ${actual}`);
      else lines.push(`     expected ${cut(expected)}`, `     actual   ${cut(actual)}`);
      if (g.example.curl) lines.push(`     repro: ${g.example.curl}`);
    });
  }

  const crashed = run.results.filter((r) => r.outcome === "errored");
  if (crashed.length > 0) {
    lines.push("", `Crashed rules (the rule could not finish; fix the rule or the answer it could not read): ${crashed.length}`);
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
      lines.push(`  ${r.id}: ${plural(r.failures.length, "finding")} at ${list(pointers, 4)}: ${cut(r.failures[0]?.message ?? "", 120)}`);
    }
  }
  if (run.staleBaseline && run.staleBaseline.length > 0) {
    lines.push("", `Stale baseline entries (they no longer fail: remove them from the baseline): ${run.staleBaseline.length}`);
    for (const s of run.staleBaseline) lines.push(`  ${s}`);
  }

  const skipped = groupSkipped(run.results);
  if (skipped.length > 0) {
    lines.push("", `Skipped: ${plural(c.skipped, "rule")}, by reason:`);
    for (const s of skipped) lines.push(`  ${String(s.rules.length).padStart(3)}  ${s.reason}: ${list(s.rules, 4)}`);
  }

  if (run.ledger.length > 0) {
    const order = { "not-restored": 0, left: 1, removed: 2, restored: 3 } as const;
    const notRestored = run.ledger.filter((e) => e.state === "not-restored").length;
    lines.push("", `Ledger (what the run did to the target that outlives it):`);
    if (notRestored > 0) lines.push(`  !!! ${plural(notRestored, "change")} could NOT be put back: the target keeps ${notRestored === 1 ? "it" : "them"}; fix by hand !!!`);
    for (const e of [...run.ledger].sort((a, b) => order[a.state] - order[b.state])) {
      lines.push(`  ${e.state === "not-restored" ? "NOT RESTORED" : e.state.padEnd(12)} ${e.kind} ${e.id}: ${e.note}`);
    }
  }

  const notCovered = notCoveredBeyondSkips(run);
  if (notCovered.length > 0) {
    lines.push("", "Not covered:");
    for (const n of notCovered) lines.push(`  ${n}`);
  }

  lines.push("", "By operation (statuses seen: * documented and exercised, . documented not exercised, ! undocumented status seen):");
  const cells = new Map(coverageRows(run).map((r) => [r.operationId, r.statuses.map(describeCell).join(" ")]));
  const rows = operationRows(run).map((r) => [r.operationId, String(r.counts.passed), r.counts.known > 0 ? `${r.counts.failed} (${r.counts.known}k)` : String(r.counts.failed), String(r.counts.errored), String(r.counts.skipped), cells.get(r.operationId) ?? ""]);
  const header = ["operation", "passed", "failed", "errored", "skipped", "statuses seen"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => `  ${r.map((v, i) => (i === 0 || i === r.length - 1 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ")}`.trimEnd();
  lines.push(fmt(header), fmt(widths.map((w) => "-".repeat(w))), ...rows.map(fmt));

  lines.push("", summaryLine(run));
  return lines.join("\n");
}
