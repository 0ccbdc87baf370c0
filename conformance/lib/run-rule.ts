/**
 * One rule, run to an outcome: passed, failed, skipped, errored (the rule itself crashed), or
 * inconclusive (no real answer came through the environment). What the rule changed is put back
 * whatever happens. A write whose answer the environment swallowed (a gateway page after forwarding,
 * a reset, a timeout, an API 5xx) is not sent again: the rule runs again from the start (up to --retries
 * times), with fresh records of its own, and what the lost write may have created is in the ledger.
 */
import { record, recordNotRemoved, recordRemoved } from "../fixtures/ledger.js";
import type { Fixtures } from "../fixtures/types.js";
import type { EnvironmentStats } from "../transport/environment.js";
import { Inconclusive, WriteOutcomeUnknown } from "../transport/transport.js";
import { TargetUnreachable, type Target } from "./http.js";
import { RuleContext, SkipRule, type CoverageSink, type Failure, type Rule } from "./rule.js";
import type { Level } from "./schemas.js";

export interface RuleResult {
  id: string;
  group: string;
  operationId: string;
  level: Level;
  readOnly: boolean;
  description: string;
  /**
   * errored: the rule itself crashed (an answer it could not read); failed: the target broke a rule;
   * inconclusive: no real answer came through the environment (rate limits, gateway pages, resets) after retries.
   */
  outcome: "passed" | "failed" | "skipped" | "errored" | "inconclusive";
  reason?: string;
  /** The crash, for errored rules. */
  error?: string;
  failures: Failure[];
  durationMs: number;
  /** Set by a baseline (report/baseline.ts): a known failure, reported but not failing the run. */
  known?: boolean;
}

export interface RunEnv {
  target: Target;
  level: Level;
  readOnly: boolean;
  fixtures: Fixtures;
  sink: CoverageSink;
  /** How many times a rule may start over after a write whose fate was unknown (--retries). */
  reruns: number;
  /** Where answers that changed on a rerun are counted. */
  stats?: EnvironmentStats;
  signal?: AbortSignal;
}

interface Attempt {
  t: RuleContext;
  skip?: string;
  inconclusive?: string;
  crash?: string;
  unknownWrite?: WriteOutcomeUnknown;
}

export async function runRule(rule: Rule, env: RunEnv): Promise<RuleResult> {
  const base = {
    id: rule.id,
    group: rule.group,
    operationId: rule.operationId,
    level: rule.level,
    readOnly: rule.readOnly,
    description: rule.description,
    failures: [] as RuleResult["failures"],
  };
  if (rule.level === "assumed" && env.level === "documented")
    return {
      ...base,
      outcome: "skipped",
      reason: "rests on an x-assumption (run with --level assumed)",
      durationMs: 0,
    };
  if (env.readOnly && !rule.readOnly)
    return { ...base, outcome: "skipped", reason: "changes state (--read-only)", durationMs: 0 };
  const started = performance.now();
  let attempt = await attemptRule(rule, env, false);
  // A write the environment swallowed is never sent again: the rule starts over, up to --retries times.
  const lost: WriteOutcomeUnknown[] = [];
  while (attempt.unknownWrite && attempt.t.failures.length === 0 && lost.length < env.reruns) {
    lost.push(attempt.unknownWrite);
    attempt = await attemptRule(rule, env, true);
    noteFlaky(lost[lost.length - 1], attempt, env);
  }
  if (attempt.unknownWrite) attempt.inconclusive ??= attempt.unknownWrite.message;
  const durationMs = performance.now() - started;
  const { t } = attempt;
  const reason = attempt.skip ?? attempt.inconclusive;
  if (attempt.crash !== undefined)
    return { ...base, outcome: "errored", error: attempt.crash, failures: t.failures, durationMs };
  if (t.failures.length > 0) return { ...base, outcome: "failed", failures: t.failures, durationMs, reason };
  if (attempt.inconclusive !== undefined)
    return {
      ...base,
      outcome: "inconclusive",
      reason: `no real answer through the environment: ${attempt.inconclusive}`,
      durationMs,
    };
  if (reason !== undefined) {
    env.fixtures.notCovered.push(`${rule.id}: ${reason}`);
    return { ...base, outcome: "skipped", reason, durationMs };
  }
  return {
    ...base,
    outcome: "passed",
    durationMs,
    ...(lost.length > 0 ? { reason: `ran again from the start: ${lost.map((l) => l.message).join("; ")}` } : {}),
  };
}

