/**
 * The comparison: the suite's rule outcomes side by side, then every probe observation of A with the
 * same one of B. Only what both targets showed is compared: a rule inconclusive or skipped on either
 * side, a probe that got no real answer or whose data could not show the behaviour, is counted as not
 * compared, never reported as a difference. Pure.
 */
import type { RuleResult } from "../lib/runner.js";
import { deepEqual } from "../lib/rule.js";
import { operations } from "../lib/spec.js";
import { KINDS, type Difference, type Json, type Observation } from "./types.js";

/** How many characters of a failed rule's first finding a difference carries. */
const WHY_MAX = 160;

const passedOrFailed = (r: RuleResult) =>
  r.outcome === "passed" ? "passed" : r.outcome === "failed" || r.outcome === "errored" ? "failed" : undefined;

function outcomeOf(r: RuleResult): Json {
  if (r.outcome === "passed") return { outcome: "passed" };
  const first = r.failures[0];
  const why = first
    ? `${first.message} (expected ${first.expected}, got ${first.actual})`
    : (r.error ?? r.reason ?? "");
  return { outcome: r.outcome, why: why.length > WHY_MAX ? `${why.slice(0, WHY_MAX)}...` : why };
}

/** Rules that passed on one target and failed (or crashed) on the other. */
export function compareOutcomes(
  a: RuleResult[],
  b: RuleResult[],
): { differences: Difference[]; compared: number; skippedOnOneSide: string[] } {
  const byId = new Map(b.map((r) => [r.id, r]));
  const differences: Difference[] = [];
  const skippedOnOneSide: string[] = [];
  let compared = 0;
  for (const ra of a) {
    const rb = byId.get(ra.id);
    if (!rb) continue;
    const [oa, ob] = [passedOrFailed(ra), passedOrFailed(rb)];
    if ((ra.outcome === "skipped") !== (rb.outcome === "skipped")) skippedOnOneSide.push(ra.id);
    if (!oa || !ob) continue;
    compared++;
    if (oa !== ob)
      differences.push({
        operationId: ra.operationId,
        kind: "outcome",
        rule: ra.id,
        a: outcomeOf(ra),
        b: outcomeOf(rb),
      });
  }
  return { differences, compared, skippedOnOneSide };
}

const keyOf = (o: Pick<Observation, "operationId" | "kind" | "probe">) =>
  `${o.operationId}\u0000${o.kind}\u0000${o.probe}`;

type Value = NonNullable<Observation["value"]>;

/** The aspects of two error shapes that differ, each side's values. */
function differingAspects(a: Value, b: Value): [Value, Value] | undefined {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differing = keys.filter((k) => !deepEqual(a[k], b[k]));
  if (differing.length === 0) return undefined;
  const pick = (v: Value) => Object.fromEntries(differing.map((k) => [k, v[k] ?? "(absent)"]));
  return [pick(a), pick(b)];
}

const PRESENT: Record<string, string> = { always: "in every record", never: "in none" };

/**
 * Keys one target always sends and the other never does. A key only sometimes present on either side
 * depends on the data; a nested key is compared only where both sides showed its parent as an object.
 */
function fieldDifferences(oa: Observation, a: Value, b: Value): Difference[] {
  const keysA = (a.keys ?? {}) as Record<string, string>;
  const keysB = (b.keys ?? {}) as Record<string, string>;
  const parents = new Set(
    (a.parents as string[] | undefined)?.filter((p) => (b.parents as string[] | undefined)?.includes(p)),
  );
  const out: Difference[] = [];
  for (const key of [...new Set([...Object.keys(keysA), ...Object.keys(keysB)])].sort()) {
    const dot = key.indexOf(".");
    if (dot >= 0 && !parents.has(key.slice(0, dot))) continue;
    const [pa, pb] = [keysA[key] ?? "never", keysB[key] ?? "never"];
    if (pa === pb || pa === "sometimes" || pb === "sometimes") continue;
    out.push({
      operationId: oa.operationId,
      kind: "field",
      a: { probe: oa.probe, field: key, present: PRESENT[pa] },
      b: { probe: oa.probe, field: key, present: PRESENT[pb] },
    });
  }
  return out;
}

/** Probe observations of A against the same ones of B. */
export function compareObservations(
  a: Observation[],
  b: Observation[],
): { differences: Difference[]; compared: number; unobserved: { a: number; b: number } } {
  const byKey = new Map(b.map((o) => [keyOf(o), o]));
  const differences: Difference[] = [];
  let compared = 0;
  for (const oa of a) {
    const ob = byKey.get(keyOf(oa));
    if (!ob || !oa.value || !ob.value) continue;
    compared++;
    if (oa.kind === "field") {
      differences.push(...fieldDifferences(oa, oa.value, ob.value));
      continue;
    }
    const pair =
      oa.kind === "message"
        ? differingAspects(oa.value, ob.value)
        : deepEqual(oa.value, ob.value)
          ? undefined
          : [oa.value, ob.value];
    if (pair)
      differences.push({
        operationId: oa.operationId,
        kind: oa.kind,
        a: { probe: oa.probe, ...pair[0] },
        b: { probe: ob.probe, ...pair[1] },
      });
  }
  const paired = (mine: Observation[], theirs: Observation[]) => {
    const other = new Map(theirs.map((o) => [keyOf(o), o]));
    return mine.filter((o) => !o.value && other.has(keyOf(o))).length;
  };
  return { differences: merge(differences), compared, unobserved: { a: paired(a, b), b: paired(b, a) } };
}

/**
 * Differences of one operation and kind that differ alike (B answers 422 where A answers 400, for
 * size=0 and for size=abc) become one, its probes listed together.
 */
function merge(differences: Difference[]): Difference[] {
  const merged = new Map<string, Difference>();
  const withoutProbe = (v: Json) => {
    const { probe: _probe, ...rest } = v as Record<string, Json>;
    return JSON.stringify(rest);
  };
  for (const d of differences) {
    if (d.kind === "outcome") {
      merged.set(`${merged.size}`, d);
      continue;
    }
    const key = `${d.operationId}\u0000${d.kind}\u0000${withoutProbe(d.a)}\u0000${withoutProbe(d.b)}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, structuredClone(d));
    // Both sides carry the same probe label: list the new one on each.
    else
      for (const side of [seen.a, seen.b] as Record<string, Json>[])
        side.probe = `${side.probe}, ${(d.a as Record<string, Json>).probe}`;
  }
  return [...merged.values()];
}

const OPERATION_ORDER = new Map([...operations.keys()].map((id, i) => [id, i]));

/** Spec order of operations, then outcome, status, message, default, order, field. */
export function sortDifferences(differences: Difference[]): Difference[] {
  const rank = (d: Difference) => [OPERATION_ORDER.get(d.operationId) ?? 999, KINDS.indexOf(d.kind)];
  return [...differences].sort((x, y) => {
    const [rx, ry] = [rank(x), rank(y)];
    return rx[0] - ry[0] || rx[1] - ry[1];
  });
}

/** Differences by kind, every kind listed (zero included). */
export function countByKind(differences: Difference[]): Record<string, number> {
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
  for (const d of differences) counts[d.kind]++;
  return counts;
}
