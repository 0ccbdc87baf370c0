/**
 * A rule is one named check of the reference (or of one of the spec's assumptions), tied to an
 * operation. Rules collect failures instead of throwing, so one run reports every broken invariant.
 */
import type { Replay } from "../fixtures/ledger-file.js";
import { announceChange, lookUpLostBatch, traceExchange, traceUnknownWrite } from "../fixtures/ledger.js";
import { Inconclusive, WriteOutcomeUnknown } from "../transport/transport.js";
import type { Fixtures } from "../fixtures/types.js";
import { clockIssues, preview, stampedTimes } from "./conforms.js";
import { bundledDocument } from "./document.js";
import { documentIssues } from "./document-issues.js";
import { curlLine, send, type Exchange, type RequestSpec, type Target } from "./http.js";
import type { Level } from "./schemas.js";

export interface Failure {
  rule: string;
  operationId: string;
  /**
   * What the check rests on: `documented` when the reference states it, `assumed` when it rests on a kit
   * decision (an x-assumption), also inside a documented rule. Only `assumed` failures are dropped at level documented.
   */
  level: Level;
  pointer: string;
  expected: string;
  actual: string;
  message: string;
  curl?: string;
}

export interface Rule {
  /** `<operationId>.<check>`, unique; what --only matches and what reports name. */
  id: string;
  operationId: string;
  /** The resource group file it lives in. */
  group: string;
  level: Level;
  /** true when it sends no request that changes state. */
  readOnly: boolean;
  /** One line: which sentence of the reference (or which assumption) it checks. */
  description: string;
  run(t: RuleContext): Promise<void>;
}

export type RuleSpec = Omit<Rule, "group">;

export function defineRules(group: string, rules: RuleSpec[]): Rule[] {
  return rules.map((r) => ({ ...r, group }));
}

export class SkipRule extends Error {}

export interface CoverageSink {
  /** Counts the status and keeps the response time of every exchange of an operation. */
  record(operationId: string, exchange: Exchange): void;
}

export interface ExpectDetail {
  pointer?: string;
  expected: unknown;
  actual: unknown;
  message: string;
  /** The exchange the check is about, for the curl line. Defaults to the last exchange. */
  exchange?: Exchange;
  /** Part of a documented rule that rests on an assumption: ignored at level documented. */
  assumed?: boolean;
}

/**
 * A change a rule makes to a record it did not create (a foreign target's phone number): how to put it
 * back, and how to read the record again to check that it was.
 */
export interface Restoration {
  kind: string;
  id: string;
  /** What was changed, for the ledger. */
  fields: string[];
  restore(): Promise<void>;
  /** Reads the record again: the fields still differing from before (empty when put back). */
  verify(): Promise<string[]>;
  /** The same put-back as data, written to the ledger file before the change: what `cleanup` replays after a killed run. */
  replay?: Replay;
  /**
   * A record the rule created, to delete when it ends: `restore` deletes it, `verify` reads it again (gone:
   * empty). The ledger says `removed`, or keeps it `left` (recordCreated listed it, with its DELETE).
   */
  removes?: boolean;
}

/** How one run of a rule sends: the second run after a write whose fate was unknown judges what it gets. */
export interface AttemptSettings {
  /** Judge what the API answers to a write, whatever it is: the rule already ran again once (or more) for a write whose fate was unknown. */
  rerun: boolean;
  /** The run's interruption (SIGINT, SIGTERM): no new request waits once it fires. */
  signal?: AbortSignal;
}

export class RuleContext {
  readonly failures: Failure[] = [];
  readonly exchanges: Exchange[] = [];
  /** Put back by the runner when the rule ends, whatever its outcome, latest first. */
  readonly restorations: Restoration[] = [];
  constructor(
    readonly rule: Rule,
    readonly target: Target,
    readonly level: Level,
    readonly fixtures: Fixtures,
    private readonly coverage: CoverageSink,
    private readonly settings: AttemptSettings = { rerun: false },
  ) {}

  /** Set by the runner while it puts back what the rule changed: those writes are idempotent and go even when interrupted. */
  puttingBack = false;

  get isAssumed(): boolean {
    return this.level === "assumed";
  }

