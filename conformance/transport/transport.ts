/**
 * The one way a run's requests reach a target through whatever stands in front of it. Each request
 * waits for the pacer, is sent, and its answer is sorted (answer-kind.ts): the API's answers go back
 * to the caller; the environment's are waited out and sent again within the retry and wait budgets:
 * - 429 and 503 with Retry-After: the whole target is left alone for the announced time (a 429 without
 *   one: exponential backoff with jitter); sent again, writes too, since the request was not processed;
 * - gateway pages and network failures: reads are sent again after a jittered backoff; a write is sent
 *   again only when it provably never reached the service (refused, reset before a byte was written),
 *   otherwise the caller hears it (WriteOutcomeUnknown) and runs its rule again from fresh fixtures;
 * - a 5xx with the 2.2 body is the API's own answer: a read is sent once more, a write's rule starts
 *   over once, and the second answer is judged (reported as flaky when it differs).
 * When the budgets run out the caller gets Inconclusive: there was no real answer to judge.
 */
import {
  answerKind,
  networkKind,
  provablyUnprocessed,
  TargetUnreachable,
  type Answer,
  type AnswerKind,
  type NetworkKind,
} from "./answer-kind.js";
import { EnvironmentStats, type EnvironmentReport, type RetryReason } from "./environment.js";
import { Pacer, sleep, type PaceSetting } from "./pacer.js";
import { retryAfterMs } from "./retry-after.js";

export interface TransportOptions {
  /** `--rate-limit`: auto (default) or a fixed pace. */
  rateLimit?: PaceSetting;
  /** `--concurrency`: requests in flight at most (default 1). */
  concurrency?: number;
  /** `--retries`: how many times one request is sent again after a transient failure (default 3). */
  retries?: number;
  /** `--timeout`: per request, in ms (default 30 s). */
  timeoutMs?: number;
  /** The most the whole run waits on Retry-After and backoff, in ms (default 300 s); past it, no more waiting. */
  maxWaitMs?: number;
  /** First backoff step, in ms (default 500); doubles with each retry, jittered between half and all of it. */
  backoffBaseMs?: number;
  /** For the jitter; tests give a seeded one. */
  random?: () => number;
}

/** No real answer through the environment, after the retries the budgets allowed. */
export class Inconclusive extends Error {}

