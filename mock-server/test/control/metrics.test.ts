/**
 * GET /__mock/metrics through the standalone server: after requests of two operations with several
 * statuses, a fault rule applied and webhook attempts to receivers on loopback, the Prometheus text
 * counts exactly what was sent. The metric names and their HELP lines are part of the kit's interface
 * (dashboards and alerts use them): the list below fails on a rename. The MSW handlers have no metrics.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock, type RunningMock } from "../../server.js";

/** Every sample of the text: series (name and labels as written) -> value; comment lines kept apart. */
function parse(text: string): { samples: Map<string, number>; help: string[]; types: string[] } {
  const samples = new Map<string, number>();
  const help: string[] = [];
  const types: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("# HELP ")) help.push(line);
    else if (line.startsWith("# TYPE ")) types.push(line);
    else if (line && !line.startsWith("#")) {
      const found = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
      expect(found, `not a sample line: ${line}`).not.toBeNull();
      samples.set(found![1], Number(found![2]));
    }
  }
  return { samples, help, types };
}

/** The kit's metrics, as documented: renaming one, or changing what its HELP says, fails here. */
const APM_HELP = [
  "# HELP apm_requests_total Requests answered, by operationId (none when unrouted) and status (reset when the connection was destroyed)",
  "# HELP apm_request_duration_seconds Time from a request's arrival to its answer, by operationId",
  "# HELP apm_faults_applied_total Fault rules applied to requests, by kind (status, reset, empty, slow; delay for a rule with a delay only)",
  "# HELP apm_webhook_attempts_total Webhook delivery attempts, by outcome: delivered (2xx), failed (other status), error (no answer), skipped (reserved domain)",
  "# HELP apm_journal_entries Requests the journal holds now (bounded by --journal-size)",
  "# HELP apm_outbox_deliveries Webhook deliveries in every workspace's outbox now (each bounded by --outbox-size)",
];
const APM_TYPES = [
  "# TYPE apm_requests_total counter",
  "# TYPE apm_request_duration_seconds histogram",
  "# TYPE apm_faults_applied_total counter",
  "# TYPE apm_webhook_attempts_total counter",
  "# TYPE apm_journal_entries gauge",
  "# TYPE apm_outbox_deliveries gauge",
];

