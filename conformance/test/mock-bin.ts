/**
 * The agent-platform-mock bin as a process, from the sources (conformance/agent-platform-mock.ts), with
 * none of the mock's environment variables: what its tests run.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end, or until `until` matches its stdout (then `then` runs, and it is stopped with SIGTERM). */
export function runMockBin(
  args: string[],
  until?: RegExp,
  then?: (match: RegExpExecArray) => Promise<void>,
): Promise<Exit & { matched?: RegExpExecArray }> {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  const child = spawn(process.execPath, ["--import", "tsx", "conformance/agent-platform-mock.ts", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let matched: RegExpExecArray | undefined;
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    const found = until?.exec(stdout);
    if (found && !matched) {
      matched = found;
      void Promise.resolve(then?.(found)).finally(() => child.kill("SIGTERM"));
    }
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr, matched })));
}
