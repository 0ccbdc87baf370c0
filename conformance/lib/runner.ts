/**
 * Runs the suite against one target: decides mock or foreign (by proof, or as told), checks the key
 * once, builds the fixtures, runs the selected rules one after the other (lists must not move while a
 * rule walks them), puts back what each rule changed, and returns the results.
 */
import { randomBytes } from "node:crypto";
import { detectTarget, type Detection, type TargetKind } from "../fixtures/control.js";
import { discoverFixtures, type IdOptions } from "../fixtures/discover.js";
import { mockFixtures } from "../fixtures/mock-fixtures.js";
import type { Fixtures } from "../fixtures/types.js";
import { allRules } from "../operations/index.js";
import { send, TargetUnreachable, useTls, type Exchange, type Target, type TlsOptions } from "./http.js";
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
  /** --target: skip detection. */
  target?: TargetKind;
  tls?: TlsOptions;
  /** --second-api-key: a key of another workspace or account, for the isolation rules. */
  secondApiKey?: string;
  /** Extra rules (the fuzzer) appended to the selection. */
  extraRules?: Rule[];
  onExchange?: (exchange: Exchange) => void;
  /** Called once the target is known, before any rule: the first lines of a run. */
  onStart?: (lines: string[]) => void;
  onRuleDone?: (result: RuleResult) => void;
}

export interface RuleResult {
  id: string;
  group: string;
  operationId: string;
  level: Level;
  readOnly: boolean;
  description: string;
  /** errored: the rule itself crashed (an answer it could not read); failed: the target broke a rule. */
  outcome: "passed" | "failed" | "skipped" | "errored";
  reason?: string;
  /** The crash, for errored rules. */
  error?: string;
  failures: Failure[];
  durationMs: number;
  /** Set by a baseline (report/baseline.ts): a known failure, reported but not failing the run. */
  known?: boolean;
}

export interface RunResult {
  baseUrl: string;
  level: Level;
  isMock: boolean;
  target: Detection;
  readOnly: boolean;
  runId: string;
  startedAt: string;
  durationMs: number;
  results: RuleResult[];
  /** operationId -> status -> times seen. */
  coverage: Record<string, Record<string, number>>;
  /** operationId -> response time of every exchange, in ms. */
  timings: Record<string, number[]>;
  ledger: Fixtures["ledger"];
  notCovered: string[];
  /** Baseline entries that matched no failure of this run (report/baseline.ts). */
  staleBaseline?: string[];
}

export class RunCannotStart extends Error {}

export function matchesOnly(rule: Rule, pattern: string | undefined): boolean {
  if (!pattern) return true;
  const regex = /^\/(.*)\/$/.exec(pattern);
  const haystack = `${rule.group}/${rule.id}`;
  return regex ? new RegExp(regex[1], "i").test(haystack) : haystack.toLowerCase().includes(pattern.toLowerCase());
}

/** The rules a run with these options selects, in the order they run. */
export function selectRules(options: Pick<RunOptions, "only" | "extraRules">): Rule[] {
  return [...allRules, ...(options.extraRules ?? [])].filter((r) => matchesOnly(r, options.only));
}

/** Setup mistakes found without a request: they exit 2 with one line. */
export function setupProblem(options: Pick<RunOptions, "baseUrl" | "only" | "extraRules" | "apiKey" | "secondApiKey">): string | undefined {
  const path = new URL(options.baseUrl).pathname.replace(/\/+$/, "");
  if (/\/v1$/i.test(path)) return `--base-url ${options.baseUrl} ends in /v1: give the base address without it (the suite adds /v1 to every path), e.g. ${options.baseUrl.replace(/\/v1\/*$/i, "")}`;
  if (options.only && selectRules(options).length === 0) return `--only ${options.only} matches no rule (see --list)`;
  if (options.secondApiKey !== undefined && options.secondApiKey === options.apiKey) return "--second-api-key is the same key as --api-key: give a key of another workspace or account";
  return undefined;
}

/** One request before the rules: a key the target refuses is a setup mistake, not 58 failures. */
async function checkKey(target: Target, option: string): Promise<void> {
  const ex = await send(target, { method: "GET", path: "/v1/agents", query: { page: 0, size: 1 } });
  if (ex.status === 401 || ex.status === 403) {
    throw new RunCannotStart(`the target refuses ${option} (GET /v1/agents answered ${ex.status}${typeof (ex.json as { message?: unknown })?.message === "string" ? `: ${(ex.json as { message: string }).message}` : ""}): check the key`);
  }
}

