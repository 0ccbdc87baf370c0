/**
 * Fault rules (POST /__mock/faults): make chosen requests fail, stall or trickle, the way frontend
 * tests need without their app sending a Prefer header. The core asks `match` once per request that
 * passed the API key check; the first rule, in creation order, whose filters fit and whose turn it is
 * applies. A rule's randomness (probability, latency) comes from its own seeded Random, so a run
 * that sends the same requests meets the same faults.
 *
 * Kinds: `status` answers that status with the 2.2 error body, `reset` destroys the connection,
 * `empty` answers 200 with no body (none of these three runs the handler: the store is untouched);
 * `slow` trickles the real answer; no kind with only a delay serves the real answer late.
 */
import { Random } from "./random.js";
import { ApiError, invalid } from "./errors.js";
import type { Operation } from "./operations.js";

export const FAULT_KINDS = ["status", "reset", "empty", "slow"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The longest wait a rule (or a Prefer: delay) may ask for. */
export const MAX_DELAY_MS = 60_000;
export const DEFAULT_TRICKLE_MS = 2_000;

export type Latency =
  | { distribution: "fixed"; ms: number }
  | { distribution: "uniform"; minMs: number; maxMs: number }
  | { distribution: "lognormal"; medianMs: number; sigma: number };

/** A rule as the control plane shows it: what was asked, the seed in use, and how often it matched and applied. */
export interface FaultRule {
  faultId: string;
  operationId?: string;
  workspaceId?: string;
  kind?: FaultKind;
  status?: number;
  delayMs?: number;
  latency?: Latency;
  trickleMs?: number;
  times?: number;
  after: number;
  probability: number;
  seed: number;
  /** Requests that met the filters while the rule was live (skipped ones included). */
  matched: number;
  /** Requests the rule was applied to. */
  applied: number;
}

/** What the core does with a request a rule applies to. */
export interface Fault {
  faultId: string;
  kind?: FaultKind;
  status?: number;
  delayMs: number;
  trickleMs?: number;
}

const FIELDS = [
  "operationId",
  "workspaceId",
  "kind",
  "status",
  "delayMs",
  "latency",
  "trickleMs",
  "times",
  "after",
  "probability",
  "seed",
];

/** A rule with where its Random stands: how a store shared by several processes keeps it. */
export interface StoredFaultRule {
  rule: FaultRule;
  state: number;
}

/** A part of the rules about to change: a rule (its counters and Random move on each match), or the count of rules created. */
export type FaultChange = { kind: "fault"; faultId: string } | { kind: "faultCount" };

const FAULT_COUNT_CHANGE: FaultChange = Object.freeze({ kind: "faultCount" });

export class FaultRules {
  private rules: { rule: FaultRule; random: Random }[] = [];
  private created = 0;
  /** Told of each part about to change (a store that shares the rules between processes notes it: store/redis/). */
  onTouch: ((change: FaultChange) => void) | undefined;

  /**
   * `operations`: the /v1 operations by id, for the documented statuses, or where to find those of the
   * spec in use (the mock's contract, which a reload replaces); `hasWorkspace`: whether a workspace
   * exists (a rule for one that does not could never apply).
   */
  constructor(
    private readonly operationsOf: ReadonlyMap<string, Operation> | (() => ReadonlyMap<string, Operation>),
    private readonly hasWorkspace: (workspaceId: string) => boolean,
  ) {}

  private get operations(): ReadonlyMap<string, Operation> {
    return typeof this.operationsOf === "function" ? this.operationsOf() : this.operationsOf;
  }

  /** Checks a POST /__mock/faults body (400 naming every bad field) and adds the rule last. */
  add(body: Record<string, unknown>): FaultRule {
    const errors: Record<string, string> = {};
    for (const key of Object.keys(body)) if (!FIELDS.includes(key)) errors[key] = "is not allowed";
    const rule = this.parse(body, errors);
    if (Object.keys(errors).length > 0) throw invalid(errors, "Fault rule refused");
    this.onTouch?.(FAULT_COUNT_CHANGE);
    this.created++;
    rule.faultId = `fault-${this.created}`;
    this.onTouch?.({ kind: "fault", faultId: rule.faultId });
    this.rules.push({ rule, random: new Random(rule.seed) });
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.rules.map(({ rule }) => ({ ...rule }));
  }

  remove(faultId: string): boolean {
    const before = this.rules.length;
    this.onTouch?.({ kind: "fault", faultId });
    this.rules = this.rules.filter(({ rule }) => rule.faultId !== faultId);
    return this.rules.length < before;
  }

  /** Drops every rule, or those scoped to one workspace (it was reset or deleted). */
  clear(workspaceId?: string): void {
    for (const { rule } of this.rules)
      if (workspaceId === undefined || rule.workspaceId === workspaceId)
        this.onTouch?.({ kind: "fault", faultId: rule.faultId });
    this.rules = workspaceId === undefined ? [] : this.rules.filter(({ rule }) => rule.workspaceId !== workspaceId);
  }

  get size(): number {
    return this.rules.length;
  }

  /** How many rules were ever created (their ids count on from it). */
  get createdCount(): number {
    return this.created;
  }

  set createdCount(count: number) {
    this.created = count;
  }

  /** A rule as data (a copy), or undefined. */
  stored(faultId: string): StoredFaultRule | undefined {
    const found = this.rules.find(({ rule }) => rule.faultId === faultId);
    return found && { rule: structuredClone(found.rule), state: found.random.state };
  }

  /** Sets or removes a rule without telling onTouch (a store applying another process's write); rules stay in creation order. */
  put(faultId: string, stored: StoredFaultRule | undefined): void {
    this.rules = this.rules.filter(({ rule }) => rule.faultId !== faultId);
    if (!stored) return;
    const random = new Random(stored.rule.seed);
    random.state = stored.state;
    this.rules.push({ rule: structuredClone(stored.rule), random });
    const order = (id: string) => Number(id.slice("fault-".length));
    this.rules.sort((a, b) => order(a.rule.faultId) - order(b.rule.faultId));
  }

  /** The fault for this request, if a rule applies; counts the match on every rule it reaches. */
  match(operationId: string, workspaceId: string): Fault | undefined {
    for (const entry of this.rules) {
      const { rule, random } = entry;
      if (rule.operationId !== undefined && rule.operationId !== operationId) continue;
      if (rule.workspaceId !== undefined && rule.workspaceId !== workspaceId) continue;
      if (rule.times !== undefined && rule.applied >= rule.times) continue;
      this.onTouch?.({ kind: "fault", faultId: rule.faultId });
      rule.matched++;
      if (rule.matched <= rule.after) continue;
      if (rule.probability < 1 && random.next() >= rule.probability) continue;
      rule.applied++;
      return {
        faultId: rule.faultId,
        kind: rule.kind,
        status: rule.status,
        delayMs: delayOf(rule, random),
        trickleMs: rule.trickleMs,
      };
    }
    return undefined;
  }

  private parse(body: Record<string, unknown>, errors: Record<string, string>): FaultRule {
    const rule: FaultRule = { faultId: "", after: 0, probability: 1, seed: 0, matched: 0, applied: 0 };
    const { operationId, workspaceId, kind, status, latency } = body;
    if (operationId !== undefined) {
      if (typeof operationId !== "string" || !this.operations.has(operationId)) {
        errors.operationId = `must be an operation of the API, one of: ${[...this.operations.keys()].join(", ")}`;
      } else rule.operationId = operationId;
    }
    if (workspaceId !== undefined) {
      if (typeof workspaceId !== "string" || !this.hasWorkspace(workspaceId))
        errors.workspaceId = "must be the id of an existing workspace";
      else rule.workspaceId = workspaceId;
    }
    if (kind !== undefined) {
      if (!FAULT_KINDS.includes(kind as FaultKind)) errors.kind = `must be one of ${FAULT_KINDS.join(", ")}`;
      else rule.kind = kind as FaultKind;
    }
    if (status !== undefined || rule.kind === "status") this.parseStatus(status, rule, errors);
    const delayMs = integerIn(body, "delayMs", 0, MAX_DELAY_MS, errors);
    if (delayMs !== undefined) rule.delayMs = delayMs;
    if (latency !== undefined) {
      if (delayMs !== undefined) errors.latency = "and delayMs exclude each other: give one";
      else {
        const parsed = parseLatency(latency, errors);
        if (parsed) rule.latency = parsed;
      }
    }
    const trickleMs = integerIn(body, "trickleMs", 1, MAX_DELAY_MS, errors);
    if (trickleMs !== undefined && rule.kind !== "slow") errors.trickleMs = "applies to kind slow only";
    if (rule.kind === "slow") rule.trickleMs = trickleMs ?? DEFAULT_TRICKLE_MS;
    const times = integerIn(body, "times", 1, 2 ** 31, errors);
    if (times !== undefined) rule.times = times;
    rule.after = integerIn(body, "after", 0, 2 ** 31, errors) ?? 0;
    const probability = body.probability;
    if (probability !== undefined) {
      if (typeof probability !== "number" || !(probability > 0 && probability <= 1))
        errors.probability = "must be a number above 0 and at most 1";
      else rule.probability = probability;
    }
    // Without a seed one is drawn, and shown: a test can pin it to meet the same faults again.
    rule.seed = integerIn(body, "seed", 0, 4294967295, errors) ?? Math.floor(Math.random() * 4294967296);
    if (
      rule.kind === undefined &&
      rule.delayMs === undefined &&
      rule.latency === undefined &&
      !errors.kind &&
      !errors.status
    ) {
      errors.kind = "is required unless the rule only delays (give kind, status, delayMs or latency)";
    }
    // Shown as asked first, then the defaults and counters.
    const { faultId, after, probability: p, seed, matched, applied, ...given } = rule;
    return { faultId, ...given, after, probability: p, seed, matched, applied };
  }

  /** Only an error status the operation documents (every operation, for a rule without operationId). */
  private parseStatus(status: unknown, rule: FaultRule, errors: Record<string, string>): void {
    if (rule.kind !== undefined && rule.kind !== "status") {
      errors.status = `applies to kind status only, not ${rule.kind}`;
      return;
    }
    const scope = rule.operationId ? [this.operations.get(rule.operationId)!] : [...this.operations.values()];
    const documented = [...scope[0].responses.keys()].filter(
      (s) => s >= 400 && scope.every((op) => op.responses.has(s)),
    );
    const where = rule.operationId
      ? `${rule.operationId} documents`
      : "every operation documents (give operationId for others)";
    if (status === undefined) errors.status = `is required for kind status: one of ${documented.join(", ")}`;
    else if (!Number.isInteger(status) || !documented.includes(status as number))
      errors.status = `must be an error status ${where}: one of ${documented.join(", ")}`;
    else {
      rule.kind = "status";
      rule.status = status as number;
    }
  }
}

function integerIn(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  errors: Record<string, string>,
): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    errors[field] = `must be an integer from ${min} to ${max}`;
    return undefined;
  }
  return value as number;
}

