/**
 * Part 2, for the record: the MSW door (createMockHandlers + msw's setupServer in Node) under the
 * same two GET requests as part 1, in a child process of its own (msw-door.ts) that drives its own
 * load: `connections` concurrent fetch loops, warm-up then the measured run, as autocannon does for
 * the socket targets. The child's CPU time is read from /proc around the measured run, as for them.
 * Beside it, in the same run and interleaved with it (door, bare, door, bare...), its baseline: bare
 * msw handlers answering the door's own bytes and headers as constants (msw-bare.ts), driven the same
 * way; each row gives the door / bare ratio. Not comparable with the socket targets: there is no
 * socket, and the client (fetch) and the interception run in the mock's own process, on its one
 * JavaScript thread.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ask, cpuMsOf, root, TSX_EXEC_ARGV } from "./children.js";
import { formatCell } from "./compare.js";
import { median } from "./figures.js";
import type { BenchRequest, LoadOptions, LoadResult } from "./load.js";

/** A reserved name (RFC 2606): nothing can answer there but the handlers. */
export const MSW_BASE_URL = "http://mock.bench.invalid";
/** The requests of the side-by-side table measured through this door. */
export const MSW_SCENARIOS = ["GET /v1/calls?page=0&size=10", "GET /v1/calls/{callId}"];

export type MswMessage =
  | { op: "run"; scenario: string; options: LoadOptions; measured: boolean }
  | { op: "capture"; scenario: string };

/** The door's answer to a scenario's request, as the bare handlers repeat it (GET requests: no body). */
export interface MswAnswer {
  scenario: string;
  request: BenchRequest;
  status: number;
  headers: [string, string][];
  bodyBase64: string;
}

export interface MswRun {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

export interface MswRow {
  scenario: string;
  /** The door. */
  cell: LoadResult;
  /** Bare msw handlers answering the same bytes, measured beside it (absent in figures saved before). */
  bare?: LoadResult;
  /** door / bare: of requests per second (below 1: the door is slower), of CPU per request (above 1: it costs more). */
  ratio?: { rps: number; cpuUs?: number };
}

interface MswChild {
  child: ChildProcess;
  scenarios: string[];
  stop(): Promise<void>;
}

const DOOR = fileURLToPath(new URL("./msw-door.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./msw-bare.ts", import.meta.url));

/**
 * A child of part 2, once it says it is ready. `kit`: the built kit whose door runs (--against,
 * against.ts); this tree's sources when absent. `first`: a message it needs before it can be ready.
 */
function startMswChild(script: string, args: string[], first?: object): Promise<MswChild> {
  // NODE_ENV unset, as for (c): the handlers' options say what runs, nothing reads the environment.
  const child = fork(script, args, {
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
      () => void stop().then(() => reject(new Error(`${script} gave no sign of life in 60 s:\n${output.join("")}`))),
      60_000,
    );
    child.once("message", (message: { ready: boolean; scenarios: string[] }) => {
      clearTimeout(timer);
      resolve({ child, scenarios: message.scenarios, stop });
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${child.exitCode}:\n${output.join("")}`));
    });
    if (first) child.send(first);
  });
}

/** One run of `scenario` in `target`; measured runs get the child's CPU time per request from /proc. */
async function runIn(target: MswChild, scenario: string, options: LoadOptions, measured: boolean): Promise<LoadResult> {
  const pid = target.child.pid;
  const before = cpuMsOf(pid);
  const figures = await ask<MswRun>(target.child, { op: "run", scenario, options, measured } satisfies MswMessage);
  const after = cpuMsOf(pid);
  const cpuUs =
    before === undefined || after === undefined || figures.requests === 0
      ? undefined
      : ((after - before) * 1000) / figures.requests;
  return { ...figures, cpuUs };
}

/** Several rounds' runs as one: the median of each figure, the sums of the counts. */
function medianCell(runs: LoadResult[]): LoadResult {
  const of = (pick: (r: LoadResult) => number | undefined) => median(runs.map(pick).filter((v) => v !== undefined));
  const cpuUs = of((r) => r.cpuUs);
  return {
    rps: of((r) => r.rps),
    ...(Number.isFinite(cpuUs) && { cpuUs }),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
  };
}

function ratioOf(door: LoadResult, bare: LoadResult): MswRow["ratio"] {
  const cpuUs = door.cpuUs !== undefined && bare.cpuUs ? door.cpuUs / bare.cpuUs : undefined;
  return { rps: door.rps / bare.rps, ...(cpuUs !== undefined && { cpuUs }) };
}

export function formatRatio(ratio: MswRow["ratio"]): string {
  if (!ratio) return "";
  return `${ratio.rps.toFixed(2)}x req/s, ${(ratio.cpuUs ?? Number.NaN).toFixed(2)}x CPU/req`;
}

/**
 * Part 2: each request through the door and through bare handlers serving its bytes, `rounds` times
 * each, alternating (door, bare, door, bare...) so that a drift in the machine's load falls on both.
 */
export async function measureMswDoor(
  options: LoadOptions,
  log: (line: string) => void,
  kit?: string,
  rounds = 1,
): Promise<MswRow[]> {
  const door = await startMswChild(DOOR, kit ? [kit] : []);
  let bare: MswChild | undefined;
  try {
    for (const scenario of MSW_SCENARIOS)
      if (!door.scenarios.includes(scenario)) throw new Error(`the MSW door has no scenario ${scenario}`);
    const answers: MswAnswer[] = [];
    for (const scenario of MSW_SCENARIOS)
      answers.push(await ask<MswAnswer>(door.child, { op: "capture", scenario } satisfies MswMessage));
    bare = await startMswChild(BARE, [], { answers });
    const rows: MswRow[] = [];
    for (const scenario of MSW_SCENARIOS) {
      if (options.warmupSec > 0 && !options.amount) {
        await runIn(door, scenario, options, false);
        await runIn(bare, scenario, options, false);
      }
      const doorRuns: LoadResult[] = [];
      const bareRuns: LoadResult[] = [];
      for (let round = 0; round < rounds; round++) {
        doorRuns.push(await runIn(door, scenario, options, true));
        bareRuns.push(await runIn(bare, scenario, options, true));
      }
      const cell = medianCell(doorRuns);
      const bareCell = medianCell(bareRuns);
      const ratio = ratioOf(cell, bareCell);
      log(`  ${scenario.padEnd(40)} ${"MSW setupServer, fetch in-process".padEnd(62)} ${formatCell(cell)}`);
      log(`  ${scenario.padEnd(40)} ${"bare msw handlers, the same bytes".padEnd(62)} ${formatCell(bareCell)}`);
      log(`  ${scenario.padEnd(40)} ${"door / bare".padEnd(62)} ${formatRatio(ratio)}`);
      rows.push({ scenario, cell, bare: bareCell, ratio });
    }
    return rows;
  } finally {
    await Promise.all([door.stop(), bare?.stop()]);
  }
}
