/**
 * One lane of the fault-injection test, run as a child process (faults/lanes.ts forks it): a mock of
 * its own, and runs of the suite through the fault proxy asked for over IPC, one at a time. Lanes
 * let the test's ~200 runs use both cores; each lane's runs go one after the other on its own mock, as
 * they did on the test's one mock.
 */
import { startMock } from "../../../mock-server/server.js";
import type { FaultHooks } from "./proxy.js";
import { runThrough } from "./run-fault.js";
import { faults } from "./table.js";
import { variations } from "./variations.js";

/** Which hooks the proxy plays, by id: the hooks are functions and stay in the lane. */
export type LaneHooks = { fault: string } | { variation: string } | "none";

export interface LaneJob {
  id: number;
  hooks: LaneHooks;
  argv: string[];
  prefix?: string;
}

export type LaneAnswer = { id: number; code: number; failed: string[] } | { id: number; error: string };

function hooksOf(which: LaneHooks): FaultHooks {
  if (which === "none") return {};
  const found =
    "fault" in which ? faults.find((f) => f.id === which.fault) : variations.find((v) => v.id === which.variation);
  if (!found) throw new Error(`no fault or variation ${JSON.stringify(which)}`);
  return found.hooks();
}

const send = (message: unknown) => process.send?.(message);

if (process.send) {
  const mock = await startMock({ port: 0, host: "127.0.0.1", log: () => undefined });
  // The test's process is gone (or done): nothing is left to run for.
  process.on("disconnect", () => void mock.close().finally(() => process.exit(0)));
  process.on("message", async (job: LaneJob) => {
    try {
      const { code, failed } = await runThrough(mock, hooksOf(job.hooks), job.argv, job.prefix);
      send({ id: job.id, code, failed } satisfies LaneAnswer);
    } catch (error) {
      send({ id: job.id, error: (error as Error).stack ?? String(error) } satisfies LaneAnswer);
    }
  });
  send("ready");
}
