import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../core/exchange.js";
import { createMetrics, type MetricsSources, type StoreStats } from "./metrics.js";

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  method: "GET",
  path: "/v1/calls",
  status: 200,
  durationMs: 3,
  operationId: "listCalls",
  workspaceId: "default",
  faultId: null,
  faultKind: null,
  ...over,
});

/** The value of one series in Prometheus text, or undefined when the series is absent. */
function value(body: string, series: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const sources = (over: Partial<MetricsSources> = {}): MetricsSources => ({
  journalEntries: () => 7,
  outboxDeliveries: () => 2,
  ...over,
});

describe("createMetrics", () => {
  it("counts requests by operation and status, unrouted ones as none and cut ones as reset", async () => {
    const metrics = createMetrics(sources());
    metrics.requestDone(entry());
    metrics.requestDone(entry());
    metrics.requestDone(entry({ status: 404, operationId: null, path: "/v1/nowhere/abc-123" }));
    metrics.requestDone(entry({ status: null, faultId: "fault-1", faultKind: "reset" }));
    const { body, contentType } = await metrics.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(value(body, 'apm_requests_total{operation="listCalls",status="200"}')).toBe(2);
    expect(value(body, 'apm_requests_total{operation="none",status="404"}')).toBe(1);
    expect(value(body, 'apm_requests_total{operation="listCalls",status="reset"}')).toBe(1);
    // Label values are bounded: the path (and its id) never becomes one.
    expect(body).not.toContain("abc-123");
  });

  it("puts each duration in its bucket, in seconds", async () => {
    const metrics = createMetrics(sources());
    metrics.requestDone(entry({ durationMs: 0.2 }));
    metrics.requestDone(entry({ durationMs: 30 }));
    const { body } = await metrics.render();
    expect(value(body, 'apm_request_duration_seconds_bucket{le="0.0005",operation="listCalls"}')).toBe(1);
    expect(value(body, 'apm_request_duration_seconds_bucket{le="0.025",operation="listCalls"}')).toBe(1);
    expect(value(body, 'apm_request_duration_seconds_bucket{le="0.05",operation="listCalls"}')).toBe(2);
    expect(value(body, 'apm_request_duration_seconds_count{operation="listCalls"}')).toBe(2);
    expect(value(body, 'apm_request_duration_seconds_sum{operation="listCalls"}')).toBeCloseTo(0.0302, 6);
  });

  it("counts fault rules applied by kind, a rule with only a delay as delay, every kind from 0", async () => {
    const metrics = createMetrics(sources());
    metrics.requestDone(entry({ faultId: "fault-1", faultKind: "status", status: 503 }));
    metrics.requestDone(entry({ faultId: "fault-1", faultKind: "status", status: 503 }));
    metrics.requestDone(entry({ faultId: "fault-2", faultKind: null }));
    const { body } = await metrics.render();
    expect(value(body, 'apm_faults_applied_total{kind="status"}')).toBe(2);
    expect(value(body, 'apm_faults_applied_total{kind="delay"}')).toBe(1);
    expect(value(body, 'apm_faults_applied_total{kind="reset"}')).toBe(0);
  });

  it("counts webhook attempts by outcome, every outcome shown from the start", async () => {
    const metrics = createMetrics(sources());
    expect(value((await metrics.render()).body, 'apm_webhook_attempts_total{outcome="error"}')).toBe(0);
    metrics.webhookAttempt("delivered");
    metrics.webhookAttempt("error");
    metrics.webhookAttempt("error");
    const { body } = await metrics.render();
    expect(value(body, 'apm_webhook_attempts_total{outcome="delivered"}')).toBe(1);
    expect(value(body, 'apm_webhook_attempts_total{outcome="error"}')).toBe(2);
    expect(value(body, 'apm_webhook_attempts_total{outcome="failed"}')).toBe(0);
  });

  it("reads the journal and outbox sizes at each scrape", async () => {
    let entries = 3;
    const metrics = createMetrics(sources({ journalEntries: async () => entries, outboxDeliveries: () => 11 }));
    expect(value((await metrics.render()).body, "apm_journal_entries")).toBe(3);
    entries = 9;
    const { body } = await metrics.render();
    expect(value(body, "apm_journal_entries")).toBe(9);
    expect(value(body, "apm_outbox_deliveries")).toBe(11);
  });

  it("shows the store's counters only for a store that keeps them, monotonic across a restart of its totals", async () => {
    expect((await createMetrics(sources()).render()).body).not.toContain("apm_store_");
    let stats: StoreStats = { redisRoundTrips: 10, conflicts: 1, retries: 2, journalPending: 4 };
    const metrics = createMetrics(sources({ storeStats: () => stats }));
    let { body } = await metrics.render();
    expect(value(body, "apm_store_round_trips_total")).toBe(10);
    expect(value(body, "apm_store_conflicts_total")).toBe(1);
    expect(value(body, "apm_store_retries_total")).toBe(2);
    expect(value(body, "apm_journal_pending")).toBe(4);
    stats = { redisRoundTrips: 25, conflicts: 1, retries: 2, journalPending: 0 };
    ({ body } = await metrics.render());
    expect(value(body, "apm_store_round_trips_total")).toBe(25);
    expect(value(body, "apm_journal_pending")).toBe(0);
    // The store's totals started again (a reconnect): the counter goes on from where it was.
    stats = { redisRoundTrips: 5, conflicts: 1, retries: 2, journalPending: 0 };
    ({ body } = await metrics.render());
    expect(value(body, "apm_store_round_trips_total")).toBe(30);
  });

  it("keeps two mocks' figures apart, and adds the process's own metrics under their standard names", async () => {
    const a = createMetrics(sources());
    const b = createMetrics(sources());
    a.requestDone(entry());
    const { body } = await b.render();
    expect(value(body, 'apm_requests_total{operation="listCalls",status="200"}')).toBeUndefined();
    expect(body).toMatch(/^process_cpu_user_seconds_total /m);
    expect(body).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(body).not.toMatch(/^apm_process_|^apm_nodejs_/m);
  });

  it("snapshot holds what render shows, as prom-client JSON", async () => {
    const metrics = createMetrics(sources());
    metrics.requestDone(entry());
    const names = (await metrics.snapshot()).map((m) => m.name);
    expect(names).toContain("apm_requests_total");
    expect(names).toContain("apm_journal_entries");
    expect(names).toContain("process_cpu_user_seconds_total");
    expect(names).not.toContain("apm_store_round_trips_total");
  });
});
