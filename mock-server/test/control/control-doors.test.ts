/**
 * The control plane for tests (issue 11), through the standalone server and through the MSW handlers:
 * fault rules, request verification, one workspace reset or deleted, a clock per workspace, webhook
 * signatures on the wall clock, and Prefer: delay over the cap. Each test works in workspaces of its
 * own, so the cases do not see each other's requests, faults or time.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../core/exchange.js";
import type { Mock } from "../../mock/mock.js";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock } from "../../server.js";
import { verifyWebhookSignature } from "../../webhooks/signature.js";

interface Door {
  base: string;
  mock: Mock;
  close(): Promise<void>;
}

const quiet = () => undefined;
/** What the request log hook was told, through either door. */
const logged: RequestLogEntry[] = [];
const onRequest = (entry: RequestLogEntry) => void logged.push(entry);

const doors: { name: string; open(): Promise<Door> }[] = [
  {
    name: "the standalone server",
    async open() {
      const running = await startMock({ log: quiet, onRequest });
      return { base: running.url, mock: running.mock, close: () => running.close() };
    },
  },
  {
    name: "the MSW handlers (setupServer)",
    async open() {
      const base = "http://control.test";
      const { handlers, mock } = createMockHandlers({ baseUrl: base, clock: "virtual", log: quiet, onRequest });
      const server = setupServer(...handlers);
      // Webhook deliveries go to a real receiver on loopback: let them through.
      server.listen({ onUnhandledRequest: "bypass" });
      return {
        base,
        mock,
        async close() {
          server.close();
          await mock.close();
        },
      };
    },
  },
];

