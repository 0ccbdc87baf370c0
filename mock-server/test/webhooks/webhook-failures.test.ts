/**
 * Webhook receivers that fail: down (connection refused), slow (no answer within the per-attempt
 * timeout) or answering 500. Deliveries are retried a bounded number of times with exponential
 * backoff on the clock, every attempt is recorded in the outbox, the delivery ends `failed`, and the
 * mock serves other requests while deliveries wait (and its clock does not wait for them).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { useMock, type Harness } from "../harness.js";

const ATTEMPTS = 4;
const BACKOFF_S = 10;
const TIMEOUT_MS = 300;
const t = useMock({ webhooks: { maxAttempts: ATTEMPTS, backoffSeconds: BACKOFF_S, timeoutMs: TIMEOUT_MS } });

/** A receiver on loopback; `answer` decides per request (leaving `res` unanswered holds it). */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const held: ServerResponse[] = [];
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    answer(req, res);
    if (!res.writableEnded) held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    held,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

interface Target {
  url: string;
  seen?: IncomingMessage[];
  close?: () => Promise<void>;
}

async function closedPortUrl(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

/** An empty workspace with one agent whose webhook points at `url`; returns a function that starts a conversation. */
async function hooked(h: Pick<Harness, "workspace" | "control">, url: string) {
  const { workspaceId, api } = await h.workspace({ empty: true });
  const make = (collection: string, body: Record<string, unknown>) =>
    h.control.POST("/__mock/workspaces/{workspaceId}/{collection}", {
      params: { path: { workspaceId, collection: collection as never } },
      body,
    });
  const agent = (await make("agents", {})).data as { agentId: string };
  const hook = (await make("webhooks", { agentId: agent.agentId, url, active: true, events: "conversation_started" }))
    .data as { webhookId: string };
  return {
    workspaceId,
    agent,
    hook,
    converse: () => api.POST("/v1/chat", { body: { agentId: agent.agentId, conversation: "hi" } }),
  };
}

const deliveryOf = async (webhookId: string) =>
  (await t.control.GET("/__mock/webhook-deliveries")).data!.find((d) => d.webhookId === webhookId)!;

describe("receivers that fail", () => {
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => void (await Promise.all(open.map((r) => r.close()))));

  it.each([
    ["down (connection refused)", async () => ({ url: await closedPortUrl() }), null, /^request failed: /],
    [
      "slow (no answer within the timeout)",
      async () => receiver(() => undefined),
      null,
      new RegExp(`^no answer within ${TIMEOUT_MS} ms$`),
    ],
    [
      "answering 500",
      async () => receiver((_req, res) => void res.writeHead(500).end()),
      500,
      /^receiver answered 500$/,
    ],
  ] as [string, () => Promise<Target>, number | null, RegExp][])(
    `%s: ${ATTEMPTS} attempts with backoff on the clock, then failed`,
    async (_name, make, statusCode, error) => {
      const target = await make();
      if (target.close) open.push({ close: target.close });
      const { hook, converse } = await hooked(t, target.url);
      const start = Date.parse((await t.control.GET("/__mock/clock")).data!.now);
      const logsBefore = t.logs.length;
      await converse();
      await t.mock.mock.services.webhooks.idle();

      // Retries wait for the clock: 10 s, then 20 s, then 40 s later.
      let delivery = await deliveryOf(hook.webhookId);
      expect([delivery.status, delivery.attempts.length, delivery.nextAttemptAt]).toEqual([
        "pending",
        1,
        new Date(start + 10_000).toISOString(),
      ]);
      await t.advance(BACKOFF_S - 1);
      expect((await deliveryOf(hook.webhookId)).attempts.length).toBe(1);
      await t.advance(1);
      expect((await deliveryOf(hook.webhookId)).attempts.length).toBe(2);
      await t.advance(3600);
      delivery = await deliveryOf(hook.webhookId);
      expect(delivery.status).toBe("failed");
      expect(delivery.nextAttemptAt).toBeNull();
      expect(delivery.attempts.map((a) => Date.parse(a.at) - start)).toEqual([0, 10_000, 30_000, 70_000]);
      for (const attempt of delivery.attempts) {
        expect(attempt.statusCode).toBe(statusCode);
        expect(attempt.error).toMatch(error);
      }
      // Bounded: no attempt after the last, however far the clock goes.
      await t.advance(86_400);
      expect((await deliveryOf(hook.webhookId)).attempts.length).toBe(ATTEMPTS);
      if (target.seen) expect(target.seen.length).toBe(ATTEMPTS);
      expect(t.logs.slice(logsBefore).filter((l) => l.includes(`failed after ${ATTEMPTS} attempts`))).toHaveLength(1);
    },
  );
});

