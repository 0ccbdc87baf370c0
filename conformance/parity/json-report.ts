/**
 * Parity as JSON (the shape is an interface: ../shared/DESIGN.md): `differences` exactly as compared,
 * `a` and `b` the two base URLs, and a `summary` of what was compared, what was not, the records the
 * probes left and the environment. No key appears in it.
 */
import { countByKind } from "./compare.js";
import type { ParityResult, SideResult } from "./types.js";

function sideSummary(side: SideResult) {
  return {
    target: side.target,
    rules: side.ruleCounts,
    inconclusive: side.inconclusive,
    probes: side.probes,
    left: side.left,
    environment: side.environment,
    durationMs: side.durationMs,
  };
}

export function parityJsonReport(result: ParityResult): string {
  return `${JSON.stringify(
    {
      differences: result.differences,
      a: result.a.baseUrl,
      b: result.b.baseUrl,
      summary: {
        level: result.level,
        differences: countByKind(result.differences),
        rulesCompared: result.rulesCompared,
        observationsCompared: result.observationsCompared,
        notCompared: result.notCompared,
        sides: { a: sideSummary(result.a), b: sideSummary(result.b) },
        durationMs: result.durationMs,
      },
    },
    null,
    2,
  )}\n`;
}
