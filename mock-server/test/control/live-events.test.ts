/**
 * GET /__mock/events and what the dashboard reads besides the journals, through every door: the
 * standalone server, a createApp() mount, and the MSW handlers. A request shows as a `request` event
 * with the id its journal entry has; the dashboard's own requests are neither journaled nor sent; a
 * change made through the control plane is announced once it succeeded. Then, on the server: a
 * reader that stops reading costs the mock a bounded queue, not memory; redelivery and `verified`
 * against a real receiver; a clock's pending work.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import type { Mock } from "../../mock/mock.js";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock } from "../../server.js";
import { READER_CAPACITY } from "../../core/events.js";

const quiet = () => undefined;
const KEY = "live-events-key";

interface Door {
  base: string;
  mock: Mock;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const doors: { name: string; open(): Promise<Door> }[] = [
  {
    name: "the standalone server",
    async open() {
      const running = await startMock({ log: quiet, apiKey: KEY, clock: "virtual" });
      return { base: running.url, mock: running.mock, close: () => running.close() };
    },
  },
  {
    name: "a createApp() mount",
    async open() {
      const { default: express } = await import("express");
      const mounted = createApp({ log: quiet, apiKey: KEY, clock: { mode: "virtual" } });
      const parent = express();
      parent.use("/mock", mounted.app);
      const server = createServer(parent);
      const url = await listen(server);
      return {
        base: `${url}/mock`,
        mock: mounted,
        async close() {
          await mounted.close();
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        },
      };
    },
  },
  {
    name: "the MSW handlers",
    async open() {
      const base = "http://live-events.test";
      const { handlers, mock } = createMockHandlers({ baseUrl: base, apiKey: KEY, clock: "virtual", log: quiet });
      const server = setupServer(...handlers);
      server.listen({ onUnhandledRequest: "error" });
      return {
        base,
        mock,
        async close() {
          await mock.close();
          server.close();
        },
      };
    },
  },
];

interface SseEvent {
  type: string;
  data: any;
}

/** Reads a server-sent event stream into `seen` until aborted. */
async function follow(base: string, seen: SseEvent[], signal: AbortSignal, query = ""): Promise<Response> {
  const response = await fetch(`${base}/__mock/events${query}`, { signal, headers: { "X-Mock-Dashboard": "1" } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (type && data) seen.push({ type, data: JSON.parse(data) });
        end = buffer.indexOf("\n\n");
      }
    }
  })().catch(() => undefined);
  return response;
}

async function until<T>(what: () => T | undefined, ms = 3_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = what();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(doors)("live events through $name", ({ open }) => {
  let door: Door;
  const seen: SseEvent[] = [];
  const stream = new AbortController();
  beforeAll(async () => {
    door = await open();
    const response = await follow(door.base, seen, stream.signal);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  });
  afterAll(async () => {
    stream.abort();
    await door.close();
  });

  it("sends a client's request as a request event with its journal entry's id", async () => {
    const answer = await fetch(`${door.base}/v1/calls?size=2`, { headers: { "X-API-Key": KEY } });
    expect(answer.status).toBe(200);
    const event = await until(() => seen.find((e) => e.type === "request" && e.data.operationId === "listCalls"));
    expect(event.data).toMatchObject({ method: "GET", query: "size=2", workspaceId: "default", status: 200 });
    const detail = await (
      await fetch(`${door.base}/__mock/requests/${event.data.id}`, { headers: { "X-Mock-Dashboard": "1" } })
    ).json();
    expect(detail).toMatchObject({ id: event.data.id, operationId: "listCalls", fault: null, drift: [] });
    expect(detail.har.response.status).toBe(200);
    expect(detail.har.request.headers).toContainEqual({ name: "x-api-key", value: "[redacted]" });
  });

  it("neither journals nor sends the dashboard's own requests", async () => {
    const before = seen.length;
    const listed = await fetch(`${door.base}/__mock/workspaces`, { headers: { "X-Mock-Dashboard": "1" } });
    expect(listed.status).toBe(200);
    const marker = await fetch(`${door.base}/__mock/health`);
    expect(marker.status).toBe(200);
    await until(() => seen.find((e) => e.type === "request" && e.data.operationId === "getHealth"));
    expect(seen.slice(before).map((e) => e.data.operationId)).toEqual(["getHealth"]);
    const journal = await (await fetch(`${door.base}/__mock/requests?operationId=listWorkspaces`)).json();
    expect(journal).toEqual([]);
  });

  it("announces fault, clock and workspace changes once they are made", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${door.base}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Mock-Dashboard": "1" },
        body: JSON.stringify(body),
      });
    const rule = await (await post("/__mock/faults", { operationId: "listCalls", status: 500, times: 1 })).json();
    const refused = await post("/__mock/faults", { operationId: "noSuchOperation", status: 500 });
    expect(refused.status).toBe(400);
    const created = await (await post("/__mock/workspaces", { empty: true })).json();
    await post("/__mock/clock/advance", { seconds: 60, workspaceId: created.workspaceId });
    await until(() => seen.find((e) => e.type === "clock"));
    const changes = seen.filter((e) => e.type !== "request").map((e) => [e.type, e.data]);
    expect(changes).toEqual([
      ["fault", { change: "created", faultId: rule.faultId }],
      ["workspace", { change: "created", workspaceId: created.workspaceId }],
      ["clock", { workspaceId: created.workspaceId, now: expect.any(String) }],
    ]);
  });

  it("lists the operations with their statuses, for the fault picker", async () => {
    const operations = await (await fetch(`${door.base}/__mock/operations`)).json();
    expect(operations.find((op: { operationId: string }) => op.operationId === "listCalls")).toMatchObject({
      method: "GET",
      path: "/v1/calls",
      statuses: expect.arrayContaining([200, 400, 401, 500]),
    });
  });
});