/** A webhook receiver on loopback answering `status`. */
async function receiver(status: number): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe("GET /__mock/metrics on the standalone server", () => {
  let running: RunningMock;
  const receivers: Awaited<ReturnType<typeof receiver>>[] = [];
  beforeAll(async () => {
    running = await startMock({ log: () => undefined, webhooks: { maxAttempts: 1, timeoutMs: 2_000 } });
  });
  afterAll(async () => {
    await running?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  const send = async (method: string, path: string, init: { key?: string | null; body?: unknown } = {}) => {
    const { key = running.apiKey, body } = init;
    const headers: Record<string, string> = {};
    if (key) headers["X-API-Key"] = key;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(running.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const scrape = async () => {
    const res = await fetch(`${running.url}/__mock/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parse(await res.text());
  };

  it("counts requests by operation and status, faults by kind and webhook attempts by outcome", async () => {
    const { samples: before } = await scrape();
    const outboxBefore = before.get("apm_outbox_deliveries")!;

    for (let i = 0; i < 3; i++) expect(await send("GET", "/v1/calls")).toBe(200);
    expect(await send("GET", "/v1/calls", { key: null })).toBe(401);
    expect(await send("GET", "/v1/agents")).toBe(200);
    expect(await send("GET", "/v1/agents", { key: "wrong-key" })).toBe(401);
    expect(await send("GET", "/v1/no-such-thing/123")).toBe(404);
    // A fault rule, applied once: a 500 instead of the list.
    expect(
      await send("POST", "/__mock/faults", {
        body: { operationId: "listAgents", kind: "status", status: 500, times: 1 },
      }),
    ).toBe(201);
    expect(await send("GET", "/v1/agents")).toBe(500);
    expect(await send("GET", "/v1/agents")).toBe(200);

    // Two webhooks of one agent in an empty workspace: one receiver answers 204, the other 500 (one attempt each).
    const ok = await receiver(204);
    const failing = await receiver(500);
    receivers.push(ok, failing);
    const created = await fetch(`${running.url}/__mock/workspaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ empty: true }),
    });
    const { workspaceId, apiKey } = (await created.json()) as { workspaceId: string; apiKey: string };
    const make = async (collection: string, body: object) => {
      const res = await fetch(`${running.url}/__mock/workspaces/${workspaceId}/${collection}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return res.json() as Promise<Record<string, string>>;
    };
    const { agentId } = await make("agents", {});
    for (const url of [ok.url, failing.url])
      await make("webhooks", { agentId, url, active: true, events: "conversation_started" });
    expect(await send("POST", "/v1/chat", { key: apiKey, body: { agentId, conversation: "hi" } })).toBe(200);
    await running.mock.services.webhooks.idle();
    expect([ok.hits(), failing.hits()]).toEqual([1, 1]);

    const journaled = await running.mock.journal.count();
    const { samples, help, types } = await scrape();
    const requests = (operation: string, status: string) =>
      samples.get(`apm_requests_total{operation="${operation}",status="${status}"}`);
    expect(requests("listCalls", "200")).toBe(3);
    expect(requests("listCalls", "401")).toBe(1);
    expect(requests("listAgents", "200")).toBe(2);
    expect(requests("listAgents", "401")).toBe(1);
    expect(requests("listAgents", "500")).toBe(1);
    expect(requests("none", "404")).toBe(1);
    expect(requests("createChat", "200")).toBe(1);
    // The control plane's own operations count too, by their operationIds; the first scrape among them.
    expect(requests("getMetrics", "200")).toBe(1);
    expect(requests("createFault", "201")).toBe(1);
    expect(samples.get('apm_request_duration_seconds_count{operation="listAgents"}')).toBe(4);
    expect(samples.get('apm_request_duration_seconds_bucket{le="+Inf",operation="listCalls"}')).toBe(4);
    expect(samples.get('apm_faults_applied_total{kind="status"}')).toBe(1);
    expect(samples.get('apm_webhook_attempts_total{outcome="delivered"}')).toBe(1);
    expect(samples.get('apm_webhook_attempts_total{outcome="failed"}')).toBe(1);
    expect(samples.get('apm_webhook_attempts_total{outcome="error"}')).toBe(0);
    expect(samples.get("apm_journal_entries")).toBe(journaled);
    expect(samples.get("apm_outbox_deliveries")).toBe(outboxBefore + 2);
    // No path, id or key becomes a label value.
    const series = [...samples.keys()].join("\n");
    expect(series).not.toMatch(/no-such-thing|wrong-key|mock-api-key|127\.0\.0\.1/);
    expect(series).not.toContain(workspaceId);
    expect(series).not.toContain(apiKey);

    expect(help.filter((l) => l.startsWith("# HELP apm_"))).toEqual(APM_HELP);
    expect(types.filter((l) => l.startsWith("# TYPE apm_"))).toEqual(APM_TYPES);
    // In memory there is no shared store: its counters are left out. The process's own keep their standard names.
    expect(series).not.toContain("apm_store_");
    expect(help.some((l) => l.startsWith("# HELP process_cpu_user_seconds_total "))).toBe(true);
    expect(help.some((l) => l.startsWith("# HELP nodejs_eventloop_lag_seconds "))).toBe(true);
  });

  it("counts a connection a fault rule destroyed as status reset", async () => {
    expect(await send("POST", "/__mock/faults", { body: { operationId: "listCalls", kind: "reset", times: 1 } })).toBe(
      201,
    );
    await expect(fetch(`${running.url}/v1/calls`, { headers: { "X-API-Key": running.apiKey } })).rejects.toThrow();
    const { samples } = await scrape();
    expect(samples.get('apm_requests_total{operation="listCalls",status="reset"}')).toBe(1);
    expect(samples.get('apm_faults_applied_total{kind="reset"}')).toBe(1);
  });
});

describe("GET /__mock/metrics through the MSW handlers", () => {
  it("answers 404 with the error body: there are no metrics in a page or a test", async () => {
    const base = "http://metrics.test";
    const { handlers, mock } = createMockHandlers({ baseUrl: base, clock: "virtual", log: () => undefined });
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: "error" });
    try {
      const res = await fetch(`${base}/__mock/metrics`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({
        status: 404,
        path: "/__mock/metrics",
        message: expect.stringMatching(/No metrics here: the MSW handlers have none/),
      });
    } finally {
      server.close();
      await mock.close();
    }
  });
});