function parseLatency(value: unknown, errors: Record<string, string>): Latency | undefined {
  const fail = (message: string) => void (errors.latency = message);
  if (!value || typeof value !== "object" || Array.isArray(value)) return fail("must be an object with a distribution");
  const l = value as Record<string, unknown>;
  const ms = (name: string, min = 0) =>
    Number.isInteger(l[name]) && (l[name] as number) >= min && (l[name] as number) <= MAX_DELAY_MS;
  const keys = (allowed: string[]) => Object.keys(l).every((k) => k === "distribution" || allowed.includes(k));
  const bound = `integers of milliseconds up to ${MAX_DELAY_MS}`;
  switch (l.distribution) {
    case "fixed":
      if (!keys(["ms"]) || !ms("ms")) return fail(`fixed takes ms: ${bound}`);
      return { distribution: "fixed", ms: l.ms as number };
    case "uniform":
      if (!keys(["minMs", "maxMs"]) || !ms("minMs") || !ms("maxMs") || (l.minMs as number) > (l.maxMs as number))
        return fail(`uniform takes minMs <= maxMs: ${bound}`);
      return { distribution: "uniform", minMs: l.minMs as number, maxMs: l.maxMs as number };
    case "lognormal":
      if (
        !keys(["medianMs", "sigma"]) ||
        !ms("medianMs", 1) ||
        typeof l.sigma !== "number" ||
        !(l.sigma >= 0 && l.sigma <= 3)
      ) {
        return fail(`lognormal takes medianMs (${bound}, at least 1) and sigma (0 to 3)`);
      }
      return { distribution: "lognormal", medianMs: l.medianMs as number, sigma: l.sigma };
    default:
      return fail("distribution must be one of fixed, uniform, lognormal");
  }
}

/** The wait before the fault (or the real answer): the fixed delayMs, or a draw from the rule's latency. */
function delayOf(rule: FaultRule, random: Random): number {
  const latency = rule.latency;
  if (!latency) return rule.delayMs ?? 0;
  switch (latency.distribution) {
    case "fixed":
      return latency.ms;
    case "uniform":
      return Math.round(latency.minMs + random.next() * (latency.maxMs - latency.minMs));
    case "lognormal": {
      // Box-Muller: a standard normal draw from two uniform ones (1 - u keeps the log finite).
      const z = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
      return Math.min(MAX_DELAY_MS, Math.round(latency.medianMs * Math.exp(latency.sigma * z)));
    }
  }
}

/** The error a `status` fault answers with: the status's own text, and which rule sent it. */
export function faultError(fault: Fault, statusText: string): ApiError {
  return new ApiError(fault.status!, `${statusText} (injected by mock fault rule ${fault.faultId})`);
}