describe("the event stream of a reader that stops reading", () => {
  it("keeps at most READER_CAPACITY events for it, and tells it how many it missed", async () => {
    const running = await startMock({ log: quiet, apiKey: KEY });
    try {
      const { port } = new URL(running.url);
      // A client that sends the request and then reads nothing.
      const socket = connect(Number(port), "127.0.0.1");
      socket.write("GET /__mock/events HTTP/1.1\r\nHost: x\r\nX-Mock-Dashboard: 1\r\n\r\n");
      socket.pause();
      await until(() => (running.mock.events.stats().readers === 1 ? true : undefined));
      // 10 MB a batch, one batch per flush, until the socket's buffers are full and the server stops
      // taking batches: from then on the events wait in the reader's queue, which keeps the newest.
      const padding = "x".repeat(10_000);
      const flush = () => new Promise((resolve) => setTimeout(resolve, 250));
      let sent = 0;
      for (let batch = 0; batch < 50; batch++) {
        for (let i = 0; i < READER_CAPACITY; i++) running.mock.events.publish("request", null, { i: sent++, padding });
        await flush();
        if (running.mock.events.stats().pending === READER_CAPACITY) break;
      }
      expect(running.mock.events.stats().pending).toBe(READER_CAPACITY);
      // Still stalled, still bounded: more events replace the oldest waiting ones.
      for (let i = 0; i < 3 * READER_CAPACITY; i++)
        running.mock.events.publish("request", null, { i: sent++, padding });
      await flush();
      expect(running.mock.events.stats().pending).toBe(READER_CAPACITY);
      // Reading again: what it missed is counted in `dropped` events, and the newest arrives.
      let text = "";
      socket.on("data", (chunk) => void (text += chunk.toString("latin1")));
      socket.resume();
      const missed = () =>
        [...text.matchAll(/event: dropped\ndata: \{"count":(\d+)\}/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      await until(() => (text.includes(`"i":${sent - 1},`) ? true : undefined), 10_000);
      expect(missed()).toBeGreaterThanOrEqual(3 * READER_CAPACITY);
      socket.destroy();
    } finally {
      await running.close();
    }
  });
});

describe("webhook deliveries as the dashboard shows them", () => {
  let receiver: Server;
  let receiverUrl = "";
  let answer = 500;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(answer, { "Content-Type": "text/plain" }).end(`receiver says ${answer}`));
    });
    receiverUrl = await listen(receiver);
  });
  afterAll(async () => void (await new Promise((resolve) => receiver.close(resolve))));

  it("verifies each signature, keeps the receiver's answer, and redelivers on request", async () => {
    const running = await startMock({ log: quiet, apiKey: KEY, clock: "virtual" });
    try {
      const control = (path: string, init: RequestInit = {}) =>
        fetch(`${running.url}${path}`, {
          ...init,
          headers: { "Content-Type": "application/json", "X-Mock-Dashboard": "1" },
        });
      const watching = running.mock.events.subscribe({ flushMs: 1 });
      const agents = await (await fetch(`${running.url}/v1/agents`, { headers: { "X-API-Key": KEY } })).json();
      const agentId = agents.data[0].agentId;
      const hook = { agentId, url: `${receiverUrl}/hooks`, events: "conversation_started", active: true };
      await control("/__mock/workspaces/default/webhooks", { method: "POST", body: JSON.stringify(hook) });
      await fetch(`${running.url}/v1/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-API-Key": KEY },
        body: JSON.stringify({ agentId }),
      });
      await running.mock.services.webhooks.idle();
      const [delivery] = (await (await control("/__mock/webhook-deliveries")).json()).filter((d: { url: string }) =>
        d.url.startsWith(receiverUrl),
      );
      expect(delivery).toMatchObject({ status: "pending", verified: true });
      // The stream shows the attempt as the list does: verified.
      let streamed = "";
      while (!/event: delivery\ndata: \{[^\n]*"verified":true/.test(streamed))
        streamed += (await watching.next()) ?? "";
      watching.close();
      expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 500, response: "receiver says 500" })]);
      answer = 204;
      const redelivered = await control(`/__mock/webhook-deliveries/${delivery.deliveryId}/redeliver`, {
        method: "POST",
      });
      expect(redelivered.status).toBe(200);
      const after = await redelivered.json();
      expect(after.status).toBe("delivered");
      expect(after.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 204]);
      expect(after.attempts[1].response).toBeNull();
      // A rotated secret: the signature no longer verifies, and the list says why.
      const hooks = await (await control("/__mock/workspaces/default/webhooks")).json();
      const ours = hooks.find((h: { url: string }) => h.url.startsWith(receiverUrl));
      running.mock.services.workspaces.get("default")!.collections.webhooks.replace(ours.webhookId, {
        ...ours,
        secret: "whsec_rotated",
      });
      const [rotated] = (await (await control("/__mock/webhook-deliveries")).json()).filter(
        (d: { deliveryId: string }) => d.deliveryId === delivery.deliveryId,
      );
      expect(rotated).toMatchObject({ verified: false, verifyError: expect.stringContaining("current secret") });
    } finally {
      await running.close();
    }
  });

  it("answers 404 for an unknown delivery and 409 when its webhook is gone", async () => {
    const running = await startMock({ log: quiet, apiKey: KEY, clock: "virtual" });
    try {
      const post = (path: string) =>
        fetch(`${running.url}${path}`, { method: "POST", headers: { "X-Mock-Dashboard": "1" } });
      const unknown = await post("/__mock/webhook-deliveries/nope/redeliver");
      expect([unknown.status, (await unknown.json()).message]).toEqual([404, "Webhook delivery not found: nope"]);
      const workspace = running.mock.services.workspaces.get("default")!;
      const agentId = workspace.collections.agents.all()[0].agentId;
      const hook = { agentId, url: "https://hooks.example.com/x", events: "conversation_started", active: true };
      const created = await (
        await fetch(`${running.url}/__mock/workspaces/default/webhooks`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(hook),
        })
      ).json();
      await fetch(`${running.url}/v1/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-API-Key": KEY },
        body: JSON.stringify({ agentId }),
      });
      await running.mock.services.webhooks.idle();
      const delivery = workspace.outbox.all().find((d) => d.webhookId === created.webhookId)!;
      expect(delivery.status).toBe("skipped");
      // The reference has no way to delete a webhook: the test takes it out of the store.
      workspace.collections.webhooks.delete(created.webhookId);
      const gone = await post(`/__mock/webhook-deliveries/${delivery.deliveryId}/redeliver`);
      expect(gone.status).toBe(409);
      expect((await gone.json()).message).toContain("no longer exists");
    } finally {
      await running.close();
    }
  });
});

