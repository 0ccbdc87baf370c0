/**
 * The MSW door where Web Crypto's `subtle` is withheld: jest's jsdom environments (jest-fixed-jsdom
 * included) give a `crypto` with getRandomValues only, as browsers do outside a secure context. The
 * mock must still tell keys apart and sign webhook deliveries that verify (core/portable-crypto.ts).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { verifyWebhookSignature } from "../../webhooks/signature.js";

const baseUrl = "https://api.no-subtle.test";
const nodeCrypto = globalThis.crypto;

describe("MSW handlers without crypto.subtle", () => {
  const received: { body: string; headers: IncomingHttpHeaders }[] = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => (received.push({ body, headers: req.headers }), res.writeHead(204).end()));
  });
  let mock: ReturnType<typeof createMockHandlers>["mock"];
  let server: ReturnType<typeof setupServer>;

  beforeAll(async () => {
    vi.stubGlobal("crypto", { getRandomValues: (array: Uint8Array) => nodeCrypto.getRandomValues(array) });
    expect(globalThis.crypto.subtle).toBeUndefined();
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const made = createMockHandlers({ baseUrl, clock: "virtual", log: () => undefined });
    mock = made.mock;
    server = setupServer(...made.handlers);
    server.listen({ onUnhandledRequest: "bypass" });
  });
  afterAll(async () => {
    server.close();
    await mock.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    vi.unstubAllGlobals();
  });

  const call = (method: string, path: string, apiKey?: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(apiKey && { "X-API-Key": apiKey }),
        ...(body !== undefined && { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("accepts the right key, refuses a near miss, and knows a new workspace's key at once", async () => {
    expect((await call("GET", "/v1/agents?size=1", "mock-api-key")).status).toBe(200);
    expect((await call("GET", "/v1/agents?size=1", "mock-api-keY")).status).toBe(401);
    const created = (await (await call("POST", "/__mock/workspaces", undefined, { empty: true })).json()) as {
      apiKey: string;
    };
    expect((await call("GET", "/v1/agents", created.apiKey)).status).toBe(200);
  });

  it("answers Prefer: dynamic=true with generated ids", async () => {
    const res = await fetch(`${baseUrl}/v1/agents?size=1`, {
      headers: { "X-API-Key": "mock-api-key", Prefer: "dynamic=true" },
    });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: { agentId: string }[] };
    for (const agent of page.data)
      expect(agent.agentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("signs a webhook delivery that node:crypto verifies", async () => {
    const workspace = (await (await call("POST", "/__mock/workspaces", undefined, { empty: true })).json()) as {
      workspaceId: string;
      apiKey: string;
    };
    const agent = (await (
      await call("POST", `/__mock/workspaces/${workspace.workspaceId}/agents`, undefined, {})
    ).json()) as { agentId: string };
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = (await (
      await call("POST", `/__mock/workspaces/${workspace.workspaceId}/webhooks`, undefined, {
        agentId: agent.agentId,
        url,
        active: true,
        events: "conversation_started",
      })
    ).json()) as { secret: string };
    expect(
      (await call("POST", "/v1/chat", workspace.apiKey, { agentId: agent.agentId, conversation: "hi" })).status,
    ).toBe(200);
    await mock.services.webhooks.idle();
    expect(received).toHaveLength(1);
    const header = String(received[0]!.headers["x-webhook-signature"]);
    expect(verifyWebhookSignature({ payload: received[0]!.body, header, secret: hook.secret })).toBe(true);
    expect(verifyWebhookSignature({ payload: `${received[0]!.body} `, header, secret: hook.secret })).toBe(false);
  });
});
