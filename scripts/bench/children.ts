/**
 * Target servers run in child processes, never in the load generator's process: autocannon and the
 * server under test then compete for the two cores as separate processes, as they would in real use.
 * Helpers to start one, wait for its first 200, read its resident memory, and stop it by its pid.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";

export { freePort } from "../../conformance/dredd/prism-proxy.js";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const bin = (name: string): string => `${root}node_modules/.bin/${name}`;
/** How a TypeScript entry of this repo runs in a child: node itself with tsx's loader. */
export const TSX_EXEC_ARGV = ["--import", "tsx"];

export interface Child {
  name: string;
  process: ChildProcess;
  url: string;
  /** Milliseconds from spawn to the first 200 on the ready URL. */
  readyMs: number;
  /** CPU time the process had used by then (steadier than readyMs on a busy machine). */
  readyCpuMs?: number;
  output: string[];
  stop(): Promise<void>;
}

export interface ChildSpec {
  name: string;
  command?: string;
  args: string[];
  /** Over the bench's own environment; a name set to undefined is left out of the child's. */
  env?: NodeJS.ProcessEnv;
  /** The folder it runs in: this checkout's root unless another kit's (--against, against.ts). */
  cwd?: string;
  /** Runs `args[0]` as a module with an IPC channel (node's fork) instead of spawning `command`. */
  ipc?: { execArgv: string[] };
  /** A launcher (npm) that starts the server as its own child: run it in a process group of its own and stop the group. */
  group?: boolean;
  url: string;
  readyPath: string;
  readyHeaders?: Record<string, string>;
  timeoutMs?: number;
}

/** One GET, answering its status (0 when the connection failed). */
export function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.setTimeout(2_000, () => req.destroy());
  });
}

export async function startChild(spec: ChildSpec): Promise<Child> {
  const started = performance.now();
  const env = { ...process.env, ...spec.env };
  const child = spec.ipc
    ? fork(spec.args[0], spec.args.slice(1), {
        cwd: spec.cwd ?? root,
        env,
        execArgv: spec.ipc.execArgv,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      })
    : spawn(spec.command ?? process.execPath, spec.args, {
        cwd: spec.cwd ?? root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: spec.group,
      });
  const output: string[] = [];
  // Keep the last lines only: Prism logs every request.
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 50) output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    const signal = (name: NodeJS.Signals) => {
      try {
        if (spec.group && child.pid) process.kill(-child.pid, name);
        else child.kill(name);
      } catch {
        /* already gone */
      }
    };
    if (child.exitCode === null && child.signalCode === null) signal("SIGTERM");
    const timer = setTimeout(() => signal("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = started + (spec.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}:\n${output.join("")}`);
    if ((await status(spec.url + spec.readyPath, spec.readyHeaders)) === 200) break;
    if (performance.now() > deadline) {
      await stop();
      throw new Error(
        `${spec.name} gave no 200 on ${spec.readyPath} within ${spec.timeoutMs ?? 60_000} ms:\n${output.join("")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyMs = performance.now() - started;
  return { name: spec.name, process: child, url: spec.url, readyMs, readyCpuMs: cpuMsOf(child.pid), output, stop };
}

/** Resident set size of a process in bytes, read from /proc (Linux); undefined elsewhere. */
export function rssOf(pid: number | undefined, field: "VmRSS" | "VmHWM" = "VmRSS"): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.replace(/\D+/g, "")) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc (Linux; 10 ms ticks).
 * On a shared machine, CPU time per request is steadier than requests per second: it does not
 * count the time the server waited for a core.
 */
export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; answers the highest value seen. */
export function watchRss(pid: number | undefined, everyMs = 10): { stop(): number | undefined } {
  let max: number | undefined;
  const sample = () => {
    const rss = rssOf(pid);
    if (rss !== undefined && (max === undefined || rss > max)) max = rss;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return max;
    },
  };
}

/** Sends a message to a forked child and waits for its answer (one request at a time). */
export function ask<T>(child: ChildProcess, message: object, timeoutMs = 600_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(message)}`)), timeoutMs);
    child.once("message", (answer: T & { error?: string }) => {
      clearTimeout(timer);
      if (answer && typeof answer === "object" && "error" in answer && answer.error) reject(new Error(answer.error));
      else resolve(answer);
    });
    child.send(message);
  });
}
