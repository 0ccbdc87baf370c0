import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../core/exchange.js";
import { outcomeOf, parseTraceparent, startTracing, tracingConfig } from "./tracing.js";

/** Spans kept past shutdown (the in-memory exporter's own shutdown forgets them). */
class KeptSpans extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" };

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  method: "POST",
  path: "/v1/calls",
  status: 201,
  durationMs: 40,
  operationId: "createCall",
  workspaceId: "default",
  faultId: null,
  faultKind: null,
  ...over,
});

describe("tracingConfig", () => {
  it("is off without an endpoint, with OTEL_SDK_DISABLED=true, or with OTEL_TRACES_EXPORTER=none", () => {
    expect(tracingConfig({})).toBeUndefined();
    expect(tracingConfig({ ...ENDPOINT, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(tracingConfig({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(tracingConfig({ ...ENDPOINT, OTEL_SDK_DISABLED: "false" })?.endpoint).toBe(
      "http://127.0.0.1:4318/v1/traces",
    );
  });

  it("takes the traces endpoint as it is, and the general one with /v1/traces appended", () => {
    expect(
      tracingConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom/path" }),
    ).toMatchObject({ variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint: "http://collector:4318/custom/path" });
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com/base" })).toMatchObject({
      variable: "OTEL_EXPORTER_OTLP_ENDPOINT",
      endpoint: "https://otel.example.com/base/v1/traces",
      serviceName: "agent-platform-mock",
    });
  });

  it("names the service from OTEL_SERVICE_NAME, warns of a protocol it does not speak, refuses a URL that is none", () => {
    expect(tracingConfig({ ...ENDPOINT, OTEL_SERVICE_NAME: "ci-mock" })?.serviceName).toBe("ci-mock");
    expect(tracingConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })?.warning).toMatch(/grpc.*http\/json/);
    expect(tracingConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })?.warning).toBeUndefined();
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
  });
});

describe("parseTraceparent and outcomeOf", () => {
  it("reads a W3C traceparent and refuses malformed or all-zero ones", () => {
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
    });
    expect(parseTraceparent(undefined)).toBeUndefined();
    expect(parseTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).toBeUndefined();
    expect(parseTraceparent("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBeUndefined();
    expect(parseTraceparent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")).toBeUndefined();
  });

  it("says ok, error for 4xx and 5xx, reset for a destroyed connection", () => {
    expect([outcomeOf(200), outcomeOf(302), outcomeOf(404), outcomeOf(503), outcomeOf(null)]).toEqual([
      "ok",
      "ok",
      "error",
      "error",
      "reset",
    ]);
  });
});

describe("startTracing", () => {
  it("is undefined when tracing is off", () => {
    expect(startTracing({})).toBeUndefined();
  });

  it("makes one SERVER span per request, timed by the request, with the apm attributes", async () => {
    const exporter = new KeptSpans();
    const tracing = startTracing(ENDPOINT, { exporter })!;
    // Told before the SDK has loaded: kept and traced once it has.
    const before = performance.timeOrigin + performance.now();
    tracing.requestDone(entry());
    await tracing.ready;
    tracing.requestDone(
      entry({
        method: "GET",
        path: "/v1/calls",
        status: null,
        operationId: "listCalls",
        workspaceId: "ws-2",
        faultId: "fault-3",
        faultKind: "reset",
        source: "mock",
      }),
    );
    tracing.requestDone(entry({ method: "GET", path: "/nowhere", status: 404, operationId: null }));
    await tracing.shutdown();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(["createCall", "listCalls", "GET /nowhere"]);
    const [created, reset, unrouted] = spans;
    expect(created.kind).toBe(1); // SpanKind.SERVER
    expect(created.attributes).toEqual({
      "http.request.method": "POST",
      "url.path": "/v1/calls",
      "http.response.status_code": 201,
      "apm.operation": "createCall",
      "apm.workspace": "default",
      "apm.outcome": "ok",
    });
    const startMs = created.startTime[0] * 1000 + created.startTime[1] / 1e6;
    const endMs = created.endTime[0] * 1000 + created.endTime[1] / 1e6;
    expect(endMs - startMs).toBeCloseTo(40, 0);
    expect(endMs).toBeGreaterThanOrEqual(before - 1);
    expect(created.status.code).toBe(0);
    expect(reset.attributes).toMatchObject({
      "apm.fault": "reset",
      "apm.fault_id": "fault-3",
      "apm.outcome": "reset",
      "apm.source": "mock",
      "apm.workspace": "ws-2",
    });
    expect(reset.attributes).not.toHaveProperty("http.response.status_code");
    expect(reset.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(unrouted.attributes).toMatchObject({ "apm.outcome": "error", "http.response.status_code": 404 });
    expect(unrouted.attributes).not.toHaveProperty("apm.operation");
    expect(unrouted.status.code).toBe(0);
    expect(created.resource.attributes["service.name"]).toBe("agent-platform-mock");
    // Every span its own trace, without a parent, unless the client sent one.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(3);
    expect(spans.every((s) => s.parentSpanContext === undefined)).toBe(true);
  });

  it("continues the trace of a traceparent the client sent", async () => {
    const exporter = new KeptSpans();
    const tracing = startTracing({ ...ENDPOINT, OTEL_SERVICE_NAME: "ci-mock" }, { exporter })!;
    await tracing.ready;
    tracing.requestDone(entry({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }));
    await tracing.shutdown();
    const [span] = exporter.getFinishedSpans();
    expect(span.spanContext().traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(span.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(span.resource.attributes["service.name"]).toBe("ci-mock");
  });

  it("shuts down once, however often asked", async () => {
    const exporter = new KeptSpans();
    const tracing = startTracing(ENDPOINT, { exporter })!;
    expect(tracing.shutdown()).toBe(tracing.shutdown());
    await tracing.shutdown();
  });
});
