/**
 * OpenTelemetry traces: a mock process started with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver this test runs sends one SERVER span per request, with the request's operation, workspace,
 * fault and outcome, and no secret, continuing a client's traceparent; SIGTERM flushes what is left.
 * OTEL_SDK_DISABLED turns it off.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock } from "../../server.js";
import { spawnMock, type MockProcess } from "../process.js";

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID = "00f067aa0ba902b7";

/** An OTLP/HTTP receiver on loopback: POST /v1/traces with JSON bodies, kept as sent. */
async function otlpReceiver() {
  const bodies: string[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      paths.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      bodies.push(text);
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    paths,
    /** Every span received, with its attributes flattened and its resource's service.name. */
    spans: () =>
      bodies.flatMap((body) =>
        (JSON.parse(body) as OtlpExport).resourceSpans.flatMap((rs) => {
          const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
          return rs.scopeSpans.flatMap((ss) =>
            ss.spans.map((span) => ({
              ...span,
              service,
              attrs: Object.fromEntries(
                span.attributes.map((a) => [
                  a.key,
                  a.value.stringValue ?? (a.value.intValue === undefined ? undefined : Number(a.value.intValue)),
                ]),
              ),
            })),
          );
        }),
      ),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Spawns the mock with these variables in its environment (process.ts passes this process's on). */
async function spawnWith(variables: Record<string, string>): Promise<MockProcess> {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  const started = spawnMock(["--log-format", "off"]);
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  return started;
}

describe("a mock process with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let mock: MockProcess;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    mock = await spawnWith({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "tracing-test-mock",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
  }, 90_000);
  afterAll(async () => {
    await mock?.stop("SIGKILL");
    await receiver?.close();
  });

  it("sends one SERVER span per request with its operation, workspace, fault and outcome, and no key", async () => {
    const send = async (method: string, path: string, key: string | null, body?: unknown) => {
      const headers: Record<string, string> = {};
      if (key) headers["X-API-Key"] = key;
      if (body) headers["Content-Type"] = "application/json";
      const res = await fetch(mock.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await send("GET", "/v1/calls?size=1", mock.apiKey)).toBe(200);
    expect(await send("GET", "/v1/calls", null)).toBe(401);
    expect(
      await send("POST", "/__mock/faults", null, { operationId: "listAgents", kind: "status", status: 500, times: 1 }),
    ).toBe(201);
    expect(await send("GET", "/v1/agents", mock.apiKey)).toBe(500);
    expect(await send("GET", "/v1/nowhere", mock.apiKey)).toBe(404);
    // A client inside a trace of its own: the mock's span continues it.
    const traced = await fetch(`${mock.url}/v1/calls/no-such-call`, {
      headers: { "X-API-Key": mock.apiKey, traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` },
    });
    await traced.arrayBuffer();
    expect(traced.status).toBe(404);
    // SIGTERM: close() flushes the spans not yet sent before the process exits.
    const exit = await mock.stop("SIGTERM");
    expect(exit.code).toBe(0);

    expect(receiver.paths.every((p) => p === "POST /v1/traces application/json")).toBe(true);
    const spans = receiver.spans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      "GET /v1/nowhere",
      "createFault",
      "getCall",
      "listAgents",
      "listCalls",
      "listCalls",
    ]);
    expect(spans.every((s) => s.kind === 2 && s.service === "tracing-test-mock")).toBe(true); // SPAN_KIND_SERVER
    const byStatus = (name: string, status: number) =>
      spans.find((s) => s.name === name && s.attrs["http.response.status_code"] === status)!;
    expect(byStatus("listCalls", 200).attrs).toEqual({
      "http.request.method": "GET",
      "url.path": "/v1/calls",
      "http.response.status_code": 200,
      "apm.operation": "listCalls",
      "apm.workspace": "default",
      "apm.outcome": "ok",
    });
    expect(byStatus("listCalls", 401).attrs).toMatchObject({ "apm.outcome": "error" });
    expect(byStatus("listCalls", 401).attrs).not.toHaveProperty("apm.workspace");
    const faulted = byStatus("listAgents", 500);
    expect(faulted.attrs).toMatchObject({
      "apm.operation": "listAgents",
      "apm.workspace": "default",
      "apm.fault": "status",
      "apm.fault_id": expect.stringMatching(/^fault-/),
      "apm.outcome": "error",
    });
    expect(faulted.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(byStatus("GET /v1/nowhere", 404).attrs).not.toHaveProperty("apm.operation");
    for (const span of spans) {
      const duration = BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano);
      expect(duration > 0n && duration < 10_000_000_000n).toBe(true);
      // Within the last minute, on the wall clock (the mock's own clock is virtual).
      expect(Math.abs(Number(BigInt(span.endTimeUnixNano) / 1_000_000n) - Date.now())).toBeLessThan(60_000);
    }
    const continued = spans.find((s) => s.name === "getCall")!;
    expect(continued.traceId).toBe(TRACE_ID);
    expect(continued.parentSpanId).toBe(PARENT_SPAN_ID);
    // The others start traces of their own.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(spans.length);
    expect(spans.filter((s) => s.parentSpanId).map((s) => s.name)).toEqual(["getCall"]);
    const sent = receiver.bodies.join("\n");
    expect(sent).not.toContain(mock.apiKey);
    expect(sent).not.toContain("size=1");
  });
});

describe("tracing turned off", () => {
  it("sends nothing with OTEL_SDK_DISABLED=true, the endpoint set all the same", async () => {
    const receiver = await otlpReceiver();
    try {
      const running = await startMock({
        log: () => undefined,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "true", OTEL_BSP_SCHEDULE_DELAY: "10" },
      });
      expect(running.tracing).toBeUndefined();
      expect((await fetch(`${running.url}/v1/calls`, { headers: { "X-API-Key": running.apiKey } })).status).toBe(200);
      await running.close();
      expect(receiver.bodies).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("is on through startMock's env when the endpoint is set, and close() flushes the spans", async () => {
    const receiver = await otlpReceiver();
    try {
      const running = await startMock({
        log: () => undefined,
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
      });
      expect(running.tracing?.endpoint).toBe(`${receiver.url}/v1/traces`);
      expect((await fetch(`${running.url}/v1/calls`, { headers: { "X-API-Key": running.apiKey } })).status).toBe(200);
      await running.close();
      expect(receiver.spans().map((s) => s.name)).toEqual(["listCalls"]);
    } finally {
      await receiver.close();
    }
  });
});
