/**
 * The mock's Prometheus metrics (GET /__mock/metrics), made with prom-client: what it answered (by
 * operationId and status), how long that took, which fault rules applied, how webhook attempts ended,
 * and, read at each scrape, how full the journal and the outboxes are and what a shared store counted.
 * The names are part of the kit's interface (DESIGN.md "Sharing one mock"): dashboards and alerts rely
 * on them, so a rename fails metrics.test.ts. Label values are bounded: operationIds of the spec (or of
 * spec/mock-control.yaml), HTTP statuses, fault kinds, outcomes; never a path, an id or a key.
 *
 * Each mock has its own registry (two mocks in one process count apart); the process's own metrics
 * (process_*, nodejs_*, under their standard names) are collected once per process and rendered with it.
 */
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";
import type { MetricsText } from "../control/types.js";
import type { RequestLogEntry } from "../core/exchange.js";
import { FAULT_KINDS } from "../core/faults.js";
import { WEBHOOK_ATTEMPT_OUTCOMES, type Telemetry, type WebhookAttemptOutcome } from "../core/telemetry.js";
import type { Mock } from "../mock/mock.js";
import { RequestTally } from "./request-tally.js";

/** What a shared store counted since it opened (Store.stats, store/store.ts); a store in memory has none. */
export interface StoreStats {
  redisRoundTrips: number;
  conflicts: number;
  retries: number;
  journalPending: number;
}

/** What the gauges read at each scrape. */
export interface MetricsSources {
  /** Requests the journal holds now. */
  journalEntries(): number | Promise<number>;
  /** Webhook deliveries in every workspace's outbox. */
  outboxDeliveries(): number;
  /** The shared store's counters; undefined in memory (those metrics are then left out). */
  storeStats?(): StoreStats | undefined | Promise<StoreStats | undefined>;
}

export interface Metrics extends MetricsText, Telemetry {
  /** What render() shows, as prom-client's JSON: what a worker sends the primary to be summed (cluster-metrics.ts). */
  snapshot(): Promise<MetricObjectWithValues<MetricValue<string>>[]>;
}

/** The operation label of a request routed to none (a 404 for an unknown path, a 405). */
export const NO_OPERATION = "none";
/** The status label of a request whose connection a fault rule destroyed. */
export const RESET_STATUS = "reset";
/** The kind label of a fault rule with a delay and no kind: it serves the real answer late. */
export const DELAY_ONLY_FAULT = "delay";

/** Fit for a mock: most answers take well under a millisecond to a few; faults and slow receivers reach seconds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The gauges and counters of what the mock and its store hold, read from a mock once it exists. */
export function mockSources(mock: () => Pick<Mock, "journal" | "services">): MetricsSources {
  return {
    journalEntries: () => mock().journal.count(),
    outboxDeliveries: () => {
      let deliveries = 0;
      for (const workspace of mock().services.workspaces.list()) deliveries += workspace.outbox.size;
      return deliveries;
    },
    // Store.stats is optional: the Redis store has it, the memory store does not.
    storeStats: () => (mock().services.workspaces as { stats?(): StoreStats | undefined }).stats?.(),
  };
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  // Counted per request in plain numbers, made into prom-client's series only when scraped (request-tally.ts).
  const tally = new RequestTally(
    registry,
    {
      requests: {
        name: "apm_requests_total",
        help: "Requests answered, by operationId (none when unrouted) and status (reset when the connection was destroyed)",
      },
      durations: {
        name: "apm_request_duration_seconds",
        help: "Time from a request's arrival to its answer, by operationId",
      },
    },
    DURATION_BUCKETS,
  );
  const faults = new Counter({
    name: "apm_faults_applied_total",
    help: "Fault rules applied to requests, by kind (status, reset, empty, slow; delay for a rule with a delay only)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: "apm_webhook_attempts_total",
    help: "Webhook delivery attempts, by outcome: delivered (2xx), failed (other status), error (no answer), skipped (reserved domain)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  // Every kind and outcome shows from the start at 0: a rate over a series that appears late misses its first count.
  for (const kind of [...FAULT_KINDS, DELAY_ONLY_FAULT]) faults.labels(kind).inc(0);
  for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) attempts.labels(outcome).inc(0);

  // What the mock holds is the same in every process on a shared store: a cluster's sum would count it once per worker.
  new Gauge({
    name: "apm_journal_entries",
    help: "Requests the journal holds now (bounded by --journal-size)",
    aggregator: "max",
    registers: [registry],
    async collect() {
      this.set(await sources.journalEntries());
    },
  });
  new Gauge({
    name: "apm_outbox_deliveries",
    help: "Webhook deliveries in every workspace's outbox now (each bounded by --outbox-size)",
    aggregator: "max",
    registers: [registry],
    collect() {
      this.set(sources.outboxDeliveries());
    },
  });

  // The shared store's figures, read once per scrape before the registries render; only a store that keeps them shows these.
  let stats: StoreStats | undefined;
  const storeMetrics = new Registry();
  storeCounter(storeMetrics, "apm_store_round_trips_total", "Round trips to Redis", () => stats?.redisRoundTrips);
  storeCounter(
    storeMetrics,
    "apm_store_conflicts_total",
    "Transactions that met a concurrent write to Redis",
    () => stats?.conflicts,
  );
  storeCounter(
    storeMetrics,
    "apm_store_retries_total",
    "Transactions run again after a conflict",
    () => stats?.retries,
  );
  new Gauge({
    name: "apm_journal_pending",
    help: "Journal entries answered but not yet written to Redis",
    registers: [storeMetrics],
    collect() {
      this.set(stats?.journalPending ?? 0);
    },
  });

  const perProcess = processRegistry();
  const scraped = async (): Promise<Registry[]> => {
    stats = await sources.storeStats?.();
    return stats ? [registry, storeMetrics, perProcess] : [registry, perProcess];
  };
  return {
    requestDone(entry: RequestLogEntry) {
      tally.requestDone(
        entry.operationId ?? NO_OPERATION,
        entry.status === null ? RESET_STATUS : String(entry.status),
        entry.durationMs / 1000,
      );
      if (entry.faultId !== null) faults.labels(entry.faultKind ?? DELAY_ONLY_FAULT).inc();
    },
    webhookAttempt(outcome: WebhookAttemptOutcome) {
      attempts.labels(outcome).inc();
    },
    async render() {
      const texts = await Promise.all((await scraped()).map((r) => r.metrics()));
      return { contentType: registry.contentType, body: texts.join("") };
    },
    async snapshot() {
      return (await Promise.all((await scraped()).map((r) => r.getMetricsAsJSON()))).flat();
    },
  };
}

/**
 * A counter that follows a total the store keeps: it grows by what the total grew since the last scrape,
 * so it stays monotonic if the store's total starts again (a reconnect).
 */
function storeCounter(registry: Registry, name: string, help: string, total: () => number | undefined): void {
  let last = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total() ?? last;
      if (now > last) this.inc(now - last);
      // A total lower than the last one started again from 0: what it counts now is all new.
      else if (now < last) this.inc(now);
      last = now;
    },
  });
}

let processMetrics: Registry | undefined;

/** The process's CPU, memory, event loop and GC metrics: one set per process, whatever the number of mocks. */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}