describe("a workspace's clock with its pending work", () => {
  it("shows what an advance would run, soonest first, with each subject's status now", async () => {
    const running = await startMock({ log: quiet, apiKey: KEY, clock: "virtual" });
    try {
      const get = async () => (await fetch(`${running.url}/__mock/clock?workspaceId=default`)).json();
      const before = await get();
      const dues = before.pending.map((p: { dueAt: string }) => p.dueAt);
      expect(dues.length).toBeGreaterThan(0);
      expect([...dues].sort()).toEqual(dues);
      const first = before.pending.find((p: { kind: string }) => p.kind === "call");
      const call = running.mock.services.workspaces.get("default")!.collections.calls.get(first.ref)!;
      expect(first.subjectStatus).toBe(call.status);
      const seconds = (Date.parse(first.dueAt) - Date.parse(before.now)) / 1000 + 1;
      const advanced = await (
        await fetch(`${running.url}/__mock/clock/advance`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ seconds, workspaceId: "default" }),
        })
      ).json();
      const after = running.mock.services.workspaces.get("default")!.collections.calls.get(first.ref)!;
      expect(after.status).not.toBe(first.subjectStatus);
      const next = advanced.pending.find((p: { ref: string }) => p.ref === first.ref);
      if (next) expect(next.subjectStatus).toBe(after.status);
    } finally {
      await running.close();
    }
  });
});
