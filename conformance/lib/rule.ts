/**
 * A rule is one named check of the reference (or of one of the spec's assumptions), tied to an
 * operation. Rules collect failures instead of throwing, so one run reports every broken invariant.
 */
import type { Fixtures } from "../fixtures/types.js";
import { clockIssues, conformanceIssues, preview, stampedTimes } from "./conforms.js";
import { curlLine, send, type Exchange, type RequestSpec, type Target } from "./http.js";
import type { Level } from "./schemas.js";

export interface Failure {
  rule: string;
  operationId: string;
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
  record(operationId: string, status: number): void;
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

export class RuleContext {
  readonly failures: Failure[] = [];
  readonly exchanges: Exchange[] = [];
  constructor(
    readonly rule: Rule,
    readonly target: Target,
    readonly level: Level,
    readonly fixtures: Fixtures,
    private readonly coverage: CoverageSink,
  ) {}

  get isAssumed(): boolean {
    return this.level === "assumed";
  }

  /** Sends a request of `operationId`; the response passes through expectConforms. */
  async call(operationId: string, request: RequestSpec): Promise<Exchange> {
    const exchange = await send(this.target, request);
    this.exchanges.push(exchange);
    this.coverage.record(operationId, exchange.status);
    const issues = conformanceIssues(exchange, operationId, this.level);
    if (stampedTimes(exchange, operationId).length > 0) {
      const now = await this.fixtures.serverNow(exchange);
      if (now !== undefined) issues.push(...clockIssues(exchange, operationId, now));
    }
    for (const issue of issues) this.failures.push({ rule: this.rule.id, operationId, ...issue, curl: curlLine(exchange) });
    return exchange;
  }

  /** Records a failure unless `ok`; returns ok so callers can stop early. */
  expect(ok: boolean, detail: ExpectDetail): boolean {
    if (ok || (detail.assumed && !this.isAssumed)) return true;
    const exchange = detail.exchange ?? this.exchanges[this.exchanges.length - 1];
    this.failures.push({
      rule: this.rule.id,
      operationId: this.rule.operationId,
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

  expectEqual(actual: unknown, expected: unknown, pointer: string, message: string, extra: Partial<ExpectDetail> = {}): boolean {
    return this.expect(deepEqual(actual, expected), { pointer, expected, actual, message, ...extra });
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
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/** Typed access to a parsed body without ceremony: rules check shapes through expectConforms first. */
export function obj(exchange: Exchange): Record<string, any> {
  return exchange.json && typeof exchange.json === "object" ? (exchange.json as Record<string, any>) : {};
}
