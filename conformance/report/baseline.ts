/**
 * Known failures: a deployment that is known to break some rules (a ticket is open) can still gate CI on
 * everything else. A baseline names rules (and optionally pointers); a failed rule whose every finding a
 * baseline entry covers is `known`: reported, not failing the run. Entries that no longer match a
 * failure are reported as stale, so the baseline shrinks as the deployment is fixed.
 */
import { readFileSync } from "node:fs";
import type { RunResult } from "../lib/runner.js";
import type { Failure } from "../lib/rule.js";
import { pointerPattern } from "./group.js";

export interface BaselineEntry {
  rule: string;
  /** Only findings at this pointer (array indexes match any index: `/data/3/x` = `/data/*\/x`). Absent: any finding of the rule. */
  pointer?: string;
  note?: string;
}

export interface Baseline {
  file: string;
  entries: BaselineEntry[];
}

/**
 * Reads `{"knownFailures":[{"rule":"listCalls.walk","pointer":"/totalCount","note":"TICKET-12"}]}`, or
 * the suite's own `--json` report (every failed rule of it, with its pointers). Throws an Error with a
 * one-line message naming the file and what is wrong.
 */
export function loadBaseline(file: string): Baseline {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      `baseline ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory, not a file" : `cannot be read (${(error as Error).message})`}`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`baseline ${file}: not JSON (${(error as Error).message.split("\n")[0]})`);
  }
  const shape = `expected {"knownFailures":[{"rule":"<rule id>","pointer":"/optional","note":"optional"}]} or a --json report of the suite`;
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw new Error(`baseline ${file}: ${shape}, found ${Array.isArray(doc) ? "an array" : JSON.stringify(doc)}`);
  const o = doc as Record<string, unknown>;
  if ("knownFailures" in o) {
    if (!Array.isArray(o.knownFailures))
      throw new Error(`baseline ${file}: knownFailures must be an array, found ${typeof o.knownFailures}`);
    const entries = o.knownFailures.map((raw, i): BaselineEntry => {
      const where = `baseline ${file}: knownFailures[${i}]`;
      if (!raw || typeof raw !== "object" || Array.isArray(raw))
        throw new Error(`${where} must be an object like {"rule":"listCalls.walk"}`);
      const e = raw as Record<string, unknown>;
      if (typeof e.rule !== "string" || e.rule.trim() === "")
        throw new Error(`${where}.rule must be a rule id (a non-empty string)`);
      if (e.pointer !== undefined && typeof e.pointer !== "string")
        throw new Error(`${where}.pointer must be a string (a JSON pointer, "" for the whole body)`);
      if (e.note !== undefined && typeof e.note !== "string") throw new Error(`${where}.note must be a string`);
      const unknown = Object.keys(e).filter((k) => !["rule", "pointer", "note"].includes(k));
      if (unknown.length > 0)
        throw new Error(`${where} has unknown field ${unknown[0]} (rule, pointer and note are allowed)`);
      return {
        rule: e.rule,
        ...(e.pointer !== undefined ? { pointer: e.pointer as string } : {}),
        ...(e.note !== undefined ? { note: e.note as string } : {}),
      };
    });
    return { file, entries };
  }
  if (Array.isArray(o.results) && typeof o.runId === "string") {
    const entries: BaselineEntry[] = [];
    const seen = new Set<string>();
    o.results.forEach((raw, i) => {
      const r = raw as Record<string, unknown> | null;
      if (!r || typeof r.id !== "string" || typeof r.outcome !== "string" || !Array.isArray(r.failures))
        throw new Error(
          `baseline ${file}: results[${i}] is not a rule result of a --json report (id, outcome, failures)`,
        );
      if (r.outcome !== "failed") return;
      for (const f of r.failures as Partial<Failure>[]) {
        const pointer = pointerPattern(typeof f?.pointer === "string" ? f.pointer : "");
        const key = `${r.id}\u0000${pointer}`;
        if (seen.has(key)) continue;
        seen.add(key);
        entries.push({
          rule: r.id,
          pointer,
          note: `from run ${o.runId}: ${typeof f?.message === "string" ? f.message : ""}`,
        });
      }
    });
    return { file, entries };
  }
  throw new Error(
    `baseline ${file}: ${shape}; it has neither knownFailures nor results (keys: ${Object.keys(o).slice(0, 6).join(", ") || "none"})`,
  );
}

function matches(entry: BaselineEntry, failure: Failure): boolean {
  return (
    entry.rule === failure.rule &&
    (entry.pointer === undefined || pointerPattern(entry.pointer) === pointerPattern(failure.pointer))
  );
}

export function describeEntry(entry: BaselineEntry): string {
  return `${entry.rule}${entry.pointer === undefined ? "" : ` ${entry.pointer || "(body)"}`}`;
}

/**
 * Marks failed rules whose every finding a baseline entry covers as `known`; one uncovered finding keeps
 * the rule failing. Entries matching no finding of a rule that ran to the end (passed or failed) are
 * stale and listed in `run.staleBaseline`; entries of rules that did not run (--only, skipped), crashed, or
 * were inconclusive (no real answer through the environment: they did not finish) are not. An inconclusive
 * rule matches no entry either.
 */
export function applyBaseline(run: RunResult, baseline: Baseline): void {
  const used = new Set<BaselineEntry>();
  for (const r of run.results) {
    delete r.known;
    if (r.outcome !== "failed" && r.outcome !== "errored") continue;
    let covered = r.failures.length > 0;
    for (const f of r.failures) {
      const hits = baseline.entries.filter((e) => matches(e, f));
      hits.forEach((e) => used.add(e));
      if (hits.length === 0) covered = false;
    }
    if (r.outcome === "failed") r.known = covered;
  }
  // Only a rule that ran to its end says an entry no longer fails (not skipped, errored or inconclusive ones).
  const finished = new Set(
    run.results.filter((r) => r.outcome === "passed" || r.outcome === "failed").map((r) => r.id),
  );
  run.staleBaseline = baseline.entries
    .filter((e) => !used.has(e) && finished.has(e.rule))
    .map((e) => `${describeEntry(e)} (no longer fails)${e.note ? ` - ${e.note}` : ""}`);
}

/** A baseline in the `knownFailures` format for every failing rule of the run (one entry per rule and pointer). */
export function baselineFile(run: RunResult): string {
  const entries: BaselineEntry[] = [];
  const seen = new Set<string>();
  for (const r of run.results) {
    if (r.outcome !== "failed") continue;
    for (const f of r.failures) {
      const pointer = pointerPattern(f.pointer);
      const key = `${r.id}\u0000${pointer}`;
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({ rule: r.id, pointer, note: `${f.level}: ${f.message} (run ${run.runId})` });
    }
  }
  return `${JSON.stringify({ knownFailures: entries }, null, 2)}\n`;
}
