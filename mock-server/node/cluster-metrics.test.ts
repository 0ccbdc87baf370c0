import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../core/exchange.js";
import {
  clusterAwareMetrics,
  servePrimaryMetrics,
  type PrimaryChannel,
  type WorkerChannel,
} from "./cluster-metrics.js";
import { createMetrics, type Metrics } from "./metrics.js";

const entry = (status: number): RequestLogEntry => ({
  method: "GET",
  path: "/v1/calls",
  status,
  durationMs: 1,
  operationId: "listCalls",
  workspaceId: "default",
  faultId: null,
  faultKind: null,
});

function value(body: string, series: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * A primary and workers in one process, their messages passed as node:cluster passes them: as JSON, asynchronously.
 * A worker in `deaf` hears nothing from the primary.
 */
function cluster(workerCount: number, deaf = new Set<number>()) {
  const toWorker = new Map<number, (message: unknown) => void>();
  let toPrimary: ((workerId: number, message: unknown) => void) | undefined;
  const pass = (deliver: () => void) => setTimeout(deliver, 1);
  const primary: PrimaryChannel = {
    workerIds: () => [...Array(workerCount).keys()].map((i) => i + 1),
    send: (id, message) => !deaf.has(id) && pass(() => toWorker.get(id)?.(JSON.parse(JSON.stringify(message)))),
    onMessage: (listener) => {
      toPrimary = listener;
      return () => (toPrimary = undefined);
    },
  };
  const worker = (id: number): WorkerChannel => ({
    send: (message) => pass(() => toPrimary?.(id, JSON.parse(JSON.stringify(message)))),
    onMessage: (listener) => {
      toWorker.set(id, listener);
      return () => toWorker.delete(id);
    },
  });
  return { primary, worker };
}

const journal = (entries: number) => ({ journalEntries: () => entries, outboxDeliveries: () => 4 });

describe("metrics across --workers", () => {
  it("any worker answers the sum of every worker's counters; the shared state's gauges are not multiplied", async () => {
    const { primary, worker } = cluster(3);
    const stop = servePrimaryMetrics(primary, 500);
    const locals: Metrics[] = [createMetrics(journal(5)), createMetrics(journal(5)), createMetrics(journal(5))];
    const texts = locals.map((local, i) => clusterAwareMetrics(local, worker(i + 1), 1_000));
    locals[0].requestDone(entry(200));
    locals[1].requestDone(entry(200));
    locals[1].requestDone(entry(500));
    locals[2].requestDone(entry(200));
    locals[2].webhookAttempt("delivered");
    for (const text of [texts[0], texts[2]]) {
      const { body, contentType } = await text.render();
      expect(contentType).toMatch(/^text\/plain/);
      expect(value(body, 'apm_requests_total{operation="listCalls",status="200"}')).toBe(3);
      expect(value(body, 'apm_requests_total{operation="listCalls",status="500"}')).toBe(1);
      expect(value(body, 'apm_request_duration_seconds_count{operation="listCalls"}')).toBe(4);
      expect(value(body, 'apm_request_duration_seconds_bucket{le="+Inf",operation="listCalls"}')).toBe(4);
      expect(value(body, 'apm_request_duration_seconds_bucket{le="0.001",operation="listCalls"}')).toBe(4);
      expect(value(body, 'apm_webhook_attempts_total{outcome="delivered"}')).toBe(1);
      expect(value(body, "apm_journal_entries")).toBe(5);
      expect(value(body, "apm_outbox_deliveries")).toBe(4);
      expect(body).not.toContain("# apm:");
    }
    stop();
  });

  it("a worker that does not answer is left out, and the sum says so", async () => {
    const { primary, worker } = cluster(2, new Set([2]));
    const stop = servePrimaryMetrics(primary, 50);
    const asking = createMetrics(journal(1));
    asking.requestDone(entry(200));
    clusterAwareMetrics(createMetrics(journal(1)), worker(2), 1_000);
    const { body } = await clusterAwareMetrics(asking, worker(1), 1_000).render();
    expect(body).toMatch(/^# apm: 1 of 2 workers answered within 50 ms/);
    expect(value(body, 'apm_requests_total{operation="listCalls",status="200"}')).toBe(1);
    stop();
  });

  it("a primary that does not answer leaves the worker its own figures, with a comment line", async () => {
    const { worker } = cluster(1);
    const local = createMetrics(journal(1));
    local.requestDone(entry(201));
    const started = performance.now();
    const { body } = await clusterAwareMetrics(local, worker(1), 60).render();
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(body).toMatch(/^# apm: the primary did not answer within 60 ms: these are worker \d+'s figures alone\n/);
    expect(value(body, 'apm_requests_total{operation="listCalls",status="201"}')).toBe(1);
  });

  it("outside a cluster worker, the local metrics themselves", () => {
    const local = createMetrics(journal(1));
    expect(clusterAwareMetrics(local)).toBe(local);
  });
});
