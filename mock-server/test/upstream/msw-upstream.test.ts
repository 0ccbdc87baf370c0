/**
 * The MSW door in front of an upstream, in Node (msw/node's setupServer, global fetch): the app's
 * requests to its base URL go to a real upstream (a mock on a socket, another seed than the in-page
 * mock's) through MSW's bypass, come back unchanged with X-Mock-Source, are checked for drift (the
 * in-page control plane's /__mock/drift and the `log` option) and recorded into the in-page mock's
 * `recorded` workspace; `route` keeps an operation on the in-page mock. An upstream that is not there
 * answers 502 with the 2.2 body. With the app's base URL the upstream's own origin, the forwarded
 * request is not caught again: one request reaches the upstream, no loop.
 * Unhandled requests are errors here, so anything that slips past both the handlers and the bypass shows.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { bypass } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers, type MockHandlersOptions } from "../../msw/handlers.js";
import { startMock, type RunningMock } from "../../server.js";
import { startUpstream } from "./broken-upstream.js";
import { without } from "../dotted-paths.js";

type Json = Record<string, any>;

const APP = "http://app.test";
const server = setupServer();
let upstream: RunningMock;
let key: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  upstream = await startMock({ port: 0, host: "127.0.0.1", seed: 7, clock: "virtual", log: () => undefined });
  key = upstream.apiKey;
  server.listen({ onUnhandledRequest: "error" });
});
afterEach(() => server.resetHandlers());
afterAll(async () => {
  server.close();
  for (const close of closers.splice(0)) await close();
  await upstream.close();
});

/** In-page handlers for `baseUrl` in front of `upstreamUrl`, installed for the current test; closed at the end. */
function door(options: MockHandlersOptions) {
  const made = createMockHandlers({ clock: "virtual", log: () => undefined, ...options });
  closers.push(() => made.mock.close());
  server.use(...made.handlers);
  return made;
}

/** Straight to the upstream, past MSW. */
async function direct(path: string): Promise<any> {
  const res = await fetch(bypass(`${upstream.url}${path}`, { headers: { "X-API-Key": key } }));
  expect(res.status).toBe(200);
  return res.json();
}

async function get(url: string, headers: Record<string, string> = { "X-API-Key": key }) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, source: res.headers.get("x-mock-source"), body: text ? JSON.parse(text) : undefined };
}

const ids = (page: { data: Json[] }, field = "callId") => page.data.map((r) => r[field] as string);

