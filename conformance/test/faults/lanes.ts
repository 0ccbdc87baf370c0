/**
 * A few lanes (faults/lane.ts), each a child process with a mock of its own, and a queue in front:
 * `run` hands a run to the first idle lane. The suite, the proxy and the mock are all CPU-bound, so
 * in one process the fault-injection test used one core of two; two lanes use both.
 */
import { fork, type ChildProcess } from "node:child_process";
import type { LaneAnswer, LaneHooks, LaneJob } from "./lane.js";

export interface Lanes {
  run(hooks: LaneHooks, argv: string[], prefix?: string): Promise<{ code: number; failed: string[] }>;
  close(): Promise<void>;
}

interface Job {
  job: LaneJob;
  resolve(answer: { code: number; failed: string[] }): void;
  reject(error: Error): void;
}

interface Lane {
  child: ChildProcess;
  current?: Job;
  /** The end of what the lane wrote to stderr, to say why it died. */
  stderr: string;
}

const LANE = new URL("./lane.ts", import.meta.url);

export async function startLanes(count: number): Promise<Lanes> {
  const lanes: Lane[] = [];
  const waiting: Job[] = [];
  let nextId = 0;
  let closing = false;

  const dispatch = () => {
    for (const lane of lanes) {
      if (lane.current || waiting.length === 0) continue;
      lane.current = waiting.shift()!;
      lane.child.send(lane.current.job);
    }
  };

  const startLane = () =>
    new Promise<Lane>((resolve, reject) => {
      const child = fork(LANE, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "pipe", "ipc"] });
      const lane: Lane = { child, stderr: "" };
      child.stderr?.on("data", (chunk: Buffer) => void (lane.stderr = (lane.stderr + chunk).slice(-4000)));
      child.on("message", (message: LaneAnswer | "ready") => {
        if (message === "ready") return resolve(lane);
        const job = lane.current;
        if (job?.job.id !== message.id) return;
        lane.current = undefined;
        if ("error" in message) job.reject(new Error(`fault lane: ${message.error}`));
        else job.resolve(message);
        dispatch();
      });
      child.on("exit", (code, signal) => {
        if (closing) return;
        const why = new Error(`fault lane ${child.pid} exited (${signal ?? code}): ${lane.stderr}`);
        reject(why);
        lane.current?.reject(why);
        if (lanes.includes(lane)) lanes.splice(lanes.indexOf(lane), 1);
        if (lanes.length === 0) for (const job of waiting.splice(0)) job.reject(why);
      });
    });

  const kill = () =>
    Promise.all(
      lanes.map((lane) =>
        lane.child.exitCode !== null || lane.child.signalCode !== null
          ? undefined
          : new Promise<void>((resolve) => {
              lane.child.once("exit", () => resolve());
              lane.child.kill();
            }),
      ),
    ).then(() => undefined);

  const started = await Promise.allSettled(Array.from({ length: count }, startLane));
  for (const s of started) if (s.status === "fulfilled") lanes.push(s.value);
  const refused = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (refused) {
    closing = true;
    await kill();
    throw refused.reason;
  }

  return {
    run: (hooks, argv, prefix) =>
      new Promise((resolve, reject) => {
        waiting.push({ job: { id: nextId++, hooks, argv, prefix }, resolve, reject });
        dispatch();
      }),
    close() {
      closing = true;
      return kill();
    },
  };
}
