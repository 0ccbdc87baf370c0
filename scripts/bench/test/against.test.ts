/**
 * `--against REV`'s runner (against.ts) with made-up parts: the order of the sides in each round, the
 * baselines, a part that fails on REV, and the lines printed. No worktree, no process, no load.
 */
import { describe, expect, it } from "vitest";
import { measureAgainst, reportAgainst, type AgainstPart, type Revision } from "../against.js";
import { root } from "../children.js";
import { runBench } from "../run.js";

const revision: Revision = { name: "HEAD~1", commit: "0".repeat(40), root: "/tmp/rev-kit", remove: async () => {} };

describe("measureAgainst", () => {
  it("runs this tree and REV in turn, A B then B A, baselines first, and keeps every round", async () => {
    const calls: string[] = [];
    const parts: Record<string, AgainstPart> = {
      one: {
        title: "1. one",
        measure: async (kit) => {
          calls.push(kit === root ? "now" : kit);
          return { rps: kit === root ? 110 : 100 };
        },
        baseline: (round) => (round === 0 ? (calls.push("baseline"), Promise.resolve({ rps: 200 })) : undefined),
      },
    };
    const record = await measureAgainst(parts, revision, 3, () => undefined);
    expect(calls).toEqual(["baseline", "now", "/tmp/rev-kit", "/tmp/rev-kit", "now", "now", "/tmp/rev-kit"]);
    expect(record.one).toEqual({
      now: [{ rps: 110 }, { rps: 110 }, { rps: 110 }],
      then: [{ rps: 100 }, { rps: 100 }, { rps: 100 }],
      baseline: [{ rps: 200 }],
    });
  });

  it("leaves a part that fails out of the later rounds, goes on with the others, and says why", async () => {
    let later = 0;
    const parts: Record<string, AgainstPart> = {
      failing: {
        title: "9. new feature",
        measure: async (kit) => {
          if (kit !== root) throw new Error("Cannot find module dist/mock-server/core/coverage/observe.js\nstack");
          return { ms: 1 };
        },
      },
      later: { title: "10. later", measure: async () => ({ n: ++later }) },
    };
    const record = await measureAgainst(parts, revision, 2, () => undefined);
    expect(record.failing).toEqual({
      now: [{ ms: 1 }],
      then: [],
      baseline: [],
      failed: "round 1/2: Cannot find module dist/mock-server/core/coverage/observe.js",
    });
    expect(record.later.now.length + record.later.then.length).toBe(4);
    const lines = reportAgainst(parts, record, "HEAD~1");
    expect(lines).toContain("  failed in round 1/2: Cannot find module dist/mock-server/core/coverage/observe.js");
    expect(lines).toContain("  ms  now / HEAD~1: 1.00 / n/a (n/a), spread 1.00–1.00 / n/a");
  });

  it("prints baselines and each figure as now / REV", () => {
    const parts: Record<string, AgainstPart> = { one: { title: "1. one" } };
    const lines = reportAgainst(
      parts,
      { one: { now: [{ rps: 110 }, { rps: 120 }], then: [{ rps: 100 }, { rps: 100 }], baseline: [{ bare: 200 }] } },
      "main",
    );
    expect(lines).toEqual([
      "",
      "1. one (2 / 2 round(s) as now / main)",
      "  baseline: bare  200",
      "  rps  now / main: 115 / 100 (+15.0 %), spread 110–120 / 100–100",
    ]);
  });
});

describe("runBench --against", () => {
  it("refuses a part it cannot run on two revisions before building anything", async () => {
    await expect(runBench(["--against", "HEAD", "--only", "compare,scale"], () => undefined)).rejects.toThrow(
      /--only with --against takes some of compare, msw, .*, not scale/,
    );
  });
});
