/**
 * What `agent-platform-conformance parity` reports (DESIGN.md, third round; the names are fixed):
 * `{ differences: [{ operationId, kind, a, b, rule? }] }`. `a` and `b` are short JSON descriptions of
 * what each target showed, normalised so that two targets holding different data but behaving alike
 * show the same thing.
 */
import type { Json } from "../lib/spec.js";

export type { Json };

/** `outcome`: a rule passed on one target and failed on the other; the others are observed by probes. */
export type DifferenceKind = "status" | "order" | "default" | "field" | "message" | "outcome";
export type ObservedKind = Exclude<DifferenceKind, "outcome">;

export const KINDS: readonly DifferenceKind[] = ["outcome", "status", "message", "default", "order", "field"];

export interface Difference {
  operationId: string;
  kind: DifferenceKind;
  /** What A showed; for observed kinds an object whose `probe` names what was sent or looked at. */
  a: Json;
  b: Json;
  /** The rule, for kind `outcome`. */
  rule?: string;
}

/**
 * One thing a probe saw on one target, normalised. The same probe on the other target has the same
 * operationId, kind and probe label, so the two are paired by them.
 */
export interface Observation {
  operationId: string;
  kind: ObservedKind;
  /** What was sent or looked at, the same on both targets: `size=0`, `items of the first page`. */
  probe: string;
  /** The normalised observation; absent when there is nothing to compare (see `unobserved`). */
  value?: { [key: string]: Json };
  /** Why there is no value: no real answer through the environment, or data that cannot show it. */
  unobserved?: string;
}

/** A record a probe created on a target (a body the target accepted, the defaults probe's integration). */
export interface LeftRecord {
  kind: string;
  id: string;
  note: string;
}

/** What one target showed: the suite's rule outcomes and the probes' observations. */
export interface SideResult {
  baseUrl: string;
  /** The kit's mock or a foreign deployment, with why (the suite's detection). */
  target: string;
  ruleCounts: Record<string, number>;
  /** Rules that got no real answer through the environment. */
  inconclusive: string[];
  probes: number;
  observations: Observation[];
  left: LeftRecord[];
  /** The environment the suite and the probes went through, summed. */
  environment: { requests: number; rateLimited: number; gatewayErrors: number; waitedSeconds: number };
  durationMs: number;
  /** Set when SIGINT or SIGTERM stopped the suite on this target before its last rule. */
  interrupted?: string;
}

export interface ParityResult {
  a: SideResult;
  b: SideResult;
  level: string;
  differences: Difference[];
  /** What could not be compared, counted. */
  notCompared: {
    /** Rules inconclusive on A, on B. */
    inconclusive: { a: number; b: number };
    /** Rules that ran on one target and were skipped on the other (fixtures one of them lacks). */
    skippedOnOneSide: string[];
    /** Probe observations with no value on A, on B (the other side's is then not compared either). */
    unobserved: { a: number; b: number };
  };
  rulesCompared: number;
  observationsCompared: number;
  durationMs: number;
}
