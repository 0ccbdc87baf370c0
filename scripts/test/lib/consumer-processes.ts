/**
 * Child processes of the package test (scripts/test/package.test.ts): commands run in a consumer's
 * project by one Node.js, with npm's and vitest's own variables left out, and a failure that names the
 * Node it ran on.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/** A Node.js the consumer's commands run on: its version and its executable. */
export interface NodeUnderTest {
  version: string;
  binary: string;
}

/** The Node running this test: it packs and installs the kit. */
export const MACHINE_NODE: NodeUnderTest = { version: process.versions.node, binary: process.execPath };

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment without npm's own variables (vitest may run under `npm test`, and a nested npm must
 * not inherit them), with `node`'s folder first on PATH: a bin's `#!/usr/bin/env node`, npm and npx then
 * run on that Node, as they do for a user who has it installed. The machine's folder comes next, for npm.
 */
export function consumerEnv(node: NodeUnderTest = MACHINE_NODE): NodeJS.ProcessEnv {
  const first = [...new Set([path.dirname(node.binary), path.dirname(process.execPath)])];
  const env: NodeJS.ProcessEnv = { PATH: [...first, process.env.PATH ?? ""].join(path.delimiter) };
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|INIT_CWD$|PATH$|NODE_OPTIONS$|VITEST|MOCK_|PORT$|HOST$)/.test(name)) env[name] = value;
  }
  return env;
}

export async function run(
  command: string,
  args: string[],
  cwd: string,
  node: NodeUnderTest = MACHINE_NODE,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      env: { ...consumerEnv(node), ...extraEnv },
      maxBuffer: 64 * 2 ** 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? e.message };
  }
}

/** `run`, throwing when the command fails; the message names the Node it ran on. */
export async function must(
  command: string,
  args: string[],
  cwd: string,
  node: NodeUnderTest = MACHINE_NODE,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Run> {
  const result = await run(command, args, cwd, node, extraEnv);
  if (result.code !== 0)
    throw new Error(
      `on Node ${node.version}: ${command} ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  return result;
}

/** Starts a program and resolves with its URL once it prints `listening on URL/v1`. */
export function startListening(
  command: string,
  args: string[],
  cwd: string,
  options: { detached?: boolean; node?: NodeUnderTest } = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const node = options.node ?? MACHINE_NODE;
  const child = spawn(command, args, {
    cwd,
    env: consumerEnv(node),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const named = `on Node ${node.version}: ${command}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${named} printed no URL within 30 s:\n${output}`)), 30_000);
    child.stdout!.on("data", () => {
      const found = /listening on (http:\/\/\S+)\/v1/.exec(output);
      if (found) clearTimeout(timer), resolve({ child, url: found[1]!, output: () => output });
    });
    child.once(
      "exit",
      (code) => (clearTimeout(timer), reject(new Error(`${named} exited ${code} before listening:\n${output}`))),
    );
  });
}

export async function stop(child: ChildProcess, group = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (group) process.kill(-child.pid!, "SIGTERM");
  else child.kill("SIGTERM");
  await exited;
}
