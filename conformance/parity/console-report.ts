/**
 * Parity on a terminal: both targets in a line each, the differences grouped by operation (kind, what
 * was probed or the rule, A's and B's), what was not compared and why, the records the probes left,
 * the environment, and the count last.
 */
import {
  byOperation,
  differencesLine,
  environmentLine,
  plural,
  sideLine,
  sideText,
  subject,
  unobservedReasons,
} from "./describe.js";
import type { ParityResult } from "./types.js";

const KIND_WIDTH = 8;
/** At most this many rule ids named on one line. */
const SHOWN = 6;

export function parityConsoleReport(result: ParityResult): string {
  const { a, b } = result;
  const lines: string[] = [`Parity of A ${a.baseUrl} and B ${b.baseUrl} (level ${result.level})`];
  lines.push(`  A: ${a.target}`, `     ${sideLine(a)}`, `  B: ${b.target}`, `     ${sideLine(b)}`);
  for (const [name, side] of [
    ["A", a],
    ["B", b],
  ] as const)
    if (side.interrupted)
      lines.push(`  INTERRUPTED on ${name} (${side.interrupted}): only the rules that ran before are compared`);
  for (const [operationId, differences] of byOperation(result.differences)) {
    lines.push("", operationId);
    for (const d of differences)
      lines.push(`  ${d.kind.padEnd(KIND_WIDTH)} ${subject(d)}: A ${sideText(d, "a")}; B ${sideText(d, "b")}`);
  }
  const n = result.notCompared;
  lines.push(
    "",
    `Not compared: ${plural(n.inconclusive.a, "rule")} inconclusive on A, ${plural(n.inconclusive.b, "rule")} inconclusive on B (no real answer through the environment)`,
  );
  for (const [name, side] of [
    ["A", a],
    ["B", b],
  ] as const)
    if (side.inconclusive.length > 0)
      lines.push(
        `  inconclusive on ${name}: ${side.inconclusive.slice(0, SHOWN).join(", ")}${side.inconclusive.length > SHOWN ? `, ... (+${side.inconclusive.length - SHOWN} more)` : ""}`,
      );
  if (n.skippedOnOneSide.length > 0)
    lines.push(
      `  ${plural(n.skippedOnOneSide.length, "rule")} skipped on one target only (fixtures the other lacks): ${n.skippedOnOneSide.slice(0, SHOWN).join(", ")}${n.skippedOnOneSide.length > SHOWN ? ", ..." : ""}`,
    );
  for (const [name, mine, theirs] of [
    ["A", a, b],
    ["B", b, a],
  ] as const)
    for (const [reason, count] of unobservedReasons(mine.observations, theirs.observations))
      lines.push(`  ${plural(count, "probe")} on ${name} showed nothing to compare: ${reason}`);
  for (const [name, side] of [
    ["A", a],
    ["B", b],
  ] as const)
    for (const record of side.left)
      lines.push(`Left on ${name} by the probes: ${record.kind} ${record.id} (${record.note})`);
  lines.push(`Environment: A ${environmentLine(a)}; B ${environmentLine(b)}`);
  lines.push("", `${differencesLine(result)} (${(result.durationMs / 1000).toFixed(1)} s)`);
  return lines.join("\n");
}