describe("while deliveries wait", () => {
  let slowMock: RunningMock;
  let slow: Awaited<ReturnType<typeof receiver>>;
  const logs: string[] = [];
  beforeAll(async () => {
    // A real clock, 100 times fast; a long per-attempt timeout, so an attempt waits on the receiver
    // for as long as the test holds it.
    slowMock = await startMock({
      clock: { mode: "real", speed: 100 },
      log: (l) => void logs.push(l),
      webhooks: { timeoutMs: 60_000, maxAttempts: 2, backoffSeconds: 1 },
    });
    slow = await receiver(() => undefined);
  });
  afterAll(async () => {
    for (const res of slow?.held ?? []) if (!res.writableEnded) res.writeHead(204).end();
    await slow?.close();
    await slowMock?.close();
    expect(logs.filter((l) => /failed: |scheduled task failed/.test(l))).toEqual([]);
  });

  it("serves other requests, and a retry held by a slow receiver does not hold back the clock", async () => {
    const control = (path: string, body?: unknown) =>
      fetch(
        slowMock.url + path,
        body === undefined
          ? {}
          : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
      );
    const workspace = await (await control("/__mock/workspaces", { empty: true })).json();
    const agent = await (await control(`/__mock/workspaces/${workspace.workspaceId}/agents`, {})).json();
    await control(`/__mock/workspaces/${workspace.workspaceId}/webhooks`, {
      agentId: agent.agentId,
      url: slow.url,
      active: true,
      events: "conversation_started",
    });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(slowMock.url + path, { ...init, headers: { ...init.headers, "X-API-Key": workspace.apiKey } });
    const deliveries = async () =>
      (await (await control("/__mock/webhook-deliveries")).json()).filter(
        (d: { workspaceId: string }) => d.workspaceId === workspace.workspaceId,
      );
    expect(
      (
        await api("/v1/chat", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ agentId: agent.agentId }),
        })
      ).status,
    ).toBe(200);
    while (slow.held.length === 0) await new Promise((r) => setTimeout(r, 10));

    // The first attempt is waiting on the receiver; everything else is answered meanwhile.
    const answered = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        api(["/v1/calls", "/v1/agents", "/v1/webhooks", "/v1/phone-number", "/v1/test-runs"][i % 5]).then(
          (r) => r.status,
        ),
      ),
      api("/v1/integrations", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"name":"meanwhile"}',
      }).then((r) => r.status),
      control("/__mock/health").then((r) => r.status),
    ]);
    expect(answered).toEqual([...Array(10).fill(200), 201, 200]);
    expect(
      (await deliveries()).map((d: { status: string; attempts: unknown[] }) => [d.status, d.attempts.length]),
    ).toEqual([["pending", 0]]);
    expect(slow.held[0].writableEnded).toBe(false);

    // The first attempt fails; its retry (1 s of clock time later) is held by the receiver in turn.
    slow.held[0].writeHead(500).end();
    while (slow.held.length < 2) await new Promise((r) => setTimeout(r, 10));
    // A call due 5 to 30 s of clock time from now: it moves on while the retry is still held.
    const call = await (
      await control(`/__mock/workspaces/${workspace.workspaceId}/calls`, {
        status: "scheduled",
        agent: { agentId: agent.agentId, name: "a", status: "Live" },
      })
    ).json();
    let status = "scheduled";
    for (let waited = 0; status === "scheduled" && waited < 15_000; waited += 25) {
      await new Promise((r) => setTimeout(r, 25));
      status = (await (await api(`/v1/calls/${call.callId}`)).json()).status;
    }
    expect(status).not.toBe("scheduled");
    expect(slow.held[1].writableEnded).toBe(false);
    // The chat's delivery (the oldest: the call's own conversation_started may have joined it) still waits on its retry.
    expect((await deliveries()).at(-1).attempts).toHaveLength(1);
  });
});