async function attemptRule(rule: Rule, env: RunEnv, rerun: boolean): Promise<Attempt> {
  const t = new RuleContext(rule, env.target, env.level, env.fixtures, env.sink, { rerun, signal: env.signal });
  const attempt: Attempt = { t };
  try {
    await rule.run(t);
  } catch (error) {
    if (error instanceof SkipRule) attempt.skip = error.message;
    else if (error instanceof WriteOutcomeUnknown) attempt.unknownWrite = error;
    else if (error instanceof Inconclusive) attempt.inconclusive = error.message;
    else if (env.signal?.aborted)
      attempt.inconclusive = `the run was interrupted (${String(env.signal.reason?.message ?? env.signal.reason)})`;
    else if (error instanceof TargetUnreachable)
      t.expect(false, {
        pointer: "",
        expected: "an answer",
        actual: error.message,
        message: "target stopped answering",
      });
    else attempt.crash = (error as Error).stack ?? String(error);
  }
  const stuck = await putBack(t, env.fixtures);
  if (stuck) attempt.inconclusive ??= stuck;
  return attempt;
}

/** An API 5xx on a write, then a rerun that got past it: the answer changed when asked again. */
function noteFlaky(lost: WriteOutcomeUnknown, rerun: Attempt, env: RunEnv): void {
  if (lost.kind !== "api-5xx" || lost.status === undefined) return;
  const [method, path] = lost.message.split(" ");
  const same = rerun.t.exchanges.find((e) => e.request.method === method && e.request.path.endsWith(path ?? "\u0000"));
  if (same && same.status !== lost.status)
    env.stats?.flaky.push({ request: `${method} ${path}`, first: lost.status, then: same.status });
}

/**
 * Puts back what the rule changed, latest first, reads each record again, and writes the ledger.
 * Returns why, when the environment kept a put-back from happening (the ledger file keeps it for `cleanup`).
 */
async function putBack(t: RuleContext, fixtures: Fixtures): Promise<string | undefined> {
  t.puttingBack = true;
  let stuck: string | undefined;
  for (const change of [...t.restorations].reverse()) {
    let differing: string[];
    try {
      await change.restore();
      differing = await change.verify();
    } catch (error) {
      if (error instanceof Inconclusive && change.removes) {
        stuck ??= `could not remove ${change.kind} ${change.id}: ${error.message}`;
        recordNotRemoved(
          fixtures,
          change.kind,
          change.id,
          `the environment kept the DELETE from getting through (${error.message}): run cleanup with the ledger file`,
        );
        continue;
      }
      if (error instanceof Inconclusive) {
        stuck ??= `could not put back ${change.kind} ${change.id}: ${error.message}`;
        record(fixtures, {
          kind: change.kind,
          id: change.id,
          state: "not-restored",
          note: `${change.fields.join(", ")} changed by ${t.rule.id}; the environment kept the put-back from getting through (${error.message}): run cleanup with the ledger file`,
        });
        continue;
      }
      differing = [`(could not put back: ${(error as Error).message})`];
    }
    const restored = differing.length === 0;
    if (change.removes) {
      if (restored) recordRemoved(fixtures, change.kind, change.id, `deleted by ${t.rule.id} and read back gone`);
      else recordNotRemoved(fixtures, change.kind, change.id, differing.join(", "));
      t.expect(restored, {
        pointer: "",
        expected: `${change.kind} ${change.id} deleted`,
        actual: differing.join(", "),
        message: "a record the run created could not be removed: the target keeps it",
      });
      continue;
    }
    record(fixtures, {
      kind: change.kind,
      id: change.id,
      state: restored ? "restored" : "not-restored",
      note: restored
        ? `${change.fields.join(", ")} changed by ${t.rule.id}, put back and read back unchanged`
        : `${change.fields.join(", ")} changed by ${t.rule.id}; still differs after putting back: ${differing.join(", ")}`,
    });
    t.expect(restored, {
      pointer: "",
      expected: `${change.kind} ${change.id} as before the rule`,
      actual: `differs in ${differing.join(", ")}`,
      message: "a change the run made could not be put back: the target keeps it",
    });
  }
  t.puttingBack = false;
  return stuck;
}
