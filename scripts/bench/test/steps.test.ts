/**
 * The bench's step runner (steps.ts): one lane logs each step in the open, as the full bench did; more
 * lanes run steps at once and print each step's lines together; a failing step starts no further one.
 * No process, no load: made-up steps that wait on promises the test settles.
 */
import { describe, expect, it } from "vitest";
import { runSteps, step } from "../steps.js";

/** A promise and the function that settles it. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const time = /^ {2}\(\d+\.\d s\)$/;

describe("runSteps", () => {
  it("runs one step after the other on one lane, its lines as they come", async () => {
    const lines: string[] = [];
    const results = await runSteps(
      {
        a: step("A", async (log) => (log("  a's line"), 1)),
        b: step("B", async () => "two"),
      },
      1,
      (line) => lines.push(line),
    );
    expect(results).toEqual({ a: 1, b: "two" });
    expect(lines.map((line) => line.replace(time, "time"))).toEqual(["A...", "  a's line", "time", "B...", "time"]);
  });

  it("runs steps side by side on two lanes and prints each step's lines together when it ends", async () => {
    const lines: string[] = [];
    const first = gate();
    const started: string[] = [];
    const results = await runSteps(
      {
        slow: step("slow", async (log) => {
          started.push("slow");
          log("  slow, before");
          await first.opened;
          log("  slow, after");
          return "s";
        }),
        fast: step("fast", async (log) => {
          started.push("fast");
          log("  fast's line");
          // Both lanes busy: the third step waits for one of them.
          expect(started).toEqual(["slow", "fast"]);
          first.open();
          return "f";
        }),
        last: step("last", async () => void started.push("last")),
      },
      2,
      (line) => lines.push(line),
    );
    expect(results).toEqual({ slow: "s", fast: "f", last: undefined });
    expect(started).toEqual(["slow", "fast", "last"]);
    expect(lines.map((line) => line.replace(time, "time"))).toEqual([
      "fast...",
      "  fast's line",
      "time",
      "slow...",
      "  slow, before",
      "  slow, after",
      "time",
      "last...",
      "time",
    ]);
  });

  it("fails with a failing step's error, starts no further step and prints what the failed step logged", async () => {
    const lines: string[] = [];
    const started: string[] = [];
    const run = runSteps(
      {
        broken: step("broken", async (log) => {
          started.push("broken");
          log("  about to fail");
          throw new Error("no mock");
        }),
        waiting: step("waiting", async () => void started.push("waiting")),
        never: step("never", async () => void started.push("never")),
      },
      2,
      (line) => lines.push(line),
    );
    await expect(run).rejects.toThrow("no mock");
    // "waiting" had its lane already; "never" was still queued when "broken" failed.
    expect(started).toEqual(["broken", "waiting"]);
    expect(lines.slice(0, 2)).toEqual(["broken...", "  about to fail"]);
  });
});
