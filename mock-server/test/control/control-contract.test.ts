/** The control plane answers as spec/mock-control.yaml describes: every 2xx body validates. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createOpenApiAjv } from "../../core/openapi-ajv.js";
import { useMock } from "../harness.js";

const t = useMock();
const doc = JSON.parse(readFileSync(new URL("../../../generated/mock-control.json", import.meta.url), "utf8"));
const ajv = createOpenApiAjv();
ajv.addSchema(doc, "mock-control.json");

const escape = (path: string) => path.replace(/~/g, "~0").replace(/\//g, "~1");

function check(path: string, method: string, status: number, body: unknown): void {
  const pointer = `mock-control.json#/paths/${escape(path)}/${method}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  expect(validate(body), `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

describe("control plane contract", () => {
  it("every documented control operation answers its documented shape", async () => {
    const exercised = new Set<string>();
    const call = async (method: string, template: string, concrete: string, body?: unknown) => {
      exercised.add(`${method.toLowerCase()} ${template}`);
      const res = await t.raw(concrete, {
        method,
        key: null,
        headers: body ? { "Content-Type": "application/json" } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = res.status === 204 ? undefined : await res.json();
      if (res.status < 300 && res.status !== 204) check(template, method.toLowerCase(), res.status, json);
      return { status: res.status, json };
    };
    expect((await call("GET", "/__mock/health", "/__mock/health")).status).toBe(200);
    expect((await call("GET", "/__mock/ready", "/__mock/ready")).json).toMatchObject({ status: "ready" });
    // Prometheus text, not JSON (its names: mock-server/test/control/metrics.test.ts).
    exercised.add("get /__mock/metrics");
    const metrics = await t.raw("/__mock/metrics", { key: null });
    expect(metrics.status === 200 ? metrics.headers.get("content-type") : String(metrics.status)).toMatch(
      /^text\/plain|^404$/,
    );
    const created = await call("POST", "/__mock/workspaces", "/__mock/workspaces", { seed: 9 });
    expect(created.status).toBe(201);
    const id = created.json.workspaceId;
    // A chat whose agent has a webhook for it: a delivery (to a reserved domain: skipped, nothing sent).
    const agentId = (await t.api.GET("/v1/agents")).data!.data[0].agentId;
    const hook = { agentId, url: "https://hooks.example.com/in", events: "conversation_started", active: true };
    await call("POST", "/__mock/workspaces/{workspaceId}/{collection}", "/__mock/workspaces/default/webhooks", hook);
    await t.api.POST("/v1/chat", { body: { agentId } });
    // One /v1 request in detail (its HAR entry), and an id the journal never gave.
    const [chat] = (await call("GET", "/__mock/requests", "/__mock/requests?operationId=createChat&limit=1")).json;
    const detail = await call("GET", "/__mock/requests/{requestId}", `/__mock/requests/${chat.id}`);
    expect(detail.json.har.request.method).toBe("POST");
    expect((await call("GET", "/__mock/requests/{requestId}", "/__mock/requests/999999")).status).toBe(404);
    const [delivery] = (await call("GET", "/__mock/webhook-deliveries", "/__mock/webhook-deliveries")).json;
    const redeliver = "/__mock/webhook-deliveries/{deliveryId}/redeliver";
    expect((await call("POST", redeliver, `/__mock/webhook-deliveries/${delivery.deliveryId}/redeliver`)).status).toBe(
      200,
    );
    expect((await call("POST", redeliver, "/__mock/webhook-deliveries/no-such-delivery/redeliver")).status).toBe(404);
    // The event stream: its head and first chunk; the body is text/event-stream, not JSON.
    exercised.add("get /__mock/events");
    const stream = new AbortController();
    const events = await t.raw("/__mock/events", { key: null, signal: stream.signal });
    expect([events.status, events.headers.get("content-type")]).toEqual([200, "text/event-stream; charset=utf-8"]);
    expect(new TextDecoder().decode((await events.body!.getReader().read()).value)).toContain("retry:");
    stream.abort();
    for (const [method, template, concrete, body, status] of [
      ["GET", "/__mock/workspaces", "/__mock/workspaces", undefined, 200],
      ["GET", "/__mock/workspaces/{workspaceId}/{collection}", `/__mock/workspaces/${id}/calls`, undefined, 200],
      [
        "POST",
        "/__mock/workspaces/{workspaceId}/{collection}",
        `/__mock/workspaces/${id}/webhooks`,
        { active: false },
        201,
      ],
      ["GET", "/__mock/workspaces/{workspaceId}/snapshot", `/__mock/workspaces/${id}/snapshot`, undefined, 200],
      // The bundled spec has no generic collection (every operation is hand-written): an empty list, and 404 for a
      // name; their records' shapes are checked on a spec with one in mock-server/test/control/generic-records.test.ts.
      ["GET", "/__mock/workspaces/{workspaceId}/generic", `/__mock/workspaces/${id}/generic`, undefined, 200],
      [
        "GET",
        "/__mock/workspaces/{workspaceId}/generic/{collection}",
        `/__mock/workspaces/${id}/generic/contacts`,
        undefined,
        404,
      ],
      [
        "POST",
        "/__mock/workspaces/{workspaceId}/generic/{collection}",
        `/__mock/workspaces/${id}/generic/contacts`,
        {},
        404,
      ],
      ["GET", "/__mock/clock", "/__mock/clock", undefined, 200],
      ["GET", "/__mock/clock", `/__mock/clock?workspaceId=${id}`, undefined, 200],
      ["POST", "/__mock/clock/advance", "/__mock/clock/advance", { seconds: 1 }, 200],
      ["POST", "/__mock/clock/advance", "/__mock/clock/advance", { seconds: 1, workspaceId: id }, 200],
      [
        "POST",
        "/__mock/faults",
        "/__mock/faults",
        { operationId: "getCall", workspaceId: id, status: 404, times: 1 },
        201,
      ],
      [
        "POST",
        "/__mock/faults",
        "/__mock/faults",
        { latency: { distribution: "lognormal", medianMs: 5, sigma: 0.2 }, seed: 1 },
        201,
      ],
      ["GET", "/__mock/faults", "/__mock/faults", undefined, 200],
      ["DELETE", "/__mock/faults/{faultId}", "/__mock/faults/fault-1", undefined, 204],
      ["DELETE", "/__mock/faults", "/__mock/faults", undefined, 204],
      ["GET", "/__mock/requests", "/__mock/requests", undefined, 200],
      ["GET", "/__mock/requests", `/__mock/requests?workspaceId=${id}&method=GET&status=200&limit=5`, undefined, 200],
      ["GET", "/__mock/requests/count", "/__mock/requests/count?operationId=createChat", undefined, 200],
      ["GET", "/__mock/requests.har", `/__mock/requests.har?workspaceId=${id}&limit=5`, undefined, 200],
      ["GET", "/__mock/coverage", `/__mock/coverage?workspaceId=${id}`, undefined, 200],
      ["GET", "/__mock/operations", "/__mock/operations", undefined, 200],
      ["GET", "/__mock/coverage", "/__mock/coverage?workspaceId=no-such-workspace", undefined, 404],
      ["DELETE", "/__mock/requests", "/__mock/requests", undefined, 204],
      // Empty without --upstream; mock-server/test/upstream/drift.test.ts checks findings against this schema too.
      ["GET", "/__mock/drift", "/__mock/drift?rule=enum&level=documented&where=response&limit=5", undefined, 200],
      ["POST", "/__mock/workspaces/{workspaceId}/reset", `/__mock/workspaces/${id}/reset`, { seed: 3 }, 200],
      ["DELETE", "/__mock/workspaces/{workspaceId}", `/__mock/workspaces/${id}`, undefined, 204],
      ["GET", "/__mock/webhook-deliveries", "/__mock/webhook-deliveries", undefined, 200],
      ["POST", "/__mock/reset", "/__mock/reset", {}, 200],
    ] as const) {
      expect((await call(method, template, concrete, body)).status, `${method} ${concrete}`).toBe(status);
    }
    const snapshot = (
      await call("GET", "/__mock/workspaces/{workspaceId}/snapshot", "/__mock/workspaces/default/snapshot")
    ).json;
    expect(
      (await call("PUT", "/__mock/workspaces/{workspaceId}/snapshot", "/__mock/workspaces/default/snapshot", snapshot))
        .status,
    ).toBe(200);
    const bad = await call("POST", "/__mock/clock/advance", "/__mock/clock/advance", { seconds: -1 });
    expect(bad.status).toBe(400);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "delete", "patch"].includes(m))
        .map((m) => `${m} ${path}`),
    );
    expect(documented.filter((op) => !exercised.has(op))).toEqual([]);
  });
});