  /** Sends a request of `operationId`; the response passes through expectConforms. */
  async call(operationId: string, request: RequestSpec): Promise<Exchange> {
    let exchange: Exchange;
    const sentAt = Date.now();
    try {
      // Putting a field back, or a write sent without a key the target issued, changes nothing more if sent twice.
      const harmless = this.puttingBack || this.withoutValidKey(request);
      exchange = await send(this.target, request, {
        idempotent: harmless,
        unknownWrite: this.settings.rerun ? "judge" : "rerun",
        signal: this.puttingBack ? undefined : this.settings.signal,
      });
    } catch (error) {
      if (error instanceof WriteOutcomeUnknown) {
        const found =
          operationId === "createBatchRun" && (await lookUpLostBatch(this.fixtures, this.target, request, sentAt));
        if (!found) traceUnknownWrite(this.fixtures, operationId, request, error.message);
      }
      throw error;
    }
    this.exchanges.push(exchange);
    this.coverage.record(operationId, exchange);
    traceExchange(this.fixtures, operationId, exchange);
    const issues = documentIssues(this.fixtures.document ?? bundledDocument, exchange, operationId, this.level);
    if (stampedTimes(exchange, operationId).length > 0) {
      const now = await this.fixtures.serverNow(exchange);
      if (now !== undefined)
        issues.push(...clockIssues(exchange, operationId, now).map((i) => ({ ...i, level: "documented" as const })));
    }
    // A check of a documented rule is never stronger than the rule: an assumed rule's findings are assumed.
    for (const issue of issues)
      this.failures.push({
        rule: this.rule.id,
        operationId,
        ...issue,
        level: this.rule.level === "assumed" ? "assumed" : issue.level,
        curl: curlLine(exchange),
      });
    return exchange;
  }

  /** This run of the rule follows one whose write met an answer that did not say whether it was processed. */
  get isRerun(): boolean {
    return this.settings.rerun;
  }

  /** Ends the rule as inconclusive: what it needs to judge cannot be known through the environment. */
  inconclusive(reason: string): never {
    throw new Inconclusive(reason);
  }

  /** No key, or a key that is neither the run's nor the second one: by section 5 the request cannot take effect. */
  private withoutValidKey(request: RequestSpec): boolean {
    return (
      request.key === null ||
      (request.key !== undefined &&
        request.key !== this.target.apiKey &&
        request.key !== this.fixtures.secondKey?.apiKey)
    );
  }

  /** Records a failure unless `ok`; returns ok so callers can stop early. */
  expect(ok: boolean, detail: ExpectDetail): boolean {
    if (ok || (detail.assumed && !this.isAssumed)) return true;
    const exchange = detail.exchange ?? this.exchanges[this.exchanges.length - 1];
    this.failures.push({
      rule: this.rule.id,
      operationId: this.rule.operationId,
      level: detail.assumed || this.rule.level === "assumed" ? "assumed" : "documented",
      pointer: detail.pointer ?? "",
      expected: typeof detail.expected === "string" ? detail.expected : preview(detail.expected),
      actual: typeof detail.actual === "string" ? detail.actual : preview(detail.actual),
      message: detail.message,
      curl: exchange ? curlLine(exchange) : undefined,
    });
    return false;
  }

  expectStatus(exchange: Exchange, expected: number | number[], message?: string): boolean {
    const list = Array.isArray(expected) ? expected : [expected];
    return this.expect(list.includes(exchange.status), {
      pointer: "#status",
      expected: list.join(" or "),
      actual: `${exchange.status} ${preview(exchange.json ?? exchange.text, 200)}`,
      message: message ?? `${exchange.request.method} ${exchange.request.path} must answer ${list.join(" or ")}`,
      exchange,
    });
  }

  expectEqual(
    actual: unknown,
    expected: unknown,
    pointer: string,
    message: string,
    extra: Partial<ExpectDetail> = {},
  ): boolean {
    return this.expect(deepEqual(actual, expected), { pointer, expected, actual, message, ...extra });
  }

  /** Registers a change to put back once the rule ends (foreign targets: nothing the run changed stays changed). */
  willRestore(restoration: Restoration): void {
    if (restoration.replay && !restoration.removes)
      announceChange(
        this.fixtures,
        {
          kind: restoration.kind,
          id: restoration.id,
          note: `${restoration.fields.join(", ")} about to be changed by ${this.rule.id}`,
        },
        restoration.replay,
      );
    this.restorations.push(restoration);
  }

  skip(reason: string): never {
    throw new SkipRule(reason);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Typed access to a parsed body without ceremony: rules check shapes through expectConforms first. */
export function obj(exchange: Exchange): Record<string, any> {
  return exchange.json && typeof exchange.json === "object" ? (exchange.json as Record<string, any>) : {};
}
