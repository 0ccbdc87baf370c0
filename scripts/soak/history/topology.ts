/**
 * The system under test for the history checker: one Redis (or a 3-master Cluster) and N mock
 * replicas sharing it, each a real process whose whole output is kept (the log check reads it). A
 * replica can be SIGKILLed and started again (on a new port); clients pick from the live list.
 * Replicas run from `mockRoot`, so an older checkout (a git worktree) can be put under test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { startRedisCluster } from "../../../mock-server/test/redis-cluster.js";
import { type RedisServer, startRedis } from "../../../mock-server/test/redis.js";

/** Clock flags shared by the replicas and the in-process model. */
export const CLOCK_SPEED = 60;
/** Clock seconds before the first webhook retry (doubled each time); the mock's default is 10. */
export const WEBHOOK_BACKOFF_S = 10;
export const WEBHOOK_ATTEMPTS = 6;
export const WEBHOOK_TIMEOUT_S = 5;

export interface Replica {
  /** r1, r2, ...; a restarted replica gets a new name (r4 replaces r2). */
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything it printed, stdout and stderr, line by line, in order. */
  log: string[];
  alive: boolean;
  startedAt: number;
  killedAt?: number;
}

export interface Topology {
  redis: RedisServer;
  cluster: boolean;
  replicas: Replica[];
  live(): Replica[];
  kill(replica: Replica): Promise<void>;
  start(): Promise<Replica>;
  close(): Promise<void>;
}

export interface TopologyOptions {
  replicas: number;
  cluster: boolean;
  mockRoot: string;
  /** The mock's --seed (the default workspace). */
  seed: number;
}

/** The environment without the mock's own variables, so only the flags given count. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  return env;
}

export function replicaArgs(store: string, seed: number): string[] {
  return [
    "--import",
    "tsx",
    "mock-server/main.ts",
    "--port",
    "0",
    "--host",
    "127.0.0.1",
    "--store",
    store,
    "--seed",
    String(seed),
    "--clock",
    "real",
    "--clock-speed",
    String(CLOCK_SPEED),
    "--webhook-backoff",
    String(WEBHOOK_BACKOFF_S),
    "--webhook-attempts",
    String(WEBHOOK_ATTEMPTS),
    "--webhook-timeout",
    String(WEBHOOK_TIMEOUT_S),
    // One line per request would be most of the log; what is left is what the log check reads.
    "--log-format",
    "off",
  ];
}

let counter = 0;

async function spawnReplica(root: string, store: string, seed: number): Promise<Replica> {
  const name = `r${++counter}`;
  const child = spawn(process.execPath, replicaArgs(store, seed), {
    cwd: root,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  const replica: Replica = { name, url: "", pid: child.pid ?? 0, child, log, alive: true, startedAt: Date.now() };
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${log.join("\n")}`)), 60_000);
    for (const [stream, tag] of [
      [child.stdout, ""],
      [child.stderr, "stderr: "],
    ] as const) {
      let rest = "";
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) {
          log.push(`${tag}${line}`);
          const found = /listening on (http:\/\/\S+)\/v1/.exec(line);
          if (found) {
            clearTimeout(timer);
            resolve(found[1]);
          }
        }
      });
    }
    child.once("exit", (code, signal) => {
      replica.alive = false;
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${log.join("\n")}`));
    });
  });
  replica.url = await ready;
  return replica;
}

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const redis = options.cluster ? await startRedisCluster({ masters: 3 }) : await startRedis();
  const replicas: Replica[] = [];
  const start = async () => {
    const replica = await spawnReplica(options.mockRoot, redis.url, options.seed);
    replicas.push(replica);
    return replica;
  };
  try {
    // The first seeds the empty store; the others join it.
    await start();
    await Promise.all(Array.from({ length: options.replicas - 1 }, start));
  } catch (error) {
    for (const r of replicas) r.child.kill("SIGKILL");
    await redis.stop();
    throw error;
  }
  return {
    redis,
    cluster: options.cluster,
    replicas,
    live: () => replicas.filter((r) => r.alive),
    async kill(replica) {
      const gone = new Promise((resolve) => replica.child.once("exit", resolve));
      replica.killedAt = Date.now();
      replica.child.kill("SIGKILL");
      await gone;
      replica.alive = false;
    },
    start,
    async close() {
      await Promise.all(
        replicas
          .filter((r) => r.alive)
          .map(async (r) => {
            const gone = new Promise((resolve) => r.child.once("exit", resolve));
            r.child.kill("SIGTERM");
            const timer = setTimeout(() => r.child.kill("SIGKILL"), 5_000);
            await gone;
            clearTimeout(timer);
            r.alive = false;
          }),
      );
      await redis.stop();
    },
  };
}

/** The store's conflict and retry counters of one replica (apm_store_conflicts_total + apm_store_retries_total). */
export async function conflictsOf(replica: Replica): Promise<{ conflicts: number; retries: number }> {
  const text = await (await fetch(`${replica.url}/__mock/metrics`)).text();
  const sum = (name: string) =>
    text
      .split("\n")
      .filter((l) => l.startsWith(name))
      .reduce((s, l) => s + Number(l.split(/\s+/).pop() ?? 0), 0);
  return { conflicts: sum("apm_store_conflicts_total"), retries: sum("apm_store_retries_total") };
}
