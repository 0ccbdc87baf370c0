/**
 * Fault injection: the suite is run through a proxy that plays ONE realistic fault of a deployment
 * at a time (conformance/test/faults/table.ts) and must fail with at least one failing rule; played
 * with no fault, or with a legitimate variation (faults/variations.ts), it must pass.
 * Each fault runs the rules its row names (--only) at the lowest level expected to catch it; the
 * whole-suite catch rate is printed by `npx tsx conformance/test/faults/measure.ts`.
 * The ~200 runs go to two lanes (faults/lanes.ts: child processes, a mock each), so they use both
 * cores; the tests are concurrent only to keep both lanes fed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLanes, type Lanes } from "./faults/lanes.js";
import { faults } from "./faults/table.js";
import { variations } from "./faults/variations.js";
import { hasMock, NO_MOCK } from "./support.js";

/** Two lanes for two cores; a test may wait in the queue behind others, hence the generous timeouts. */
const LANES = 2;
const QUEUED = 600_000;

describe.skipIf(!hasMock)(`fault injection${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let lanes: Lanes;
  beforeAll(async () => void (lanes = await startLanes(LANES)), 60_000);
  afterAll(async () => lanes?.close());

  it("holds at least 40 faults", () => expect(faults.length).toBeGreaterThanOrEqual(40));

  describe.concurrent("no false alarm", () => {
    it.for(["documented", "assumed"])(
      "the unbroken mock, through the proxy, passes at level %s",
      { timeout: QUEUED },
      async (level, { expect }) => {
        const { code, failed } = await lanes.run("none", ["--level", level]);
        expect(failed).toEqual([]);
        expect(code).toBe(0);
      },
    );

    it.for(variations.map((v) => [v.id, v] as const))(
      "legitimate variation %s passes",
      { timeout: QUEUED },
      async ([_id, variation], { expect }) => {
        // Every level's run at once: the lanes take them side by side.
        const levels = variation.levels ?? ["documented", "assumed"];
        const runs = await Promise.all(
          levels.map((level) =>
            lanes.run(
              { variation: variation.id },
              ["--level", level, ...(variation.only ? ["--only", variation.only] : [])],
              variation.prefix,
            ),
          ),
        );
        for (const [i, { code, failed }] of runs.entries()) {
          expect(failed, `${variation.description} at level ${levels[i]}`).toEqual([]);
          expect(code).toBe(0);
        }
      },
    );
  });

  describe.concurrent("every fault is caught", () => {
    it.for(faults.map((f) => [f.id, f] as const))("%s", { timeout: QUEUED }, async ([_id, fault], { expect }) => {
      const { code, failed } = await lanes.run({ fault: fault.id }, ["--level", fault.level, "--only", fault.only]);
      expect(
        failed.length,
        `${fault.description}: no rule of --only ${fault.only} failed at level ${fault.level}`,
      ).toBeGreaterThan(0);
      expect(code).toBe(1);
    });
  });
});
