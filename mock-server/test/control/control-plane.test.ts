/** The /__mock control plane, determinism of the seed, Prefer controls, routing and CORS. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KIT_VERSION } from "../../core/defaults.js";
import { startMock } from "../../server.js";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

describe("control plane", () => {
  it("answers health, lists collections, fills partial records coherently", async () => {
    expect((await t.control.GET("/__mock/health")).data).toEqual({
      status: "ok",
      kit: "agent-platform-mock-kit",
      version: KIT_VERSION,
    });
    // The identity follows the package: a bumped version is answered by the next mock.
    expect(KIT_VERSION).toBe(
      JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")).version,
    );
    const { data, response } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId: "default", collection: "calls" } },
      body: { status: "ended", callType: "inbound" },
    });
    expect(response.status).toBe(201);
    const call = data as Record<string, any>;
    expect(call.startTime).toBeTruthy();
    expect(call.endTime).toBeTruthy();
    expect(call.duration).toBe(Math.round((Date.parse(call.endTime) - Date.parse(call.startTime)) / 1000));
    expect(call.terminationReason).toBeTruthy();
    const fetched = await t.api.GET("/v1/calls/{callId}", { params: { path: { callId: call.callId } } });
    expect(fetched.data).toEqual(call);
    const bad = await t.raw("/__mock/workspaces/default/widgets");
    expect(bad.status).toBe(404);
    expectErrorBody(await bad.json(), 404, "/__mock/workspaces/default/widgets");
  });

  it("resets every workspace to its seed state", async () => {
    const { api } = await t.workspace({ seed: 5 });
    const before = (await api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    await api.POST("/v1/integrations", { body: { name: "temporary" } });
    await t.control.POST("/__mock/reset", { body: {} });
    const after = (await api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    expect(after).toEqual(before);
  });

  it("exports and imports a snapshot", async () => {
    const { workspaceId } = await t.workspace({ seed: 3 });
    const snapshot = (
      await t.control.GET("/__mock/workspaces/{workspaceId}/snapshot", { params: { path: { workspaceId } } })
    ).data!;
    const target = await t.workspace({ empty: true });
    const imported = await t.control.PUT("/__mock/workspaces/{workspaceId}/snapshot", {
      params: { path: { workspaceId: target.workspaceId } },
      body: snapshot,
    });
    expect(imported.data!.counts.calls).toBe((snapshot.calls as unknown[]).length);
  });
});

describe("determinism", () => {
  it("gives byte-identical responses for the same seed and clock start", async () => {
    const bodies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const mock = await startMock({ seed: 42, log: () => undefined });
      const texts = await Promise.all(
        [
          "/v1/calls?size=100",
          "/v1/agents?size=100",
          "/v1/webhooks?size=100",
          "/v1/phone-number?size=100",
          "/v1/test-runs?size=100",
        ].map(async (p) => (await fetch(mock.url + p, { headers: { "X-API-Key": mock.apiKey } })).text()),
      );
      bodies.push(texts.join("\n"));
      await mock.close();
    }
    expect(bodies[0]).toBe(bodies[1]);
    expect(bodies[0].length).toBeGreaterThan(1000);
  });
});

describe("Prefer", () => {
  it("serves a declared status, a named example, a generated body, and refuses an undeclared status", async () => {
    const forced = await t.raw("/v1/calls", { headers: { Prefer: "code=404" } });
    expect(forced.status).toBe(404);
    expectErrorBody(await forced.json(), 404, "/v1/calls");
    const example = await t.raw("/v1/calls/any", { headers: { Prefer: "example=notConnected" } });
    expect(example.status).toBe(200);
    expect((await example.json()).status).toBe("not_connected");
    const dynamic = await t.raw("/v1/agents", { headers: { Prefer: "dynamic=true" } });
    expect(dynamic.status).toBe(200);
    expect(Array.isArray((await dynamic.json()).data)).toBe(true);
    expect((await t.raw("/v1/calls", { headers: { Prefer: "code=418" } })).status).toBe(400);
    const started = Date.now();
    expect((await t.raw("/v1/agents", { headers: { Prefer: "delay=200" } })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe("routing", () => {
  it("answers an unknown path 404 and a wrong method 405 with Allow, both in the error body", async () => {
    const unknown = await t.raw("/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expectErrorBody(await unknown.json(), 404, "/v1/nothing-here");
    const wrong = await t.raw("/v1/calls", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("GET");
    expectErrorBody(await wrong.json(), 405, "/v1/calls");
  });

  it("answers CORS preflights and serves the spec and the docs", async () => {
    const preflight = await t.raw("/v1/calls", {
      method: "OPTIONS",
      key: null,
      headers: {
        Origin: "http://localhost:3000",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-api-key",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect((await (await t.raw("/openapi.json")).json()).openapi).toBe("3.1.0");
    expect(await (await t.raw("/docs")).text()).toContain('data-operation-id="listCalls"');
  });
});
