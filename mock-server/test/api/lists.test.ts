/** Lists: the 2.1 wrapper, bounds, defaults, ordering and filters of E1, E8, E10, E14, E17. */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

const LISTS = ["/v1/agents", "/v1/test-runs", "/v1/calls", "/v1/phone-number", "/v1/webhooks"];

describe("pagination wrapper", () => {
  it.each(LISTS)("%s defaults to page 0 size 10 and keeps the arithmetic exact", async (path) => {
    const res = await t.raw(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await res.json();
    const total = path === "/v1/phone-number" ? body.totalCounts : body.totalCount;
    expect(body.page).toBe(0);
    expect(body.size).toBe(10);
    expect(body.data.length).toBe(Math.min(10, total));
    expect(body.totalPages).toBe(Math.ceil(total / 10));
    expect(body.hasPrevious).toBe(false);
    expect(body.hasNext).toBe(total > 10);
  });

  it("names the phone list's total totalCounts and every other total totalCount", async () => {
    const phones = await (await t.raw("/v1/phone-number")).json();
    expect(phones).toHaveProperty("totalCounts");
    expect(phones).not.toHaveProperty("totalCount");
    const calls = await (await t.raw("/v1/calls")).json();
    expect(calls).toHaveProperty("totalCount");
    expect(calls).not.toHaveProperty("totalCounts");
  });

  it("walks every page of calls to exactly totalCount distinct items, with exact hasNext/hasPrevious", async () => {
    const first = await (await t.raw("/v1/calls?size=7")).json();
    const seen = new Set<string>();
    for (let page = 0; page < first.totalPages; page++) {
      const body = await (await t.raw(`/v1/calls?size=7&page=${page}`)).json();
      expect(body.hasPrevious).toBe(page > 0);
      expect(body.hasNext).toBe(page < first.totalPages - 1);
      for (const call of body.data) seen.add(call.callId);
    }
    expect(seen.size).toBe(first.totalCount);
    const past = await (await t.raw(`/v1/calls?size=7&page=${first.totalPages + 3}`)).json();
    expect(past.data).toEqual([]);
    expect(past.hasNext).toBe(false);
    expect(past.hasPrevious).toBe(true);
  });

  it.each([
    ["page=-1", "page"],
    ["size=0", "size"],
    ["size=abc", "size"],
    ["page=1.5", "page"],
    ["page=2147483648", "page"],
    ["size=1&size=2", "size"],
  ])("rejects %s with 400 naming %s", async (query, field) => {
    const res = await t.raw(`/v1/calls?${query}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, "/v1/calls");
    expect(Object.keys(body.validationErrors)).toContain(field);
  });
});

describe("ordering and filters", () => {
  it("lists calls most recently created first", async () => {
    const body = await (await t.raw("/v1/calls?size=50")).json();
    const created = body.data.map((c: { createdAt: string }) => Date.parse(c.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it("puts a call created through the control plane first", async () => {
    const { data } = await t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId: "default", collection: "calls" } },
      body: { status: "ended" },
    });
    const body = await (await t.raw("/v1/calls?size=1")).json();
    expect(body.data[0].callId).toBe((data as { callId: string }).callId);
  });

  it.each(["scheduled", "in_progress", "ended", "not_connected", "error"])(
    "filters calls by status %s",
    async (status) => {
      const body = await (await t.raw(`/v1/calls?status=${status}&size=100`)).json();
      expect(body.data.every((c: { status: string }) => c.status === status)).toBe(true);
      expect(body.totalCount).toBe(body.data.length);
    },
  );

  it("rejects an unknown call status with 400 naming status", async () => {
    const res = await t.raw("/v1/calls?status=done");
    expect(res.status).toBe(400);
    // Errors carry the same media type as successes, without a charset parameter.
    expect(res.headers.get("content-type")).toBe("application/json");
    expect((await res.json()).validationErrors).toHaveProperty("status");
  });

  it("returns only enabled webhooks by default, disabled ones with active=false, newest first", async () => {
    const on = await (await t.raw("/v1/webhooks?size=100")).json();
    const off = await (await t.raw("/v1/webhooks?active=false&size=100")).json();
    expect(on.data.length).toBeGreaterThan(0);
    expect(off.data.length).toBeGreaterThan(0);
    expect(on.data.every((w: { active: boolean }) => w.active)).toBe(true);
    expect(off.data.every((w: { active: boolean }) => !w.active)).toBe(true);
    expect(on.data.every((w: { events: unknown }) => typeof w.events === "string")).toBe(true);
    const agentId = on.data[0].agentId;
    const mine = await (await t.raw(`/v1/webhooks?agentId=${agentId}&size=100`)).json();
    expect(mine.data.length).toBeGreaterThan(0);
    expect(mine.data.every((w: { agentId: string; active: boolean }) => w.agentId === agentId && w.active)).toBe(true);
    expect((await t.raw("/v1/webhooks?active=maybe")).status).toBe(400);
  });

  it("filters test runs by batch and agent", async () => {
    const all = await (await t.raw("/v1/test-runs?size=100")).json();
    const batchId = all.data[0].batchId;
    const byBatch = await (await t.raw(`/v1/test-runs?batchId=${batchId}&size=100`)).json();
    expect(byBatch.data.length).toBeGreaterThan(0);
    expect(byBatch.data.every((r: { batchId: string }) => r.batchId === batchId)).toBe(true);
    const agentId = all.data[0].agent.agentId;
    const both = await (await t.raw(`/v1/test-runs?batchId=${batchId}&agentId=${agentId}&size=100`)).json();
    expect(both.totalCount).toBe(byBatch.totalCount);
    const none = await (await t.raw(`/v1/test-runs?batchId=no-such-batch`)).json();
    expect(none.totalCount).toBe(0);
  });
});
