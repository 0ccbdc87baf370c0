/**
 * The mock as users run it (`npm start`'s entry point) in a child process on 127.0.0.1:0, so its
 * resident memory is its own and not the load generator's. Its request log is off: this process,
 * also the load generator, would otherwise read a line per request.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface MockProcess {
  url: string;
  apiKey: string;
  pid: number;
  /** Lines the mock printed (stdout and stderr), for the report of a failure. */
  output: string[];
  rssBytes(): Promise<number>;
  /** SIGTERM, then the exit code (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export async function spawnMock(args: string[]): Promise<MockProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "mock-server/main.ts", "--host", "127.0.0.1", "--port", "0", "--log-format", "off", ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    let url = "";
    const onLine = (line: string) => {
      output.push(line);
      if (output.length > 200) output.shift();
      url ||= /listening on (http:\/\/\S+)\/v1/.exec(line)?.[1] ?? "";
      const key = /API key \(X-API-Key\): (\S+)/.exec(line)?.[1];
      if (url && key) resolve({ url, apiKey: key });
    };
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        lines.forEach(onLine);
      });
    }
    void exited.then((code) => reject(new Error(`the mock exited (${code}) before listening:\n${output.join("\n")}`)));
    setTimeout(() => reject(new Error(`the mock did not start within 60 s:\n${output.join("\n")}`)), 60_000).unref();
  });
  const { url, apiKey } = await ready.catch((error) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    url,
    apiKey,
    pid: child.pid!,
    output,
    rssBytes: () => rssOf(child.pid!),
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Resident set size of a process: /proc on Linux, ps elsewhere. */
export async function rssOf(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    /* not Linux: ask ps */
  }
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) * 1024;
}
