/**
 * The shared store (--store redis://) with real processes: two mocks on one redis-server are one
 * mock. A write one of them acknowledged is seen by the very next request to the other, the first
 * process seeds and later ones join without reseeding, a reset through either resets both, and a
 * chat whose turns go through both produces one webhook delivery per event.
 * Crashes and scheduled work: shared-store-crash.test.ts; outages, start failures, --workers:
 * shared-store-process.test.ts.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../webhooks/signature.js";
import type { MockProcess } from "../process.js";
import type { RedisServer } from "../redis.js";
import { mockOn, onCleanup, redisForTest, stopAfterEach, until, type Reply } from "./support.js";

stopAfterEach();

/** A mock process on `redis` with a virtual clock. */
const mockOnVirtual = (redis: RedisServer, ...args: string[]) => mockOn(redis, "--clock", "virtual", ...args);

/** JSON requests to one mock process, with the key it printed unless told otherwise; `sent` counts them. */
function clientOf(mock: MockProcess, counter = { sent: 0 }) {
  const send = async (method: string, path: string, body?: unknown, key = mock.apiKey): Promise<Reply> => {
    counter.sent++;
    const headers: Record<string, string> = { "X-API-Key": key };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(mock.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get: (path: string, key?: string) => send("GET", path, undefined, key),
    post: (path: string, body: unknown = {}, key?: string) => send("POST", path, body, key),
    patch: (path: string, body: unknown, key?: string) => send("PATCH", path, body, key),
    del: (path: string, key?: string) => send("DELETE", path, undefined, key),
  };
}

/** The banner line that starts with `label` (the banner may still be coming when spawnMock resolves). */
function bannerLine(mock: MockProcess, label: string): Promise<string> {
  return until(`the "${label}" line of the banner`, async () =>
    mock
      .stdout()
      .split("\n")
      .find((line) => line.trimStart().startsWith(`${label}:`)),
  );
}

describe("two processes on one store", () => {
  it("see every write the other acknowledged on their very next request, and keep one journal", async () => {
    const redis = await redisForTest();
    const counter = { sent: 0 };
    const a = await mockOnVirtual(redis);
    const b = await mockOnVirtual(redis);
    const A = clientOf(a, counter);
    const B = clientOf(b, counter);

    // An integration created through A, read through B; changed through B, read through A.
    const created = await A.post("/v1/integrations", { name: "CRM", description: "Customers" });
    expect(created.status).toBe(201);
    const integration = `/v1/integrations/${created.body.integrationId}`;
    expect(await B.get(integration)).toEqual({ status: 200, body: created.body });
    expect((await B.patch(integration, { name: "CRM (shared)" })).status).toBe(200);
    expect((await A.get(integration)).body.name).toBe("CRM (shared)");

    // A phone number updated through A.
    const phones = await A.get("/v1/phone-number?size=100");
    const number = phones.body.data[0].sipPhoneNumber as string;
    const patched = await A.patch(`/v1/phone-number/${encodeURIComponent(number)}`, { friendlyName: "Shared desk" });
    expect(patched.status).toBe(200);
    const listed = await B.get("/v1/phone-number?size=100");
    expect(listed.body.data.find((p: { sipPhoneNumber: string }) => p.sipPhoneNumber === number).friendlyName).toBe(
      "Shared desk",
    );

    // A workspace created through A's control plane: its key works on B at once.
    const workspace = await A.post("/__mock/workspaces", { empty: true });
    expect(workspace.status).toBe(201);
    expect(await B.get("/v1/agents?size=5", workspace.body.apiKey)).toMatchObject({ status: 200, body: { data: [] } });
    expect((await B.get("/__mock/workspaces")).body.map((w: { workspaceId: string }) => w.workspaceId)).toContain(
      workspace.body.workspaceId,
    );

    // A fault rule set through A applies to B's next request; deleted through B, A no longer applies it.
    const fault = await A.post("/__mock/faults", { operationId: "listAgents", status: 500 });
    expect(fault.status).toBe(201);
    const faulted = await B.get("/v1/agents?size=1");
    expect(faulted.status).toBe(500);
    expect((await B.del(`/__mock/faults/${fault.body.faultId}`)).status).toBe(204);
    expect((await A.get("/v1/agents?size=1")).status).toBe(200);

    // Clocks: the root clock advanced through A, one workspace's clock through B.
    const before = Date.parse((await B.get("/__mock/clock")).body.now);
    expect((await A.post("/__mock/clock/advance", { seconds: 3600 })).status).toBe(200);
    expect(Date.parse((await B.get("/__mock/clock")).body.now) - before).toBe(3_600_000);
    const wsClock = `/__mock/clock?workspaceId=${workspace.body.workspaceId}`;
    const wsBefore = Date.parse((await A.get(wsClock)).body.now);
    expect(
      (await B.post("/__mock/clock/advance", { seconds: 90, workspaceId: workspace.body.workspaceId })).status,
    ).toBe(200);
    expect(Date.parse((await A.get(wsClock)).body.now) - wsBefore).toBe(90_000);

    // One journal: every request made to either process so far, A's included, listed by B.
    const made = counter.sent;
    const journal = (await B.get("/__mock/requests")).body as {
      id: string;
      method: string;
      path: string;
      operationId: string;
      status: number;
    }[];
    expect(journal).toHaveLength(made);
    expect(new Set(journal.map((e) => e.id)).size).toBe(made);
    expect(journal.at(-1)).toMatchObject({
      method: "POST",
      path: "/v1/integrations",
      operationId: "createIntegration",
      status: 201,
    });
    expect(journal.filter((e) => e.operationId === "listAgents").map((e) => e.status)).toEqual([200, 500, 200]);
    expect(a.stderr() + b.stderr()).toBe("");
  });

  it("the first seeds, a later one joins without reseeding, and a reset through either resets both", async () => {
    const redis = await redisForTest();
    const a = await mockOnVirtual(redis);
    const A = clientOf(a);
    expect(await bannerLine(a, "Shared store")).toMatch(
      /^ +Shared store: +redis:\/\/127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)* \(seeded;/,
    );
    const seededAgents = await A.get("/v1/agents?size=100");
    expect(seededAgents.body.data.length).toBeGreaterThan(0);
    const seededCounts = await A.get("/__mock/workspaces");
    const created = await A.post("/v1/integrations", { name: "made before B started" });
    expect(created.status).toBe(201);
    const workspacesBefore = await A.get("/__mock/workspaces");
    expect(workspacesBefore).not.toEqual(seededCounts);

    // Another seed and another key: they would make another mock, but B joins the one there.
    const b = await mockOnVirtual(redis, "--seed", "7", "--api-key", "other-key");
    const B = clientOf(b);
    expect(await bannerLine(b, "Shared store")).toMatch(
      /^ +Shared store: +redis:\/\/127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)* \(joined;/,
    );
    expect(b.apiKey).toBe(a.apiKey);
    expect((await B.get("/v1/agents?size=1", "other-key")).status).toBe(401);
    expect(await B.get("/v1/agents?size=100")).toEqual(seededAgents);
    expect((await B.get(`/v1/integrations/${created.body.integrationId}`)).status).toBe(200);
    expect(await B.get("/__mock/workspaces")).toEqual(workspacesBefore);

    // A reset through B: A finds the created record gone, the seeded ones back, no fault, a fresh journal.
    expect((await A.post("/__mock/faults", { operationId: "getIntegration", status: 500 })).status).toBe(201);
    expect(
      (await A.del(`/v1/qa-rules/${(await A.get("/__mock/workspaces/default/qaRules")).body[0].qaRuleId}`)).status,
    ).toBe(204);
    expect((await B.post("/__mock/reset")).status).toBe(200);
    expect((await A.get(`/v1/integrations/${created.body.integrationId}`)).status).toBe(404);
    expect(await A.get("/v1/agents?size=100")).toEqual(seededAgents);
    expect(await A.get("/__mock/workspaces")).toEqual(seededCounts);
    expect((await A.get("/__mock/faults")).body).toEqual([]);
    // Newest first: what A was asked since the reset, then the reset itself, and nothing from before.
    const journal = (await A.get("/__mock/requests")).body as { operationId: string }[];
    expect(journal.map((e) => e.operationId)).toEqual([
      "listFaults",
      "listWorkspaces",
      "listAgents",
      "getIntegration",
      "resetMock",
    ]);
    expect(a.stderr() + b.stderr()).toBe("");
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe("webhooks with two processes", () => {
  it("a chat whose turns go through both sends each event once, signed", async () => {
    const received: Received[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    onCleanup(() => new Promise((resolve) => (receiver.close(resolve), receiver.closeAllConnections())));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const redis = await redisForTest();
    const a = await mockOnVirtual(redis);
    const b = await mockOnVirtual(redis);
    const A = clientOf(a);
    const B = clientOf(b);
    const { workspaceId, apiKey } = (await A.post("/__mock/workspaces", { empty: true })).body;
    const agent = (
      await A.post(`/__mock/workspaces/${workspaceId}/agents`, { agentSettings: { endCallOnSilenceDuration: 1 } })
    ).body;
    const hook = await B.post(`/__mock/workspaces/${workspaceId}/webhooks`, {
      agentId: agent.agentId,
      url: hookUrl,
      active: true,
      events: "conversation_started,conversation_ended",
    });
    expect(hook.status).toBe(201);

    // Three turns of one conversation, through A, B, A; each resends the history.
    const turn = (client: typeof A, conversation: string) =>
      client.post("/v1/chat", { agentId: agent.agentId, conversation, variables: { customerName: "Dana" } }, apiKey);
    const said = (reply: Reply) => reply.body.response.map((r: { content: string[] }) => r.content[0]).join(" ");
    let history = "User: Do you deliver on Sundays?";
    const first = await turn(A, history);
    expect(first.status).toBe(200);
    history += `\nAgent: ${said(first)}\nUser: And on holidays?`;
    const second = await turn(B, history);
    history += `\nAgent: ${said(second)}\nUser: Thanks.`;
    const third = await turn(A, history);
    expect([second.body.id, third.body.id]).toEqual([first.body.id, first.body.id]);

    const deliveries = async () =>
      (
        (await B.get("/__mock/webhook-deliveries")).body as {
          webhookId: string;
          status: string;
          payload: string;
          attempts: unknown[];
        }[]
      ).filter((d) => d.webhookId === hook.body.webhookId);
    await until("conversation_started delivered", async () =>
      (await deliveries()).some((d) => d.status === "delivered"),
    );
    // The silence (1 minute) ends the conversation. The advance goes well past the lease of the new
    // delivery (2 x webhook timeout + 10 s of clock time) while its first attempt may still be under way:
    // the lease holds (its wall-clock deadline is ahead), so the event is not sent a second time.
    expect((await B.post("/__mock/clock/advance", { seconds: 300, workspaceId })).status).toBe(200);
    expect((await A.get(`/v1/calls/${first.body.id}`, apiKey)).body.status).toBe("ended");
    await until("both deliveries delivered", async () => {
      const all = await deliveries();
      return all.length === 2 && all.every((d) => d.status === "delivered");
    });
    // Much later, through the other process: nothing is sent again.
    expect((await A.post("/__mock/clock/advance", { seconds: 3600, workspaceId })).status).toBe(200);

    const mine = received
      .map((r) => ({ ...r, payload: JSON.parse(r.body) }))
      .filter((r) => r.payload.data.conversationId === first.body.id);
    expect(mine.map((r) => r.payload.event).sort()).toEqual(["conversation_ended", "conversation_started"]);
    expect(new Set(mine.map((r) => r.payload.eventId)).size).toBe(2);
    for (const r of mine) {
      expect(r.headers["x-webhook-id"]).toBe(hook.body.webhookId);
      expect(
        verifyWebhookSignature({
          payload: r.body,
          header: String(r.headers["x-webhook-signature"]),
          secret: hook.body.secret,
        }),
      ).toBe(true);
    }
    const outbox = await deliveries();
    expect(outbox.map((d) => d.attempts.length)).toEqual([1, 1]);
    expect(outbox.map((d) => JSON.parse(d.payload).eventId).sort()).toEqual(mine.map((r) => r.payload.eventId).sort());
    expect(received).toHaveLength(2);
    expect(a.stderr() + b.stderr()).toBe("");
  });
});
