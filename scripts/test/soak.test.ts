/**
 * The short version of `npm run soak` (the long run is 60 s at 64 connections): a few seconds of
 * mixed reads and writes over every operation against the mock in a child process. It asserts what
 * does not depend on the machine: no errors, and the journal and the outbox filled to their caps and
 * no further. Memory and speed are only printed by the long run.
 */
import { describe, expect, it } from "vitest";
import { Clock } from "../../mock-server/core/clock.js";
import { soakReport } from "../soak/report.js";
import { runSoak } from "../soak/run.js";

describe("npm run soak, short", () => {
  it("answers every request of the mix with 2xx, and keeps the journal and the outbox within their caps", async () => {
    const result = await runSoak({
      durationSec: 3,
      connections: 8,
      warmupSec: 1,
      journalSize: 50,
      outboxSize: 40,
      resetEverySec: 1,
      workspaces: 2,
      clockSpeed: 60,
    });
    const report = soakReport(result);
    expect(result.requests, report).toBeGreaterThan(0);
    expect(result.errors.total, report).toBe(0);
    // Every operation was answered: the mix holds all 17 and a connection loops over all of them.
    expect(
      Object.keys(result.statusCodes).every((code) => code.startsWith("2")),
      report,
    ).toBe(true);
    expect(result.journal.max, report).toBe(50);
    expect(result.outbox.max, report).toBe(40);
    expect(result.exitCode, report).toBe(0);
  }, 90_000);
});

describe("what the soak found", () => {
  it("real time runs a due task while an earlier task's async work is still pending (the queue used to wait on each)", async () => {
    const clock = new Clock({ mode: "real", speed: 1000 });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let ran!: () => void;
    const laterRan = new Promise<void>((resolve) => (ran = resolve));
    clock.schedule(clock.nowMs() + 10, () => slow);
    clock.schedule(clock.nowMs() + 20, () => ran());
    // Before the fix this waited for `slow`, which is released only afterwards: the test timed out.
    await laterRan;
    release();
    clock.stop();
  });
});
