/**
 * Fault injection: the suite is run through a proxy that plays ONE realistic fault of a deployment
 * at a time (conformance/test/faults/table.ts) and must fail with at least one failing rule; played
 * with no fault, or with a legitimate variation (faults/variations.ts), it must pass.
 * Each fault runs the rules its row names (--only) at the lowest level expected to catch it; the
 * whole-suite catch rate is printed by `npx tsx conformance/test/faults/measure.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runThrough } from "./faults/run-fault.js";
import { faults } from "./faults/table.js";
import { variations } from "./faults/variations.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

describe.skipIf(!hasMock)(`fault injection${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => mock?.close());

  it("holds at least 40 faults", () => expect(faults.length).toBeGreaterThanOrEqual(40));

  describe("no false alarm", () => {
    it.each(["documented", "assumed"])("the unbroken mock, through the proxy, passes at level %s", async (level) => {
      const { code, failed } = await runThrough(mock, {}, ["--level", level]);
      expect(failed).toEqual([]);
      expect(code).toBe(0);
    });

    it.each(variations.map((v) => [v.id, v] as const))("legitimate variation %s passes", async (_id, variation) => {
      for (const level of variation.levels ?? ["documented", "assumed"]) {
        const { code, failed } = await runThrough(
          mock,
          variation.hooks(),
          ["--level", level, ...(variation.only ? ["--only", variation.only] : [])],
          variation.prefix,
        );
        expect(failed, `${variation.description} at level ${level}`).toEqual([]);
        expect(code).toBe(0);
      }
    });
  });

  describe("every fault is caught", () => {
    it.each(faults.map((f) => [f.id, f] as const))("%s", async (_id, fault) => {
      const { code, failed } = await runThrough(mock, fault.hooks(), ["--level", fault.level, "--only", fault.only]);
      expect(
        failed.length,
        `${fault.description}: no rule of --only ${fault.only} failed at level ${fault.level}`,
      ).toBeGreaterThan(0);
      expect(code).toBe(1);
    });
  });
});
