/**
 * Part 2, for the record: the MSW door (createMockHandlers + msw's setupServer in Node) under the
 * same two GET requests as part 1, in a child process of its own (msw-door.ts) that drives its own
 * load: `connections` concurrent fetch loops, warm-up then the measured run, as autocannon does for
 * the socket targets. The child's CPU time is read from /proc around the measured run, as for them.
 * Not comparable with the socket targets: there is no socket, and the client (fetch) and the
 * interception run in the mock's own process, on its one JavaScript thread.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ask, cpuMsOf, root, TSX_EXEC_ARGV } from "./children.js";
import { formatCell } from "./compare.js";
import type { LoadOptions, LoadResult } from "./load.js";

/** A reserved name (RFC 2606): nothing can answer there but the handlers. */
export const MSW_BASE_URL = "http://mock.bench.invalid";
/** The requests of the side-by-side table measured through this door. */
export const MSW_SCENARIOS = ["GET /v1/calls?page=0&size=10", "GET /v1/calls/{callId}"];

export type MswMessage = { op: "run"; scenario: string; options: LoadOptions; measured: boolean };

export interface MswRun {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

export interface MswRow {
  scenario: string;
  cell: LoadResult;
}

const CHILD = fileURLToPath(new URL("./msw-door.ts", import.meta.url));

/** `kit`: the built kit whose door runs (--against, against.ts); this tree's sources when absent. */
function startDoor(kit?: string): Promise<{ child: ChildProcess; scenarios: string[]; stop(): Promise<void> }> {
  // NODE_ENV unset, as for (c): the handlers' options say what runs, nothing reads the environment.
  const child = fork(CHILD, kit ? [kit] : [], {
    cwd: root,
    env: { ...process.env, NODE_ENV: undefined },
    execArgv: TSX_EXEC_ARGV,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => void (output.push(chunk.toString()), output.length > 50 && output.shift());
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => void stop().then(() => reject(new Error(`the MSW door gave no sign of life in 60 s:\n${output.join("")}`))),
      60_000,
    );
    child.once("message", (message: { ready: boolean; scenarios: string[] }) => {
      clearTimeout(timer);
      resolve({ child, scenarios: message.scenarios, stop });
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the MSW door exited with ${child.exitCode}:\n${output.join("")}`));
    });
  });
}

export async function measureMswDoor(
  options: LoadOptions,
  log: (line: string) => void,
  kit?: string,
): Promise<MswRow[]> {
  const door = await startDoor(kit);
  try {
    const rows: MswRow[] = [];
    for (const scenario of MSW_SCENARIOS) {
      if (!door.scenarios.includes(scenario)) throw new Error(`the MSW door has no scenario ${scenario}`);
      const run = (measured: boolean) =>
        ask<MswRun>(door.child, { op: "run", scenario, options, measured } satisfies MswMessage);
      if (options.warmupSec > 0 && !options.amount) await run(false);
      const pid = door.child.pid;
      const before = cpuMsOf(pid);
      const figures = await run(true);
      const after = cpuMsOf(pid);
      const cpuUs =
        before === undefined || after === undefined || figures.requests === 0
          ? undefined
          : ((after - before) * 1000) / figures.requests;
      const cell: LoadResult = { ...figures, cpuUs };
      log(`  ${scenario.padEnd(40)} ${"MSW setupServer, fetch in-process".padEnd(62)} ${formatCell(cell)}`);
      rows.push({ scenario, cell });
    }
    return rows;
  } finally {
    await door.stop();
  }
}
