/**
 * GET /__mock/coverage: a consumer (a workspace) sees which response variants its traffic received; a
 * client that walks the recipes of an every-variant workspace reaches 100 %.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../../generated/mock-control.js";
import { RECEIVER_PLACEHOLDER } from "../../control/coverage-recipes.js";
import { useMock } from "../harness.js";

type Coverage = components["schemas"]["Coverage"];
type RecipeRequest = components["schemas"]["RecipeRequest"];

const h = useMock();

async function coverageOf(workspaceId: string): Promise<Coverage> {
  const response = await fetch(`${h.url}/__mock/coverage?workspaceId=${encodeURIComponent(workspaceId)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Coverage;
}

const seen = (coverage: Coverage, operationId: string, kind: string, value: string) =>
  coverage.variants.find((v) => v.operationId === operationId && v.kind === kind && v.value === value)?.seen;

/** Sends one recipe request as a client of the workspace would: /v1 with its key, the receiver filled in. */
async function send(request: RecipeRequest, apiKey: string, receiver: string): Promise<Response> {
  const query = request.query ? `?${new URLSearchParams(request.query)}` : "";
  const headers = new Headers(request.headers);
  if (request.path.startsWith("/v1")) headers.set("X-API-Key", apiKey);
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    body = body.replaceAll(RECEIVER_PLACEHOLDER, receiver);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return fetch(h.url + request.path + query, { method: request.method, headers, body });
}

describe("coverage of one consumer", () => {
  it("counts what the workspace's own answers showed, and lists the rest with how to provoke it", async () => {
    const consumer = await h.workspace({ seed: 7 });
    const other = await h.workspace({ seed: 8 });
    const before = await coverageOf(consumer.workspaceId);
    expect(before.percent).toBe(0);
    expect(before.variants.every((v) => !v.seen && v.howTo.length > 0)).toBe(true);

    // The consumer lists calls (a first page of several) and reads one; never an empty page nor a 404.
    const list = await h.raw("/v1/calls?size=2", { key: consumer.apiKey });
    const page = (await list.json()) as { data: { callId: string; status: string }[]; hasNext: boolean };
    expect(page.hasNext).toBe(true);
    const call = page.data[0];
    expect((await h.raw(`/v1/calls/${call.callId}`, { key: consumer.apiKey })).status).toBe(200);
    // Another workspace's 404 is not the consumer's.
    expect((await h.raw("/v1/calls/00000000-0000-4000-8000-000000000000", { key: other.apiKey })).status).toBe(404);

    const after = await coverageOf(consumer.workspaceId);
    expect(seen(after, "listCalls", "status", "200")).toBe(true);
    expect(seen(after, "listCalls", "page", "first")).toBe(true);
    expect(seen(after, "getCall", "status", "200")).toBe(true);
    expect(seen(after, "getCall", "enum", `status=${call.status}`)).toBe(true);
    expect(seen(after, "listCalls", "page", "empty")).toBe(false);
    expect(seen(after, "getCall", "status", "404")).toBe(false);
    const count = after.variants.filter((v) => v.seen).length;
    expect(after.percent).toBe(Math.floor((100 * count) / after.variants.length));
    expect(after.percent).toBeGreaterThan(0);
    expect(after.percent).toBeLessThan(100);
    expect(seen(await coverageOf(other.workspaceId), "getCall", "status", "404")).toBe(true);
  });

  it("counts faulted and Prefer-forced answers, and forgets with a reset of the workspace", async () => {
    const consumer = await h.workspace({ seed: 9 });
    const fault = await fetch(`${h.url}/__mock/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ operationId: "listAgents", workspaceId: consumer.workspaceId, status: 500, times: 1 }),
    });
    expect(fault.status).toBe(201);
    expect((await h.raw("/v1/agents", { key: consumer.apiKey })).status).toBe(500);
    const forced = await h.raw("/v1/agents", { key: consumer.apiKey, headers: { Prefer: "code=403" } });
    expect(forced.status).toBe(403);
    const coverage = await coverageOf(consumer.workspaceId);
    expect(seen(coverage, "listAgents", "status", "500")).toBe(true);
    expect(seen(coverage, "listAgents", "status", "403")).toBe(true);

    const reset = await fetch(`${h.url}/__mock/workspaces/${consumer.workspaceId}/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    expect((await coverageOf(consumer.workspaceId)).percent).toBe(0);
  });

  it("answers 404 with the error body for a workspace that does not exist", async () => {
    const response = await fetch(`${h.url}/__mock/coverage?workspaceId=nope`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { message: string }).message).toMatch(/nope/);
  });
});

describe("every-variant: walking the recipes reaches 100 %", () => {
  let receiver: Server;
  let receiverUrl: string;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it("every unseen variant has a recipe, and the recipes provoke them all", async () => {
    const created = await fetch(`${h.url}/__mock/workspaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scenario: "every-variant" }),
    });
    expect(created.status).toBe(201);
    const { workspaceId, apiKey } = (await created.json()) as { workspaceId: string; apiKey: string };
    const start = await coverageOf(workspaceId);
    const missing = start.variants.filter((v) => !v.recipe).map((v) => `${v.operationId} ${v.kind} ${v.value}`);
    expect(missing).toEqual([]);
    for (const variant of start.variants) {
      for (const request of variant.recipe ?? []) {
        const response = await send(request, apiKey, receiverUrl);
        await response.arrayBuffer();
        expect(
          response.status,
          `${variant.operationId} ${variant.kind} ${variant.value}: ${request.method} ${request.path}`,
        ).toBeLessThan(request.path.startsWith("/v1") ? 600 : 300);
      }
    }
    await h.mock.mock.services.webhooks.idle();
    const end = await coverageOf(workspaceId);
    const unseen = end.variants.filter((v) => !v.seen).map((v) => `${v.operationId} ${v.kind} ${v.value}`);
    expect(unseen).toEqual([]);
    expect(end.percent).toBe(100);
  });
});
