/**
 * The order files start in: the few that take minutes first, then Vitest's own order. With one worker
 * per core the run ends when its last file does; Vitest starts the files it has timed longest first,
 * but a fresh clone (CI) has no timings, and then it starts the largest files first, which leaves a
 * small file that runs for minutes (fault-injection.test.ts: its table is elsewhere) to the end.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Longest first, as a fresh clone's `npm test` measured them (vitest's per-file durations, 2026-11-29). */
export const SLOW_FILES = [
  "conformance/test/fault-injection.test.ts",
  "scripts/test/spec-leads.test.ts",
  "scripts/test/package.test.ts",
  "scripts/bench/bench.test.ts",
  "scripts/test/scaffold.test.ts",
  "mock-server/test/shared-store/shared-replicas.test.ts",
  "conformance/test/parity.test.ts",
  "conformance/test/gateway-runs.test.ts",
  "scripts/test/tooling.test.ts",
  "mock-server/test/spec/spec-watch.test.ts",
];

const rankOf = (spec: TestSpecification) => {
  const rank = SLOW_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return rank < 0 ? SLOW_FILES.length : rank;
};

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the rest keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rankOf(a) - rankOf(b));
  }
}
