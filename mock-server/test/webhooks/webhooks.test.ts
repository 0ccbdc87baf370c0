/** Webhook deliveries to a real receiver on loopback: payload, signature, retries, outbox. */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWebhookSignature, verifyWebhookSignature } from "../../webhooks/signature.js";
import { useMock } from "../harness.js";

const t = useMock();

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let failuresLeft = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(500).end();
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

async function hookedAgent(events: string) {
  const { workspaceId, api } = await t.workspace({ empty: true });
  const make = (collection: string, body: Record<string, unknown>) =>
    t.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId, collection: collection as never } },
      body,
    });
  const agent = (await make("agents", {})).data as {
    agentId: string;
    agentSettings: { endCallOnSilenceDuration: number };
  };
  const hook = (await make("webhooks", { agentId: agent.agentId, url: receiverUrl, active: true, events })).data as {
    webhookId: string;
    secret: string;
  };
  return { api, agent, hook };
}

describe("webhook deliveries", () => {
  it("delivers conversation_started, signed with the webhook secret, when a chat starts", async () => {
    received.length = 0;
    const { api, agent, hook } = await hookedAgent("conversation_started");
    await api.POST("/v1/chat", {
      body: { agentId: agent.agentId, conversation: "hi", variables: { customerName: "Dana" } },
    });
    await t.mock.mock.services.webhooks.idle();
    expect(received.length).toBe(1);
    const [delivery] = received;
    const payload = JSON.parse(delivery.body);
    expect(payload.event).toBe("conversation_started");
    expect(payload.agentId).toBe(agent.agentId);
    expect(payload.data.variables).toEqual({ customerName: "Dana" });
    expect(delivery.headers["x-webhook-id"]).toBe(hook.webhookId);
    const header = String(delivery.headers["x-webhook-signature"]);
    // Signed at the wall-clock time of the attempt: a receiver checks it with its own clock, whatever
    // the workspace's virtual time, while the payload's event time follows the workspace clock.
    expect(verifyWebhookSignature({ payload: delivery.body, header, secret: hook.secret })).toBe(true);
    const now = new Date();
    expect(payload.createdAt).toBe(t.mock.mock.services.workspaces.get("default")!.clock.iso());
    expect(Math.abs(Date.parse(payload.createdAt) - now.getTime())).toBeGreaterThan(3_600_000);
    expect(checkWebhookSignature({ payload: `${delivery.body} `, header, secret: hook.secret, now })).toEqual({
      ok: false,
      reason: "signature does not match",
    });
    expect(verifyWebhookSignature({ payload: delivery.body, header, secret: "other", now })).toBe(false);
    const later = new Date(now.getTime() + 301_000);
    expect(verifyWebhookSignature({ payload: delivery.body, header, secret: hook.secret, now: later })).toBe(false);
  });

  it("sends nothing to inactive webhooks or for unsubscribed events", async () => {
    received.length = 0;
    const { api, agent } = await hookedAgent("conversation_ended");
    await api.POST("/v1/chat", { body: { agentId: agent.agentId } });
    await t.mock.mock.services.webhooks.idle();
    expect(received).toEqual([]);
    // The conversation ends once the agent's endCallOnSilenceDuration (minutes) passes without a turn.
    await t.advance(agent.agentSettings.endCallOnSilenceDuration * 60);
    expect(received.map((r) => JSON.parse(r.body).event)).toEqual(["conversation_ended"]);
  });

  it("retries a failing receiver with backoff on the clock and records every attempt", async () => {
    received.length = 0;
    failuresLeft = 2;
    const { api, agent, hook } = await hookedAgent("conversation_started");
    await api.POST("/v1/chat", { body: { agentId: agent.agentId } });
    await t.mock.mock.services.webhooks.idle();
    expect(received.length).toBe(1);
    await t.advance(10);
    expect(received.length).toBe(2);
    await t.advance(20);
    expect(received.length).toBe(3);
    const outbox = (await t.control.GET("/__mock/webhook-deliveries")).data!;
    const mine = outbox.find((d) => d.webhookId === hook.webhookId)!;
    expect(mine.status).toBe("delivered");
    expect(mine.attempts.map((a) => a.statusCode)).toEqual([500, 500, 204]);
    // Every attempt carries the same body; the signature is fresh each time.
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  });
});