export async function runSuite(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const problem = setupProblem(options);
  if (problem) throw new RunCannotStart(problem);
  const runId = `conformance-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString("hex")}`;
  const readOnly = options.readOnly ?? false;
  const rules = selectRules(options);
  const probe: Target = { baseUrl, apiKey: options.apiKey, tls: options.tls };
  let detection: Detection;
  let fixtures: Fixtures;
  let apiKey = options.apiKey;
  // Every request of the run to this base URL, fixtures and control plane included, uses these TLS options.
  useTls(baseUrl, options.tls);
  try {
    detection = await detectTarget(baseUrl, options.target);
    const isMock = detection.kind === "mock";
    await checkKey(probe, "--api-key");
    if (options.secondApiKey) await checkKey({ ...probe, apiKey: options.secondApiKey }, "--second-api-key");
    if (isMock && !readOnly) {
      const made = await mockFixtures(baseUrl, runId);
      fixtures = made.fixtures;
      apiKey = made.apiKey;
    } else {
      fixtures = await discoverFixtures(probe, runId, options, { isMock, readOnly });
    }
    if (options.secondApiKey) fixtures.secondKey = { apiKey: options.secondApiKey };
  } catch (error) {
    if (error instanceof RunCannotStart) throw error;
    if (error instanceof TargetUnreachable || (error as Error).name === "TimeoutError" || (error as Error).message === "fetch failed") {
      throw new RunCannotStart(`target unreachable: ${baseUrl} (${(error as Error).cause ?? (error as Error).message})`);
    }
    throw new RunCannotStart(`could not set up fixtures: ${(error as Error).message}`);
  }
  const level: Level = options.level ?? (detection.kind === "mock" ? "assumed" : "documented");
  options.onStart?.([
    `Target ${baseUrl}: ${detection.kind === "mock" ? "the kit's mock" : "a foreign deployment"} (${detection.reason})`,
    `Level ${level}${options.level ? "" : " (the default for this target)"}${readOnly ? ", read-only" : ""}; ${rules.length} rules; run ${runId}`,
    ...(detection.kind === "mock" && !readOnly ? [`Fixtures in a workspace of the run's own, ${fixtures.control?.workspaceId}; only its clock moves`] : []),
  ]);
  fixtures.largeUploads = options.largeUploads;
  const target: Target = { baseUrl, apiKey, onExchange: options.onExchange, tls: options.tls };
  const coverage: RunResult["coverage"] = {};
  const timings: RunResult["timings"] = {};
  for (const op of operations.values()) coverage[op.operationId] = {};
  const sink = {
    record: (op: string, exchange: Exchange) => {
      const seen = (coverage[op] ??= {});
      seen[exchange.status] = (seen[exchange.status] ?? 0) + 1;
      (timings[op] ??= []).push(exchange.durationMs);
    },
  };

  const results: RuleResult[] = [];
  for (const rule of rules) {
    const result = await runRule(rule, { target, level, readOnly, fixtures, sink });
    results.push(result);
    options.onRuleDone?.(result);
  }
  await fixtures.cleanup();
  return {
    baseUrl, level, isMock: detection.kind === "mock", target: detection, readOnly, runId, startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started, results, coverage, timings, ledger: fixtures.ledger, notCovered: fixtures.notCovered,
  };
}

interface RunEnv {
  target: Target;
  level: Level;
  readOnly: boolean;
  fixtures: Fixtures;
  sink: { record(op: string, exchange: Exchange): void };
}

async function runRule(rule: Rule, env: RunEnv): Promise<RuleResult> {
  const base = { id: rule.id, group: rule.group, operationId: rule.operationId, level: rule.level, readOnly: rule.readOnly, description: rule.description, failures: [] as Failure[] };
  if (rule.level === "assumed" && env.level === "documented") return { ...base, outcome: "skipped", reason: "rests on an x-assumption (run with --level assumed)", durationMs: 0 };
  if (env.readOnly && !rule.readOnly) return { ...base, outcome: "skipped", reason: "changes state (--read-only)", durationMs: 0 };
  const t = new RuleContext(rule, env.target, env.level, env.fixtures, env.sink);
  const started = performance.now();
  let reason: string | undefined;
  let crash: string | undefined;
  try {
    await rule.run(t);
  } catch (error) {
    if (error instanceof SkipRule) reason = error.message;
    else if (error instanceof TargetUnreachable) t.expect(false, { pointer: "", expected: "an answer", actual: error.message, message: "target stopped answering" });
    else crash = (error as Error).stack ?? String(error);
  }
  await putBack(t, env.fixtures);
  const durationMs = performance.now() - started;
  if (crash !== undefined) return { ...base, outcome: "errored", error: crash, failures: t.failures, durationMs };
  if (t.failures.length > 0) return { ...base, outcome: "failed", failures: t.failures, durationMs, reason };
  if (reason !== undefined) {
    env.fixtures.notCovered.push(`${rule.id}: ${reason}`);
    return { ...base, outcome: "skipped", reason, durationMs };
  }
  return { ...base, outcome: "passed", durationMs };
}

/** Puts back what the rule changed, latest first, reads each record again, and writes the ledger. */
async function putBack(t: RuleContext, fixtures: Fixtures): Promise<void> {
  for (const change of [...t.restorations].reverse()) {
    let differing: string[];
    try {
      await change.restore();
      differing = await change.verify();
    } catch (error) {
      differing = [`(could not put back: ${(error as Error).message})`];
    }
    const restored = differing.length === 0;
    fixtures.ledger.push({
      kind: change.kind, id: change.id, state: restored ? "restored" : "not-restored",
      note: restored ? `${change.fields.join(", ")} changed by ${t.rule.id}, put back and read back unchanged` : `${change.fields.join(", ")} changed by ${t.rule.id}; still differs after putting back: ${differing.join(", ")}`,
    });
    t.expect(restored, { pointer: "", expected: `${change.kind} ${change.id} as before the rule`, actual: `differs in ${differing.join(", ")}`, message: "a change the run made could not be put back: the target keeps it" });
  }
}
