/**
 * Runs the suite against one target: decides mock or foreign, builds the fixtures, runs the selected
 * rules one after the other (lists must not move while a rule walks them) and returns the results.
 */
import { randomBytes } from "node:crypto";
import { discoverFixtures, type IdOptions } from "../fixtures/discover.js";
import { isKitMock } from "../fixtures/control.js";
import { mockFixtures } from "../fixtures/mock-fixtures.js";
import type { Fixtures } from "../fixtures/types.js";
import { allRules } from "../operations/index.js";
import { TargetUnreachable, type Exchange, type Target } from "./http.js";
import { RuleContext, SkipRule, type Failure, type Rule } from "./rule.js";
import type { Level } from "./schemas.js";
import { operations } from "./spec.js";

export interface RunOptions extends IdOptions {
  baseUrl: string;
  apiKey: string;
  level?: Level;
  readOnly?: boolean;
  only?: string;
  largeUploads?: boolean;
  /** Extra rules (the fuzzer) appended to the selection. */
  extraRules?: Rule[];
  onExchange?: (exchange: Exchange) => void;
  onRuleDone?: (result: RuleResult) => void;
}

export interface RuleResult {
  id: string;
  group: string;
  operationId: string;
  level: Level;
  description: string;
  outcome: "passed" | "failed" | "skipped";
  reason?: string;
  failures: Failure[];
  durationMs: number;
}

export interface RunResult {
  baseUrl: string;
  level: Level;
  isMock: boolean;
  readOnly: boolean;
  runId: string;
  startedAt: string;
  durationMs: number;
  results: RuleResult[];
  /** operationId -> status -> times seen. */
  coverage: Record<string, Record<string, number>>;
  ledger: Fixtures["ledger"];
  notCovered: string[];
}

export class RunCannotStart extends Error {}

export function matchesOnly(rule: Rule, pattern: string | undefined): boolean {
  if (!pattern) return true;
  const regex = /^\/(.*)\/$/.exec(pattern);
  const haystack = `${rule.group}/${rule.id}`;
  return regex ? new RegExp(regex[1], "i").test(haystack) : haystack.toLowerCase().includes(pattern.toLowerCase());
}

export async function runSuite(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const runId = `conformance-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString("hex")}`;
  let isMock: boolean;
  try {
    isMock = await isKitMock(baseUrl);
  } catch (error) {
    throw new RunCannotStart(`target unreachable: ${baseUrl} (${(error as Error).cause ?? (error as Error).message})`);
  }
  const readOnly = options.readOnly ?? false;
  const level: Level = options.level ?? (isMock ? "assumed" : "documented");
  let apiKey = options.apiKey;
  let fixtures: Fixtures;
  const probe: Target = { baseUrl, apiKey, onExchange: options.onExchange };
  try {
    if (isMock && !readOnly) {
      const made = await mockFixtures(baseUrl, runId);
      fixtures = made.fixtures;
      apiKey = made.apiKey;
    } else {
      fixtures = await discoverFixtures(probe, runId, options, { isMock, readOnly });
    }
  } catch (error) {
    if (error instanceof TargetUnreachable) throw new RunCannotStart(`target unreachable: ${error.message}`);
    throw new RunCannotStart(`could not set up fixtures: ${(error as Error).message}`);
  }
  fixtures.largeUploads = options.largeUploads;
  const target: Target = { baseUrl, apiKey, onExchange: options.onExchange };
  const coverage: RunResult["coverage"] = {};
  for (const op of operations.values()) coverage[op.operationId] = {};
  const sink = { record: (op: string, status: number) => { (coverage[op] ??= {})[status] = ((coverage[op] ??= {})[status] ?? 0) + 1; } };

  const results: RuleResult[] = [];
  for (const rule of [...allRules, ...(options.extraRules ?? [])].filter((r) => matchesOnly(r, options.only))) {
    const result = await runRule(rule, { target, level, readOnly, fixtures, sink });
    results.push(result);
    options.onRuleDone?.(result);
  }
  await fixtures.cleanup();
  return { baseUrl, level, isMock, readOnly, runId, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, results, coverage, ledger: fixtures.ledger, notCovered: fixtures.notCovered };
}

interface RunEnv {
  target: Target;
  level: Level;
  readOnly: boolean;
  fixtures: Fixtures;
  sink: { record(op: string, status: number): void };
}

async function runRule(rule: Rule, env: RunEnv): Promise<RuleResult> {
  const base = { id: rule.id, group: rule.group, operationId: rule.operationId, level: rule.level, description: rule.description, failures: [] as Failure[] };
  if (rule.level === "assumed" && env.level === "documented") return { ...base, outcome: "skipped", reason: "rests on an x-assumption (run with --level assumed)", durationMs: 0 };
  if (env.readOnly && !rule.readOnly) return { ...base, outcome: "skipped", reason: "changes state (--read-only)", durationMs: 0 };
  const t = new RuleContext(rule, env.target, env.level, env.fixtures, env.sink);
  const started = performance.now();
  let reason: string | undefined;
  try {
    await rule.run(t);
  } catch (error) {
    if (error instanceof SkipRule) reason = error.message;
    else t.expect(false, { pointer: "", expected: "the rule to complete", actual: String((error as Error).message ?? error), message: error instanceof TargetUnreachable ? "target stopped answering" : "rule crashed on an unexpected response" });
  }
  const durationMs = performance.now() - started;
  if (t.failures.length > 0) return { ...base, outcome: "failed", failures: t.failures, durationMs, reason };
  if (reason !== undefined) {
    env.fixtures.notCovered.push(`${rule.id}: ${reason}`);
    return { ...base, outcome: "skipped", reason, durationMs };
  }
  return { ...base, outcome: "passed", durationMs };
}
