/**
 * `--workers N`: a scrape of /__mock/metrics lands on whichever worker the primary hands the connection
 * to, yet must show the whole mock. So the worker asks the primary, the primary asks every worker for
 * its figures (prom-client's JSON) and sums them with prom-client's AggregatorRegistry (counters and
 * histograms add up; the gauges of shared state, marked `max` in metrics.ts, are not counted N times),
 * and the asking worker answers that. A primary that does not answer in time leaves the worker to
 * answer its own figures, with a comment line saying so; a worker that does not answer in time is left
 * out of the sum, with a comment line saying how many did.
 *
 * The messages travel over node:cluster's IPC channel; the channels are parameters so the tests run
 * primary and workers in one process.
 */
import cluster from "node:cluster";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import type { MetricsText } from "../control/types.js";
import type { Metrics } from "./metrics.js";

/** worker -> primary: a scrape arrived, send me the sum. */
const SCRAPE = "apm:metrics-scrape";
/** primary -> every worker: your figures, please. */
const COLLECT = "apm:metrics-collect";
/** worker -> primary: my figures. */
const COLLECTED = "apm:metrics-collected";
/** primary -> the worker that asked: the sum. */
const SUMMED = "apm:metrics-summed";

/** How long a worker waits for the sum: past it, it answers its own figures (a scrape must not hang). */
export const WORKER_WAIT_MS = 3_000;
/** How long the primary waits for each worker's figures: less than a worker waits, so a slow worker costs only its share. */
export const PRIMARY_WAIT_MS = 2_000;

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

interface Message {
  type: string;
  id: number;
  metrics?: MetricsJson;
  contentType?: string;
  body?: string;
}

/** The primary's side of the IPC channel: its live workers, and what they send. */
export interface PrimaryChannel {
  workerIds(): number[];
  send(workerId: number, message: Message): void;
  onMessage(listener: (workerId: number, message: unknown) => void): () => void;
}

/** A worker's side: to the primary, and from it. */
export interface WorkerChannel {
  send(message: Message): void;
  onMessage(listener: (message: unknown) => void): () => void;
}

const isMessage = (message: unknown, type: string): message is Message =>
  typeof message === "object" && message !== null && (message as Message).type === type;

/**
 * In the primary (once, before forking): answers workers' scrapes with the sum of every worker's
 * figures. Returns what stops it.
 */
export function servePrimaryMetrics(
  channel: PrimaryChannel = primaryChannel(),
  waitMs: number = PRIMARY_WAIT_MS,
): () => void {
  let lastId = 0;
  const gathering = new Map<number, { metrics: MetricsJson[]; waiting: Set<number>; done(): void }>();
  return channel.onMessage((workerId, message) => {
    if (isMessage(message, COLLECTED)) {
      const gather = gathering.get(message.id);
      if (!gather?.waiting.delete(workerId)) return;
      gather.metrics.push(message.metrics ?? []);
      if (gather.waiting.size === 0) gather.done();
      return;
    }
    if (!isMessage(message, SCRAPE)) return;
    const id = ++lastId;
    const workers = channel.workerIds();
    const metrics: MetricsJson[] = [];
    const waiting = new Set(workers);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      gathering.delete(id);
      const registry = AggregatorRegistry.aggregate(metrics);
      const missing = waiting.size;
      void registry.metrics().then((body) =>
        channel.send(workerId, {
          type: SUMMED,
          id: (message as Message).id,
          contentType: registry.contentType,
          body:
            missing > 0
              ? `# apm: ${workers.length - missing} of ${workers.length} workers answered within ${waitMs} ms; this is their sum\n${body}`
              : body,
        }),
      );
    };
    gathering.set(id, { metrics, waiting, done });
    timer = setTimeout(done, waitMs);
    for (const worker of workers) channel.send(worker, { type: COLLECT, id });
  });
}

/**
 * In a worker: what GET /__mock/metrics answers (StartOptions.metricsText). It also answers the
 * primary's requests for this worker's figures, from the moment it is made. Outside a cluster worker
 * (no IPC channel), `local` itself.
 */
export function clusterAwareMetrics(
  local: Metrics,
  channel: WorkerChannel | undefined = workerChannel(),
  waitMs: number = WORKER_WAIT_MS,
): MetricsText {
  if (!channel) return local;
  let lastId = 0;
  const asked = new Map<number, (sum: { contentType: string; body: string }) => void>();
  channel.onMessage((message) => {
    if (isMessage(message, COLLECT))
      void local.snapshot().then(
        (metrics) => channel.send({ type: COLLECTED, id: message.id, metrics }),
        // Figures that cannot be read are left out of the sum (the primary says how many answered).
        () => undefined,
      );
    else if (isMessage(message, SUMMED))
      asked.get(message.id)?.({ contentType: message.contentType ?? "", body: message.body ?? "" });
  });
  return {
    async render() {
      const id = ++lastId;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const sum = await new Promise<{ contentType: string; body: string } | undefined>((resolve) => {
        asked.set(id, resolve);
        timer = setTimeout(() => resolve(undefined), waitMs);
        channel.send({ type: SCRAPE, id });
      });
      clearTimeout(timer);
      asked.delete(id);
      if (sum) return sum;
      const own = await local.render();
      return {
        contentType: own.contentType,
        body: `# apm: the primary did not answer within ${waitMs} ms: these are worker ${process.pid}'s figures alone\n${own.body}`,
      };
    },
  };
}

function primaryChannel(): PrimaryChannel {
  return {
    workerIds: () =>
      Object.values(cluster.workers ?? {})
        .filter((worker) => worker?.isConnected())
        .map((worker) => worker!.id),
    send: (workerId, message) => {
      const worker = cluster.workers?.[workerId];
      if (worker?.isConnected()) worker.send(message);
    },
    onMessage: (listener) => {
      const heard = (worker: { id: number }, message: unknown) => listener(worker.id, message);
      cluster.on("message", heard);
      return () => cluster.off("message", heard);
    },
  };
}

function workerChannel(): WorkerChannel | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  return {
    send: (message) => void process.send?.(message),
    onMessage: (listener) => {
      process.on("message", listener);
      return () => process.off("message", listener);
    },
  };
}
