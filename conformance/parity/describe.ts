/**
 * Differences and what was not compared, in words: shared by the console and the HTML page so the two
 * say the same thing. The JSON report carries the data itself.
 */
import { KINDS, type Difference, type Json, type Observation, type ParityResult, type SideResult } from "./types.js";

const text = (v: Json | undefined): string =>
  v === undefined ? "(absent)" : typeof v === "string" ? v : JSON.stringify(v);

/** One side of a difference without its probe label: `400`, `path: (absent)`. */
export function sideText(d: Difference, side: "a" | "b"): string {
  const value = d[side];
  if (!value || typeof value !== "object" || Array.isArray(value)) return text(value);
  const { probe: _probe, ...rest } = value as Record<string, Json>;
  if (d.kind === "field") return text(rest.present);
  if (d.kind === "outcome") return rest.why ? `${text(rest.outcome)}: ${text(rest.why)}` : text(rest.outcome);
  const entries = Object.entries(rest);
  // A message difference always says which aspect (path, error, ...); a lone status or order needs no name.
  if (entries.length === 1 && d.kind !== "message") return text(entries[0][1]);
  return entries.map(([k, v]) => `${k}: ${text(v)}`).join(", ");
}

/** What the difference is about: the rule, or the probe (and the field, for `field`). */
export function subject(d: Difference): string {
  if (d.kind === "outcome") return d.rule ?? "";
  const a = d.a as Record<string, Json>;
  return d.kind === "field" ? `${text(a.probe)}: ${text(a.field)}` : text(a.probe);
}

/** Differences grouped by operation, in the order given (sortDifferences: the spec's). */
export function byOperation(differences: Difference[]): [string, Difference[]][] {
  const groups = new Map<string, Difference[]>();
  for (const d of differences) groups.set(d.operationId, [...(groups.get(d.operationId) ?? []), d]);
  return [...groups];
}

/** `3 differences (1 outcome, 1 status, 1 order) in 2 operations`. */
export function differencesLine(result: ParityResult): string {
  const { differences } = result;
  if (differences.length === 0)
    return `No differences: A and B behave alike in the ${result.rulesCompared} rules and ${result.observationsCompared} observations compared`;
  const kinds = KINDS.map((k) => [k, differences.filter((d) => d.kind === k).length] as const).filter(([, n]) => n > 0);
  const operations = new Set(differences.map((d) => d.operationId)).size;
  return `${plural(differences.length, "difference")} (${kinds.map(([k, n]) => `${n} ${k}`).join(", ")}) in ${plural(operations, "operation")}`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The reasons probes of one side had nothing to compare (only those the other side also sent), counted. */
export function unobservedReasons(mine: Observation[], theirs: Observation[]): [string, number][] {
  const key = (o: Observation) => `${o.operationId}\u0000${o.kind}\u0000${o.probe}`;
  const other = new Set(theirs.map(key));
  const reasons = new Map<string, number>();
  for (const o of mine)
    if (!o.value && o.unobserved && other.has(key(o))) reasons.set(o.unobserved, (reasons.get(o.unobserved) ?? 0) + 1);
  return [...reasons].sort(([, x], [, y]) => y - x);
}

/** `166 rules: 160 passed, 2 failed, 4 skipped; 85 probes; 12.3 s`. */
export function sideLine(side: SideResult): string {
  const order = ["passed", "failed", "errored", "inconclusive", "skipped"];
  const total = Object.values(side.ruleCounts).reduce((x, y) => x + y, 0);
  const rules = order
    .filter((o) => side.ruleCounts[o])
    .map((o) => `${side.ruleCounts[o]} ${o}`)
    .join(", ");
  return `${plural(total, "rule")}${rules ? `: ${rules}` : ""}; ${plural(side.probes, "probe")}; ${(side.durationMs / 1000).toFixed(1)} s`;
}

/** `700 requests, 12 rate-limited (waited 3.1 s), 2 gateway errors`. */
export function environmentLine(side: SideResult): string {
  const e = side.environment;
  return `${plural(e.requests, "request")}, ${e.rateLimited} rate-limited${e.waitedSeconds > 0 ? ` (waited ${e.waitedSeconds} s)` : ""}, ${plural(e.gatewayErrors, "gateway error")}`;
}