/** A write met an answer that does not say whether it was processed (a gateway page, a reset, a timeout, an API 5xx). */
export class WriteOutcomeUnknown extends Error {
  constructor(
    message: string,
    readonly kind: AnswerKind | NetworkKind,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

export interface SendPolicy {
  method: string;
  /** For messages: `GET /v1/calls`. */
  describe: string;
  /**
   * A write whose fate is unknown throws WriteOutcomeUnknown for the rule to start over; with `judge`
   * (a rule that already started over) an API 5xx is handed back to be judged instead.
   */
  unknownWrite?: "rerun" | "judge";
  /** A refused connection is thrown through at once (a caller that knows fetch reaches the target another way). */
  passNetworkErrors?: boolean;
  /** A write that does the same whatever how often it is sent (putting a field back): retried like a read. */
  idempotent?: boolean;
  /** Aborts waiting (SIGINT); put-back requests go without one. */
  signal?: AbortSignal;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export class Transport {
  readonly stats = new EnvironmentStats();
  readonly pacer: Pacer;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly concurrency: number;
  private readonly maxWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly random: () => number;
  /** 429s without Retry-After in a row: the backoff grows with them. */
  private bareLimits = 0;
  /** The target has answered once: from then on a refused connection is a blip, before it the target is down. */
  private answered = false;

  constructor(readonly options: TransportOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.pacer = new Pacer(options.rateLimit ?? { kind: "auto" }, this.concurrency);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 3;
    this.maxWaitMs = options.maxWaitMs ?? 300_000;
    this.backoffBaseMs = options.backoffBaseMs ?? 500;
    this.random = options.random ?? Math.random;
  }

  report(inconclusive: string[]): EnvironmentReport {
    return this.stats.report(this.pacer.currentPace, this.pacer.setting.kind, inconclusive);
  }

  async send<T extends Answer>(policy: SendPolicy, attempt: () => Promise<T>): Promise<T> {
    const write = !SAFE_METHODS.has(policy.method.toUpperCase()) && !policy.idempotent;
    const met: string[] = [];
    let retriesLeft = this.retries;
    let firstApi5xx: number | undefined;
    for (let sent = 0; ; sent++) {
      await this.pacer.acquire(policy.signal);
      const started = performance.now();
      let answer: T | undefined;
      let failure: TargetUnreachable | undefined;
      try {
        answer = await attempt();
      } catch (error) {
        if (!(error instanceof TargetUnreachable)) throw error;
        failure = error;
      } finally {
        this.pacer.release();
      }
      const kind: AnswerKind | NetworkKind = answer ? answerKind(answer) : networkKind(failure!.cause);
      this.stats.attempt(kind, answer?.status, answer ? performance.now() - started : undefined);
      if (answer) this.answered = true;
      // Nothing to wait out: a certificate refused, a name that does not resolve, a target down from the start.
      if (failure && (kind === "fatal" || (kind === "refused" && !this.answered))) throw failure;
      if (answer && (kind === "api" || kind === "api-5xx")) {
        this.pacer.accepted();
        this.bareLimits = 0;
        if (firstApi5xx !== undefined) {
          if (answer.status !== firstApi5xx)
            this.stats.flaky.push({ request: policy.describe, first: firstApi5xx, then: answer.status });
          return answer;
        }
        if (kind === "api") return answer;
        if (write) {
          if (policy.unknownWrite === "judge") return answer;
          throw new WriteOutcomeUnknown(
            `${policy.describe} answered ${answer.status} (the API's own error body)`,
            kind,
            answer.status,
          );
        }
        firstApi5xx = answer.status;
        this.stats.retry("api5xx");
        continue;
      }
      if (failure && policy.passNetworkErrors && kind === "refused") throw failure;
      met.push(
        answer
          ? `${answer.status}${kind === "rate-limited" || kind === "unavailable" ? "" : " (not the API's answer)"}`
          : `${kind}: ${failure!.message}`,
      );
      if (kind === "rate-limited" || kind === "unavailable") {
        const announced = retryAfterMs(answer!.headers);
        if (announced === undefined) this.bareLimits++;
        if (announced === undefined || kind === "unavailable") retriesLeft--;
        const wait = announced ?? this.backoff(this.bareLimits);
        this.giveUpUnless(retriesLeft >= 0 && this.withinBudget(wait), policy, met);
        const now = performance.now();
        this.pacer.holdOff(wait, kind === "rate-limited", started);
        this.stats.waited(now, now + wait);
        this.stats.retry(kind === "rate-limited" ? "rateLimited" : "unavailable");
        continue;
      }
      if (write && !provablyUnprocessed(kind)) {
        throw new WriteOutcomeUnknown(
          `${policy.describe} met ${met[met.length - 1]}: it may or may not have been processed`,
          kind,
          answer?.status,
        );
      }
      retriesLeft--;
      const wait = this.backoff(sent + 1);
      this.giveUpUnless(retriesLeft >= 0 && this.withinBudget(wait), policy, met);
      const now = performance.now();
      this.stats.waited(now, now + wait);
      this.stats.retry(retryReason(kind));
      await sleep(wait, policy.signal);
    }
  }

  private backoff(step: number): number {
    const full = Math.min(this.backoffBaseMs * 2 ** (step - 1), 30_000);
    return full / 2 + (this.random() * full) / 2;
  }

  private withinBudget(waitMs: number): boolean {
    return this.stats.waitedSeconds * 1000 + waitMs <= this.maxWaitMs;
  }

  private giveUpUnless(ok: boolean, policy: SendPolicy, met: string[]): void {
    if (ok) return;
    const why =
      this.stats.waitedSeconds * 1000 >= this.maxWaitMs
        ? "the run's wait budget is spent"
        : `after ${met.length} attempt${met.length === 1 ? "" : "s"}`;
    throw new Inconclusive(`${policy.describe}: no answer from the API ${why} (met ${met.join(", ")})`);
  }
}

function retryReason(kind: AnswerKind | NetworkKind): RetryReason {
  if (kind === "timeout") return "timeout";
  if (kind === "refused" || kind === "reset" || kind === "reset-unsent" || kind === "fatal") return "network";
  return "gateway";
}
