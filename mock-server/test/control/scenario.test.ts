/**
 * The every-variant scenario through the server: POST /__mock/workspaces {"scenario":"every-variant"}
 * seeds a workspace whose plain GETs show the variants (a call with status error, one with recordingUrl
 * null, a running test run, a middle page), a reset seeds the same scenario again, `--scenario` seeds the
 * default workspace of the CLI process, and what cannot be is refused: a scenario with empty: true, an
 * unknown name (400 from the spec's enum; the CLI exits 2 with the known names). Another mock on the
 * same Redis store knows the workspace's scenario and reseeds it.
 */
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "../../../generated/client.js";
import { startMock } from "../../server.js";
import { expectErrorBody, useMock } from "../harness.js";
import { runMockToExit, spawnMock } from "../process.js";
import { startRedis } from "../redis.js";

const t = useMock();

async function scenarioWorkspace() {
  const { data, response } = await t.control.POST("/__mock/workspaces", { body: { scenario: "every-variant" } });
  expect(response.status).toBe(201);
  return { ...data!, api: createPlatformClient({ baseUrl: t.url, apiKey: data!.apiKey }) };
}

describe("POST /__mock/workspaces with a scenario", () => {
  it("seeds a workspace whose GETs show every variant", async () => {
    const { api, workspaceId } = await scenarioWorkspace();
    const calls = (await api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    expect(calls.data.length).toBe(calls.totalCount);
    expect(new Set(calls.data.map((c) => c.status))).toEqual(
      new Set(["scheduled", "in_progress", "ended", "not_connected", "error"]),
    );
    const get = async (callId: string) => (await api.GET("/v1/calls/{callId}", { params: { path: { callId } } })).data!;
    const failed = await get(calls.data.find((c) => c.status === "error")!.callId);
    expect(failed.status).toBe("error");
    const unrecorded = await get(calls.data.find((c) => c.status === "ended" && c.recordingUrl === null)!.callId);
    expect(unrecorded.recordingUrl).toBeNull();
    const recorded = await get(calls.data.find((c) => c.recordingUrl !== null)!.callId);
    expect(recorded.recordingUrl).toMatch(/^https:\/\//);
    // A status filter still pages: the middle page of the calls in progress.
    const middle = (await api.GET("/v1/calls", { params: { query: { status: "in_progress", size: 1, page: 1 } } }))
      .data!;
    expect([middle.data.length, middle.hasPrevious, middle.hasNext]).toEqual([1, true, true]);

    const runs = (await api.GET("/v1/test-runs", { params: { query: { size: 100 } } })).data!;
    expect(runs.data.some((r) => r.completedDate === null)).toBe(true);
    expect(runs.data.some((r) => r.isSuccessful === false)).toBe(true);

    // Every auth type, and none, on integrations read by id.
    const stored = (
      await t.control.GET("/__mock/workspaces/{workspaceId}/{collection}", {
        params: { path: { workspaceId, collection: "integrations" } },
      })
    ).data as { integrationId: string }[];
    const authTypes = new Set<string | null>();
    for (const { integrationId } of stored) {
      const read = await api.GET("/v1/integrations/{integrationId}", { params: { path: { integrationId } } });
      authTypes.add(read.data!.authentication?.authType ?? null);
    }
    expect(authTypes).toEqual(new Set(["API_KEY", "BEARER", "BASIC", "NONE", null]));
  });

  it("keeps its live calls when the clock moves on a month", async () => {
    const { api } = await scenarioWorkspace();
    const live = async () =>
      (await api.GET("/v1/calls", { params: { query: { status: "scheduled" } } })).data!.totalCount +
      (await api.GET("/v1/calls", { params: { query: { status: "in_progress" } } })).data!.totalCount;
    expect(await live()).toBe(6);
    await t.advance(30 * 86_400);
    expect(await live()).toBe(6);
  });

  it("seeds the same scenario again on reset", async () => {
    const { api, workspaceId } = await scenarioWorkspace();
    const list = async () => (await api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
    const before = await list();
    const { data: created } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId, collection: "calls" } },
      body: { status: "ended" },
    });
    expect((await list()).totalCount).toBe(before.totalCount + 1);
    const reset = await t.control.POST("/__mock/workspaces/{workspaceId}/reset", {
      params: { path: { workspaceId } },
      body: {},
    });
    expect(reset.response.status).toBe(200);
    expect(await list()).toEqual(before);
    const gone = await api.GET("/v1/calls/{callId}", {
      params: { path: { callId: (created as { callId: string }).callId } },
    });
    expect(gone.response.status).toBe(404);
  });

  it("refuses a scenario with empty: true, with the 2.2 body", async () => {
    const res = await t.raw("/__mock/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ empty: true, scenario: "every-variant" }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, "/__mock/workspaces");
    expect(body.validationErrors.scenario).toMatch(/cannot be combined with empty/);
    expect(body.message).toMatch(/scenario/);
    // Each alone is fine.
    expect((await t.control.POST("/__mock/workspaces", { body: { empty: true } })).response.status).toBe(201);
    expect(
      (await t.control.POST("/__mock/workspaces", { body: { empty: false, scenario: "every-variant" } })).response
        .status,
    ).toBe(201);
  });

  it("refuses a scenario the spec does not name", async () => {
    const before = (await t.control.GET("/__mock/workspaces")).data!.length;
    const res = await t.raw("/__mock/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scenario: "every-thing" }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, "/__mock/workspaces");
    expect(Object.keys(body.validationErrors ?? {}).join()).toMatch(/scenario/);
    expect((await t.control.GET("/__mock/workspaces")).data!.length).toBe(before);
  });
});

describe("--scenario", () => {
  it("seeds the default workspace of the CLI process with the scenario", async () => {
    const mock = await spawnMock(["--scenario", "every-variant", "--clock", "virtual"]);
    try {
      // spawnMock returns once the address is printed; the rest of the banner may still be on its way.
      await expect.poll(() => mock.stdout(), { timeout: 5000 }).toContain("Scenario:           every-variant");
      const api = createPlatformClient({ baseUrl: mock.url, apiKey: mock.apiKey });
      const scheduled = (await api.GET("/v1/calls", { params: { query: { status: "scheduled" } } })).data!;
      expect(scheduled.totalCount).toBe(3);
      const calls = (await api.GET("/v1/calls", { params: { query: { size: 100 } } })).data!;
      // The scenario's world, not the usual one (some 60 calls and the spec's documented records).
      expect(calls.totalCount).toBeLessThan(40);
      expect(calls.data.some((c) => c.status === "error" && c.startTime === null)).toBe(true);
    } finally {
      await mock.stop();
    }
  });

  it("exits 2 on an unknown name, with one line naming the known ones", async () => {
    const exit = await runMockToExit(["--scenario", "every-thing"]);
    expect(exit.code).toBe(2);
    const lines = exit.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("every-variant");
    expect(lines[0]).toContain("every-thing");
  });
});

describe("a scenario on a shared store", () => {
  it("is known to every mock on the store, which reseeds it on reset", async () => {
    const redis = await startRedis();
    const a = await startMock({ store: redis.url, log: () => undefined });
    const b = await startMock({ store: redis.url, log: () => undefined });
    try {
      const created = await fetch(`${a.url}/__mock/workspaces`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ scenario: "every-variant" }),
      });
      const { workspaceId, apiKey } = await created.json();
      const list = async (url: string) =>
        (await createPlatformClient({ baseUrl: url, apiKey }).GET("/v1/calls", { params: { query: { size: 100 } } }))
          .data!;
      const before = await list(b.url);
      expect(before.data.filter((c) => c.status === "scheduled")).toHaveLength(3);
      const reset = await fetch(`${b.url}/__mock/workspaces/${workspaceId}/reset`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      expect(reset.status).toBe(200);
      expect(b.mock.services.workspaces.get(workspaceId)?.scenario).toBe("every-variant");
      expect(await list(a.url)).toEqual(before);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    }
  });
});
