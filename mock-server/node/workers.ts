/**
 * `--workers N`: N mock processes on one port (node:cluster: the primary accepts connections and hands
 * them to the workers in turn). Workers share state only through the store, so it needs `--store`. The
 * primary serves nothing itself: it checks the store is reachable (exit 2 if not), starts the workers,
 * starts a new one when one dies, sums the workers' metrics for a scrape, and on SIGTERM/SIGINT passes the
 * signal to every worker (each drains what it has under way: main.ts) and exits once they all have.
 */
import cluster, { type Worker } from "node:cluster";
import { RedisLink } from "../store/redis/redis.js";
import { servePrimaryMetrics } from "./cluster-metrics.js";

const RESTART_DELAY_MS = 500;

export const isWorker = () => cluster.isWorker;

/** The first worker prints the banner; the others only their failures. */
export const isFirstWorker = () => !cluster.isWorker || cluster.worker?.id === 1;

export async function runWorkers(
  count: number,
  store: string,
  onStopRequest: (stop: (why: string) => void) => void,
): Promise<void> {
  const probe = await RedisLink.open(store, () => undefined);
  await probe.close();
  let stopping = false;
  const live = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    live.add(worker);
    worker.on("exit", (code, signal) => {
      live.delete(worker);
      if (stopping) {
        if (live.size === 0) process.exit(0);
        return;
      }
      console.error(`worker ${worker.process.pid} ended (${signal ?? `exit ${code}`}); starting another`);
      setTimeout(fork, RESTART_DELAY_MS);
    });
  };
  // A scrape of any worker answers every worker's sum: the primary gathers them (node/cluster-metrics.ts).
  servePrimaryMetrics();
  for (let i = 0; i < count; i++) fork();
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${why}: stopping ${live.size} worker(s)`);
    if (live.size === 0) process.exit(0);
    for (const worker of live) worker.process.kill("SIGTERM");
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  onStopRequest(stop);
}
