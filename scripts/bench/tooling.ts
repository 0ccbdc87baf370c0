/**
 * Part 4: start time to the first 200 (the mock on /__mock/health, Prism on a documented GET), the
 * duration of `npm run generate` (in a throwaway copy of the repo, so the working tree is never
 * rewritten), and a full conformance run against a local mock, each timed as the whole command.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, root, startChild, TSX_EXEC_ARGV } from "./children.js";
import { percentile } from "./load.js";
import { MOCK_API_KEY, startMockTarget, startPrismTarget } from "./targets.js";

export interface StartFigures {
  /** Milliseconds from spawn to the first 200, one per sample. */
  mock: number[];
  npmStart: number[];
  prism: number[];
  /** CPU milliseconds the process had used by its first 200 (all its threads), one per sample. */
  mockCpu: number[];
  prismCpu: number[];
}

export interface ToolingFigures {
  generateMs: number;
  generateIdentical: boolean;
  conformanceMs: number;
  conformanceExit: number;
  conformanceSummary: string;
}

export const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** Starts and stops a server `samples` times, one after the other: spawn-to-first-200 times and CPU used by then. */
export async function timeStart(
  start: () => Promise<{ readyMs: number; readyCpuMs?: number; stop(): Promise<void> }>,
  samples: number,
): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < samples; i++) {
    const child = await start();
    wall.push(child.readyMs);
    if (child.readyCpuMs !== undefined) cpu.push(child.readyCpuMs);
    await child.stop();
  }
  return { wall, cpu };
}

async function npmStart(kit?: string) {
  const port = await freePort();
  return startChild({
    name: "npm start",
    cwd: kit,
    command: "npm",
    args: ["start", "--", "--port", String(port)],
    group: true,
    url: `http://127.0.0.1:${port}`,
    readyPath: "/__mock/health",
  });
}

/** The mock exactly as `npm start` runs it, without npm's and tsx's launchers: node with tsx's loader. */
async function mockProcess(kit?: string) {
  const port = await freePort();
  return startChild({
    name: "mock",
    cwd: kit,
    args: [...TSX_EXEC_ARGV, "mock-server/main.ts", "--port", String(port)],
    url: `http://127.0.0.1:${port}`,
    readyPath: "/__mock/health",
  });
}

/**
 * `kit`: the kit whose mock starts, run in its own folder (this checkout by default, REV's worktree under
 * --against). `prism: false` leaves Prism out (--against times it once, as a baseline).
 */
export async function measureStarts(
  samples: number,
  warm: boolean,
  { kit, prism: withPrism = true }: { kit?: string; prism?: boolean } = {},
): Promise<StartFigures> {
  // One start first, not counted: it fills tsx's transform cache as any earlier `npm start` would.
  if (warm) await (await mockProcess(kit)).stop();
  const mock = await timeStart(() => mockProcess(kit), samples);
  const npm = await timeStart(() => npmStart(kit), samples);
  const prism = withPrism ? await timeStart(startPrismTarget, samples) : { wall: [], cpu: [] };
  return { mock: mock.wall, npmStart: npm.wall, prism: prism.wall, mockCpu: mock.cpu, prismCpu: prism.cpu };
}

const run = promisify(execFile);

async function sameFiles(a: string, b: string): Promise<boolean> {
  const names = (await readdir(a)).sort();
  if (names.join() !== (await readdir(b)).sort().join()) return false;
  for (const name of names)
    if ((await readFile(path.join(a, name), "utf8")) !== (await readFile(path.join(b, name), "utf8"))) return false;
  return true;
}

export async function measureTooling(): Promise<ToolingFigures> {
  const copy = await mkdtemp(path.join(tmpdir(), "bench-generate-"));
  let generateMs: number;
  let generateIdentical: boolean;
  try {
    // scripts/lib compiles the validators with the mock's own ajv setup (mock-server/core/openapi-ajv.ts).
    for (const entry of ["spec", "generated", "scripts/generate.ts", "scripts/lib", "mock-server/core", "package.json"])
      await cp(path.join(root, entry), path.join(copy, entry), { recursive: true });
    await symlink(path.join(root, "node_modules"), path.join(copy, "node_modules"), "dir");
    await rm(path.join(copy, "generated"), { recursive: true });
    const started = performance.now();
    await run("npm", ["run", "generate"], { cwd: copy });
    generateMs = performance.now() - started;
    generateIdentical = await sameFiles(path.join(copy, "generated"), path.join(root, "generated"));
  } finally {
    await rm(copy, { recursive: true, force: true });
  }

  // NODE_ENV=production as in earlier runs of this bench, so the figure stays comparable with them.
  const mock = await startMockTarget({ config: "production" });
  try {
    const started = performance.now();
    let exit = 0;
    let output = "";
    try {
      output = (
        await run("npm", ["run", "conformance", "--", "--base-url", mock.url, "--api-key", MOCK_API_KEY], {
          cwd: root,
          maxBuffer: 64 * 2 ** 20,
        })
      ).stdout;
    } catch (error) {
      const e = error as { code?: number; stdout?: string };
      exit = typeof e.code === "number" ? e.code : -1;
      output = e.stdout ?? "";
    }
    const conformanceMs = performance.now() - started;
    const summary = output.match(/\d+ passed, \d+ failed, \d+ skipped[^\n]*/)?.[0] ?? "no summary printed";
    return { generateMs, generateIdentical, conformanceMs, conformanceExit: exit, conformanceSummary: summary };
  } finally {
    await mock.stop();
  }
}
