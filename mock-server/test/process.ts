/**
 * The mock as a real process (`node --import tsx mock-server/main.ts`), for what only a process
 * shows: signals, exit codes, the state file across restarts. It listens on 127.0.0.1:0 and the
 * URL is read from what it prints.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STARTUP_LIMIT_MS = 60_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface MockProcess {
  url: string;
  apiKey: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** The environment without the mock's own variables, so only the flags given count. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  return env;
}

function launch(args: string[]) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "mock-server/main.ts", "--port", "0", "--host", "127.0.0.1", ...args],
    {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += c));
  child.stderr!.on("data", (c) => (stderr += c));
  const exited = new Promise<Exit>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** Starts the mock and resolves once it prints where it listens; rejects if it exits first. */
export async function spawnMock(args: string[] = []): Promise<MockProcess> {
  const { child, exited, out, err } = launch(args);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mock did not start within ${STARTUP_LIMIT_MS} ms:\n${out()}\n${err()}`));
    }, STARTUP_LIMIT_MS);
    const look = () => {
      // The URL and the key are printed on two lines, which may come in two chunks; with --workers N
      // the first line ends with "(N worker processes)".
      const found = /listening on (http:\/\/[^\s]+)\/v1(?: \(\d+ worker processes\))?\n.*API key/.exec(out());
      if (found) {
        clearTimeout(timer);
        child.stdout!.off("data", look);
        resolve(found[1]);
      }
    };
    child.stdout!.on("data", look);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(
        new Error(`mock exited with ${exit.code ?? exit.signal} before listening:\n${exit.stdout}\n${exit.stderr}`),
      );
    });
  });
  const apiKey = /API key \(X-API-Key\): (\S+)/.exec(out())![1];
  return {
    url,
    apiKey,
    child,
    stdout: out,
    stderr: err,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the mock expecting it not to start (bad flags, a bad state file): its exit and output. */
export async function runMockToExit(args: string[]): Promise<Exit> {
  const { child, exited, out } = launch(args);
  const timer = setTimeout(() => child.kill("SIGKILL"), STARTUP_LIMIT_MS);
  // Started after all: stop it, and the caller sees a clean exit where it expected a refusal.
  child.stdout!.on("data", () => void (/listening on/.test(out()) && child.kill("SIGTERM")));
  const exit = await exited;
  clearTimeout(timer);
  return exit;
}