describe.each(doors)("control plane through $name", ({ open }) => {
  let door: Door;
  beforeAll(async () => void (door = await open()));
  afterAll(async () => door.close());

  const send = async (method: string, path: string, body?: unknown, key?: string) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["X-API-Key"] = key;
    const res = await fetch(door.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
  };
  const control = (method: string, path: string, body?: unknown) => send(method, `/__mock${path}`, body);
  const workspace = async (body: object = {}) =>
    (await control("POST", "/workspaces", body)).json as { workspaceId: string; apiKey: string };
  const fault = async (rule: object) => {
    const created = await control("POST", "/faults", rule);
    expect(created.status, created.text).toBe(201);
    return created.json as { faultId: string; seed: number };
  };
  const firstCallId = async (key: string) =>
    (await send("GET", "/v1/calls?size=1", undefined, key)).json.data[0].callId as string;

  describe("fault rules", () => {
    it("answers a documented error status with the error body, for that workspace only, and journals it", async () => {
      const [a, b] = [await workspace(), await workspace()];
      const rule = await fault({ operationId: "listCalls", workspaceId: a.workspaceId, status: 500 });
      const failed = await send("GET", "/v1/calls", undefined, a.apiKey);
      expect(failed.status).toBe(500);
      expect(failed.headers.get("content-type")).toMatch(/^application\/json/);
      expect(failed.json).toMatchObject({ status: 500, error: "Internal Server Error", path: "/v1/calls" });
      expect(failed.json.message).toContain(rule.faultId);
      expect(typeof failed.json.timestamp).toBe("string");
      expect((await send("GET", "/v1/calls", undefined, b.apiKey)).status).toBe(200);
      expect((await send("GET", "/v1/agents", undefined, a.apiKey)).status).toBe(200);
      const [entry] = (await control("GET", `/requests?workspaceId=${a.workspaceId}&operationId=listCalls`)).json;
      expect(entry).toMatchObject({
        operationId: "listCalls",
        workspaceId: a.workspaceId,
        status: 500,
        faultId: rule.faultId,
      });
      const listed = (await control("GET", "/faults")).json.find(
        (r: { faultId: string }) => r.faultId === rule.faultId,
      );
      expect(listed).toMatchObject({
        operationId: "listCalls",
        workspaceId: a.workspaceId,
        kind: "status",
        status: 500,
        matched: 1,
        applied: 1,
      });
      expect((await control("DELETE", `/faults/${rule.faultId}`)).status).toBe(204);
      expect((await control("DELETE", `/faults/${rule.faultId}`)).status).toBe(404);
      expect((await send("GET", "/v1/calls", undefined, a.apiKey)).status).toBe(200);
    });

    it("changes nothing in the store when it answers instead of the service", async () => {
      const w = await workspace();
      const ruleId = (await send("GET", `/__mock/workspaces/${w.workspaceId}/qaRules`)).json[0].qaRuleId as string;
      for (const kind of [{ status: 500 }, { kind: "empty" }, { kind: "reset" }]) {
        await fault({ operationId: "deleteQaRule", workspaceId: w.workspaceId, times: 1, ...kind });
        const deleting = fetch(`${door.base}/v1/qa-rules/${ruleId}`, {
          method: "DELETE",
          headers: { "X-API-Key": w.apiKey },
        });
        if ("kind" in kind && kind.kind === "reset") await expect(deleting).rejects.toThrow();
        else expect((await deleting).status).toBe("kind" in kind ? 200 : 500);
        expect((await send("GET", `/v1/qa-rules/${ruleId}`, undefined, w.apiKey)).status).toBe(200);
      }
      const journal = (await control("GET", `/requests?workspaceId=${w.workspaceId}&operationId=deleteQaRule`)).json;
      expect(journal.map((e: { status: number | null }) => e.status)).toEqual([null, 200, 500]);
      // Used up (times: 1): the real service answers again.
      expect((await send("DELETE", `/v1/qa-rules/${ruleId}`, undefined, w.apiKey)).status).toBe(204);
    });

    it("empty answers 200 with no body; slow trickles the real answer; a delay serves it late", async () => {
      const w = await workspace();
      const callId = await firstCallId(w.apiKey);
      const real = (await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).text;
      await fault({ operationId: "getCall", workspaceId: w.workspaceId, kind: "empty", times: 1 });
      const empty = await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey);
      expect([empty.status, empty.text, empty.headers.get("content-type")]).toEqual([200, "", null]);

      await fault({ operationId: "getCall", workspaceId: w.workspaceId, kind: "slow", trickleMs: 300, times: 1 });
      let started = performance.now();
      const slow = await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect([slow.status, slow.text]).toEqual([200, real]);

      await fault({ operationId: "getCall", workspaceId: w.workspaceId, delayMs: 200, times: 1 });
      started = performance.now();
      expect((await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).text).toBe(real);
      expect(performance.now() - started).toBeGreaterThanOrEqual(180);

      await fault({
        operationId: "getCall",
        workspaceId: w.workspaceId,
        latency: { distribution: "uniform", minMs: 120, maxMs: 160 },
        times: 1,
      });
      started = performance.now();
      expect((await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    });

    it("skips `after` matches, stops after `times`, and tries rules in creation order", async () => {
      const w = await workspace();
      const callId = await firstCallId(w.apiKey);
      await fault({ operationId: "getCall", workspaceId: w.workspaceId, status: 404, after: 1, times: 2 });
      await fault({ workspaceId: w.workspaceId, status: 403, times: 1, after: 3 });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).status);
      // 1st: skipped by both rules (the first's `after`, the second's 1st of 3 skips); 2nd, 3rd: the first
      // rule; 4th, 5th: the first is used up, the second skips its 2nd and 3rd; 6th: the second; 7th: none.
      expect(statuses).toEqual([200, 404, 404, 200, 200]);
      expect((await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).status).toBe(403);
      expect((await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).status).toBe(200);
    });

    it("applies a probability reproducibly from its seed", async () => {
      const w = await workspace();
      const pattern = async () => {
        const rule = await fault({
          operationId: "listAgents",
          workspaceId: w.workspaceId,
          status: 500,
          probability: 0.5,
          seed: 42,
        });
        const statuses: number[] = [];
        for (let i = 0; i < 24; i++) statuses.push((await send("GET", "/v1/agents", undefined, w.apiKey)).status);
        await control("DELETE", `/faults/${rule.faultId}`);
        return statuses;
      };
      const first = await pattern();
      expect(new Set(first)).toEqual(new Set([200, 500]));
      expect(await pattern()).toEqual(first);
      const drawn = await fault({
        operationId: "listAgents",
        workspaceId: w.workspaceId,
        status: 500,
        probability: 0.5,
      });
      expect(Number.isInteger(drawn.seed)).toBe(true);
    });

    it("refuses a rule it could not honour, with the error body naming the field", async () => {
      const w = await workspace();
      const refused = async (rule: object, field: string) => {
        const res = await control("POST", "/faults", rule);
        expect(res.status, JSON.stringify(rule)).toBe(400);
        expect(Object.keys(res.json.validationErrors), JSON.stringify(rule)).toContain(field);
        return res.json.validationErrors[field] as string;
      };
      expect(await refused({ operationId: "listCalls", status: 503 }, "status")).toContain("400, 401, 403, 404, 500");
      expect(await refused({ status: 413 }, "status")).toContain("every operation");
      await refused({ operationId: "listCalls", status: 200 }, "status");
      await refused({ operationId: "noSuchOperation", status: 500 }, "operationId");
      await refused({ workspaceId: "ws-nope", status: 500 }, "workspaceId");
      await refused({ kind: "explode" }, "kind");
      await refused({ kind: "slow", status: 500 }, "status");
      await refused({ kind: "empty", trickleMs: 100 }, "trickleMs");
      await refused({ operationId: "listCalls" }, "kind");
      await refused({ delayMs: 60_001 }, "delayMs");
      await refused({ delayMs: 10, latency: { distribution: "fixed", ms: 10 } }, "latency");
      await refused({ latency: { distribution: "lognormal", medianMs: 100 } }, "latency");
      await refused({ status: 500, probability: 0 }, "probability");
      await refused({ status: 500, color: "red" }, "color");
      // A documented status only some operations have is fine once the operation is named.
      const upload = await fault({ operationId: "createKnowledgeBase", workspaceId: w.workspaceId, status: 413 });
      expect(
        (await control("GET", "/faults")).json.some((r: { faultId: string }) => r.faultId === upload.faultId),
      ).toBe(true);
      expect((await control("DELETE", "/faults")).status).toBe(204);
      expect((await control("GET", "/faults")).json).toEqual([]);
    });
  });

  describe("request verification", () => {
    it("filters the journal by operation, workspace, method and status, limits it, and counts", async () => {
      const w = await workspace();
      const callId = await firstCallId(w.apiKey);
      await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey);
      await send("GET", "/v1/calls/no-such-call", undefined, w.apiKey);
      await send("GET", "/v1/agents", undefined, w.apiKey);
      const mine = `workspaceId=${w.workspaceId}`;
      const calls = (await control("GET", `/requests?${mine}&operationId=getCall`)).json;
      expect(calls.map((e: { path: string; status: number }) => [e.path, e.status])).toEqual([
        ["/v1/calls/no-such-call", 404],
        [`/v1/calls/${callId}`, 200],
      ]);
      expect((await control("GET", `/requests?${mine}&status=404`)).json).toHaveLength(1);
      expect(
        (await control("GET", `/requests?${mine}&method=get&limit=2`)).json.map(
          (e: { operationId: string }) => e.operationId,
        ),
      ).toEqual(["listAgents", "getCall"]);
      expect((await control("GET", `/requests/count?${mine}`)).json).toEqual({ count: 4 });
      expect((await control("GET", `/requests/count?${mine}&operationId=getCall&status=200`)).json).toEqual({
        count: 1,
      });
      expect((await control("GET", `/requests/count?${mine}&method=POST`)).json).toEqual({ count: 0 });
      // Control-plane requests are named by their operation in spec/mock-control.yaml.
      await control("GET", "/health");
      expect((await control("GET", "/requests?limit=1&operationId=getHealth")).json[0]).toMatchObject({
        path: "/__mock/health",
        workspaceId: null,
        faultId: null,
      });
      expect((await control("GET", "/requests?colour=red")).status).toBe(400);
      expect((await control("GET", "/requests/count?status=abc")).status).toBe(400);
      expect((await control("GET", "/requests?limit=0")).status).toBe(400);
    });
  });

  describe("workspaces", () => {
    it("resets one workspace to its seed, leaving the others as they are", async () => {
      const [a, b] = [await workspace({ seed: 5 }), await workspace({ seed: 6 })];
      const ruleOf = async (w: { workspaceId: string }) =>
        (await control("GET", `/workspaces/${w.workspaceId}/qaRules`)).json[0].qaRuleId as string;
      const [ruleA, ruleB] = [await ruleOf(a), await ruleOf(b)];
      expect((await send("DELETE", `/v1/qa-rules/${ruleA}`, undefined, a.apiKey)).status).toBe(204);
      expect((await send("DELETE", `/v1/qa-rules/${ruleB}`, undefined, b.apiKey)).status).toBe(204);
      await fault({ workspaceId: a.workspaceId, status: 500, operationId: "listWebhooks" });
      const reset = await control("POST", `/workspaces/${a.workspaceId}/reset`);
      expect(reset.status).toBe(200);
      expect(reset.json).toMatchObject({ workspaceId: a.workspaceId, seed: 5 });
      expect((await send("GET", `/v1/qa-rules/${ruleA}`, undefined, a.apiKey)).status).toBe(200);
      expect((await send("GET", `/v1/qa-rules/${ruleB}`, undefined, b.apiKey)).status).toBe(404);
      // Its journal entries and fault rules went with it; the other workspace's stayed.
      expect(
        (await control("GET", `/requests/count?workspaceId=${a.workspaceId}&operationId=deleteQaRule`)).json.count,
      ).toBe(0);
      expect(
        (await control("GET", `/requests/count?workspaceId=${b.workspaceId}&operationId=deleteQaRule`)).json.count,
      ).toBe(1);
      expect((await send("GET", "/v1/webhooks", undefined, a.apiKey)).status).toBe(200);
      expect((await control("POST", `/workspaces/${a.workspaceId}/reset`, { seed: "x" })).status).toBe(400);
      expect((await control("POST", "/workspaces/ws-nope/reset")).status).toBe(404);
    });

    it("deletes a workspace: its key then gets 401; the default workspace cannot be deleted", async () => {
      const w = await workspace();
      expect((await send("GET", "/v1/agents", undefined, w.apiKey)).status).toBe(200);
      expect((await control("DELETE", `/workspaces/${w.workspaceId}`)).status).toBe(204);
      const refused = await send("GET", "/v1/agents", undefined, w.apiKey);
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ status: 401, path: "/v1/agents" });
      expect((await control("GET", `/workspaces/${w.workspaceId}/agents`)).status).toBe(404);
      expect((await control("DELETE", `/workspaces/${w.workspaceId}`)).status).toBe(404);
      expect(
        (await control("GET", "/workspaces")).json.some(
          (x: { workspaceId: string }) => x.workspaceId === w.workspaceId,
        ),
      ).toBe(false);
      const keep = await control("DELETE", "/workspaces/default");
      expect(keep.status).toBe(409);
      expect(keep.json.message).toContain("reset");
    });
  });

  describe("a clock per workspace", () => {
    it("advancing one workspace moves only its calls; advancing all moves every workspace", async () => {
      const [a, b] = [await workspace({ empty: true }), await workspace({ empty: true })];
      const scheduled = async (w: { workspaceId: string }) =>
        (await control("POST", `/workspaces/${w.workspaceId}/calls`, { status: "scheduled" })).json.callId as string;
      const [callA, callB] = [await scheduled(a), await scheduled(b)];
      const statusOf = async (w: { apiKey: string }, callId: string) =>
        (await send("GET", `/v1/calls/${callId}`, undefined, w.apiKey)).json.status as string;
      const nowOf = async (w: { workspaceId: string }) =>
        Date.parse((await control("GET", `/clock?workspaceId=${w.workspaceId}`)).json.now);
      const before = [await nowOf(a), await nowOf(b)];

      const moved = await control("POST", "/clock/advance", { seconds: 3600, workspaceId: a.workspaceId });
      expect(moved.json.workspaceId).toBe(a.workspaceId);
      expect(await statusOf(a, callA)).not.toBe("scheduled");
      expect(await statusOf(b, callB)).toBe("scheduled");
      expect((await nowOf(a)) - before[0]).toBe(3_600_000);
      expect(await nowOf(b)).toBe(before[1]);

      const root = Date.parse((await control("GET", "/clock")).json.now);
      await control("POST", "/clock/advance", { seconds: 60 });
      expect(await statusOf(b, callB)).not.toBe("scheduled");
      expect((await nowOf(b)) - before[1]).toBe(60_000);
      expect((await nowOf(a)) - before[0]).toBe(3_660_000);
      expect(Date.parse((await control("GET", "/clock")).json.now) - root).toBe(60_000);
      expect((await control("GET", "/clock?workspaceId=ws-nope")).status).toBe(404);
      expect((await control("POST", "/clock/advance", { seconds: 1, workspaceId: "ws-nope" })).status).toBe(404);
    });

    it("signs webhooks with the wall clock while the payload follows the workspace clock", async () => {
      const received: { body: string; headers: IncomingHttpHeaders }[] = [];
      const receiver = createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          received.push({ body, headers: req.headers });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      try {
        const w = await workspace({ empty: true });
        await control("POST", "/clock/advance", { seconds: 86_400, workspaceId: w.workspaceId });
        const agent = (await control("POST", `/workspaces/${w.workspaceId}/agents`, {})).json;
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const hook = (
          await control("POST", `/workspaces/${w.workspaceId}/webhooks`, {
            agentId: agent.agentId,
            url,
            active: true,
            events: "conversation_started",
          })
        ).json;
        expect((await send("POST", "/v1/chat", { agentId: agent.agentId, conversation: "hi" }, w.apiKey)).status).toBe(
          200,
        );
        await door.mock.services.webhooks.idle();
        expect(received).toHaveLength(1);
        const header = String(received[0].headers["x-webhook-signature"]);
        expect(verifyWebhookSignature({ payload: received[0].body, header, secret: hook.secret })).toBe(true);
        const workspaceNow = (await control("GET", `/clock?workspaceId=${w.workspaceId}`)).json.now;
        expect(JSON.parse(received[0].body).createdAt).toBe(workspaceNow);
      } finally {
        receiver.closeAllConnections();
        await new Promise((resolve) => receiver.close(resolve));
      }
    });
  });

  it("tells the request log hook of every request: method, path, status, ms, operation, workspace, fault", async () => {
    const w = await workspace();
    const rule = await fault({ operationId: "listAgents", workspaceId: w.workspaceId, status: 403, times: 1 });
    logged.length = 0;
    await send("GET", "/v1/agents?size=1", undefined, w.apiKey);
    await send("GET", "/v1/agents", undefined, w.apiKey);
    await control("GET", "/health");
    expect(logged.map(({ durationMs, ...rest }) => (expect(durationMs).toBeGreaterThanOrEqual(0), rest))).toEqual([
      {
        method: "GET",
        path: "/v1/agents",
        status: 403,
        operationId: "listAgents",
        workspaceId: w.workspaceId,
        faultId: rule.faultId,
        faultKind: "status",
      },
      {
        method: "GET",
        path: "/v1/agents",
        status: 200,
        operationId: "listAgents",
        workspaceId: w.workspaceId,
        faultId: null,
        faultKind: null,
      },
      {
        method: "GET",
        path: "/__mock/health",
        status: 200,
        operationId: "getHealth",
        workspaceId: null,
        faultId: null,
        faultKind: null,
      },
    ]);
  });

  it("refuses Prefer: delay over the cap with 400 and the reason", async () => {
    const res = await send("GET", "/v1/agents", undefined, (await workspace()).apiKey);
    expect(res.status).toBe(200);
    const over = await fetch(`${door.base}/v1/agents`, {
      headers: { "X-API-Key": door.mock.options.apiKey, Prefer: "delay=60001" },
    });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { message: string }).message).toContain("60000 ms");
  });
});