describe("createMockHandlers({ upstream }) under msw/node", () => {
  it("forwards to the upstream, keeps a routed operation on the in-page mock, checks drift and records", async () => {
    door({ baseUrl: APP, upstream: upstream.url, record: true, route: "listWebhooks=mock" });

    const calls = await get(`${APP}/v1/calls?page=0&size=5`);
    expect([calls.status, calls.source]).toEqual([200, "upstream"]);
    const fromUpstream = await direct("/v1/calls?page=0&size=5");
    expect(ids(calls.body)).toEqual(ids(fromUpstream));
    expect(calls.body).toEqual(fromUpstream);

    // Routed to the in-page mock: it answers from the door's workspace (recorded, created empty).
    const webhooks = await get(`${APP}/v1/webhooks`);
    expect([webhooks.status, webhooks.source]).toEqual([200, "mock"]);
    expect(webhooks.body.data).toEqual([]);
    expect((await direct("/v1/webhooks")).data.length).toBeGreaterThan(0);

    // A request the spec refuses: the upstream answers it, the door files a request finding.
    const zero = await get(`${APP}/v1/calls?size=0`);
    expect([zero.status, zero.source]).toEqual([400, "upstream"]);
    const findings = (await get(`${APP}/__mock/drift?where=request`, {})).body as Json[];
    expect(findings).toEqual([
      expect.objectContaining({
        operationId: "listCalls",
        where: "request",
        rule: "schema",
        path: "/query/size",
        workspaceId: "recorded",
        level: "documented",
      }),
    ]);
    expect(findings[0].exchange.request).toMatchObject({ method: "GET", url: "/v1/calls?size=0" });
    expect(findings[0].exchange.request.headers["x-api-key"]).toBe("[redacted]");
    // The upstream's answers are the spec's: no response finding.
    expect((await get(`${APP}/__mock/drift?where=response`, {})).body).toEqual([]);

    // The calls the page held are in the in-page mock's recorded workspace, as the upstream sent them.
    const recorded = (await get(`${APP}/__mock/workspaces/recorded/calls`, {})).body as Json[];
    expect(new Set(recorded.map((c) => c.callId))).toEqual(new Set(ids(fromUpstream)));
    for (const call of recorded) expect(call).toEqual(fromUpstream.data.find((c: Json) => c.callId === call.callId));
    expect((await get(`${APP}/__mock/workspaces/recorded/webhooks`, {})).body).toEqual([]);
  });

  it("tells a broken answer once on the log, and lists it at /__mock/drift", async () => {
    const call = (await direct("/v1/calls?size=1")).data[0] as Json;
    const broken = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ ...call, status: "bogus" }));
    });
    await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => broken.close(resolve)));
    const lines: string[] = [];
    const base = "http://broken.test";
    door({
      baseUrl: base,
      upstream: `http://127.0.0.1:${(broken.address() as AddressInfo).port}`,
      log: (l) => lines.push(l),
    });

    for (let i = 0; i < 2; i++) {
      const answer = await get(`${base}/v1/calls/${call.callId}`);
      expect([answer.status, answer.source, answer.body.status]).toEqual([200, "upstream", "bogus"]);
    }
    const findings = (await get(`${base}/__mock/drift?operationId=getCall`, {})).body as Json[];
    expect(findings.length).toBeGreaterThanOrEqual(2);
    expect(findings[0]).toMatchObject({ operationId: "getCall", where: "response", path: "/status" });
    expect(findings[0].exchange.response).toMatchObject({ status: 200, body: { status: "bogus" } });
    // Asked twice, told once.
    const drift = lines.filter((l) => l.startsWith("drift"));
    expect(drift).toHaveLength(1);
    expect(drift[0]).toMatch(/^drift \(documented\) getCall response \w+ at \/status: /);
  });

  it("records what an upstream sends without the fields only the record rule adds, filled, and serves it back", async () => {
    const agentPage = await direct("/v1/agents?size=100");
    const [a, b] = agentPage.data as Json[];
    const lacking = [
      without(a, ["agentSettings.globalPrompt", "agentSettings.agentTimezone", "agentSettings.webhooks"]),
      without(b, ["agentSettings.globalPrompt"]),
    ];
    // Refused at the documented level too: a welcome type the reference does not list.
    const loud = without({ ...(agentPage.data[2] as Json), welcomeMessageType: "loud" }, ["agentSettings.webhooks"]);
    const staging = await startUpstream({
      "GET /v1/agents": { status: 200, body: { ...agentPage, data: [...lacking, loud] } },
    });
    closers.push(() => staging.close());
    const lines: string[] = [];
    const base = "http://staging.test";
    door({ baseUrl: base, upstream: staging.url, record: true, log: (l) => lines.push(l) });

    for (let i = 0; i < 2; i++) {
      const answer = await get(`${base}/v1/agents`);
      expect([answer.status, answer.source]).toEqual([200, "upstream"]);
    }
    const recorded = (await get(`${base}/__mock/workspaces/recorded/agents`, {})).body as Json[];
    const redacted = (webhooks: Json[]) => webhooks.map((w) => ({ ...w, secret: "[redacted]" }));
    const expected: Json[] = [
      {
        ...lacking[0],
        agentSettings: { ...lacking[0].agentSettings, globalPrompt: null, agentTimezone: null, webhooks: [] },
      },
      {
        ...lacking[1],
        agentSettings: {
          ...lacking[1].agentSettings,
          globalPrompt: null,
          webhooks: redacted(b.agentSettings.webhooks),
        },
      },
    ];
    expect(new Map(recorded.map((r) => [r.agentId, r]))).toEqual(new Map(expected.map((r) => [r.agentId, r])));
    expect(lines.filter((l) => l.startsWith("recording:"))).toEqual([
      "recording: agents from the upstream lacked agentSettings.globalPrompt, agentSettings.agentTimezone, agentSettings.webhooks; filled as the spec's record rule says (null, [])",
    ]);
    expect(lines.filter((l) => l.startsWith("not recorded:"))).toEqual([
      `not recorded: agents ${loud.agentId} fails the spec (welcomeMessageType must be one of: static, prompt)`,
    ]);

    // Offline: in-page handlers with no upstream, the recording imported, answers checked by the mock.
    const snapshot = (await get(`${base}/__mock/workspaces/recorded/snapshot`, {})).body;
    const offline = "http://offline.test";
    door({ baseUrl: offline });
    const made = await fetch(`${offline}/__mock/workspaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ empty: true }),
    });
    expect(made.status).toBe(201);
    const { workspaceId, apiKey } = (await made.json()) as { workspaceId: string; apiKey: string };
    const imported = await fetch(`${offline}/__mock/workspaces/${workspaceId}/snapshot`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(snapshot),
    });
    expect(imported.status).toBe(200);
    const served = await get(`${offline}/v1/agents?size=100`, { "X-API-Key": apiKey });
    expect([served.status, served.source]).toEqual([200, null]);
    expect(new Map((served.body.data as Json[]).map((r) => [r.agentId, r]))).toEqual(
      new Map(expected.map((r) => [r.agentId, r])),
    );
  });

  it("answers 502 with the 2.2 body when the upstream is not there", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const base = "http://down.test";
    door({ baseUrl: base, upstream: `http://127.0.0.1:${port}`, record: true });

    const answer = await get(`${base}/v1/calls`);
    expect(answer.status).toBe(502);
    expect(Object.keys(answer.body).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
    expect(answer.body).toMatchObject({ status: 502, path: "/v1/calls" });
    expect(answer.body.message).toContain(`127.0.0.1:${port}`);
    expect(answer.body.message).not.toContain(key);
    expect((await get(`${base}/__mock/workspaces/recorded/calls`, {})).body).toEqual([]);
  });

  it("with the upstream's own origin as base URL, the forwarded request goes out once, no loop", async () => {
    const before = upstream.mock.journal.count({ operationId: "listCalls" }) as number;
    door({ baseUrl: upstream.url, upstream: upstream.url });
    const answer = await get(`${upstream.url}/v1/calls?size=3`);
    expect([answer.status, answer.source]).toEqual([200, "upstream"]);
    expect(answer.body).toEqual(await direct("/v1/calls?size=3"));
    // The page's own request and the direct one: two, not a request caught and forwarded again and again.
    expect(upstream.mock.journal.count({ operationId: "listCalls" })).toBe(before + 2);
  });
});
