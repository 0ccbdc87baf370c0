/**
 * GET /__mock/requests.har: a consumer's traffic (a list, credentials sent, a 404, a reset connection, an
 * upload, an answer over 64 KB) exported as HAR 1.2 that readers other than ours open: the HAR schema from
 * npm, httpsnippet (curl) and, where Chromium is, Playwright's routeFromHAR replaying a recorded GET. No
 * secret anywhere in it; the journal's filters apply. The same through the upstream door (forwarded
 * request bodies, a gzipped answer decoded) and across processes on a shared store (--store redis).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Har, HarEntry } from "../../control/har.js";
import { CAPTURE_LIMIT } from "../../store/journal.js";
import { JOURNAL_LIST } from "../../store/redis/keys.js";
import { startMock, type RunningMock } from "../../server.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import { expectErrorBody, useMock } from "../harness.js";
import { redisAvailable, startRedis } from "../redis.js";
import { curlOf, harSchemaErrors } from "./har-readers.js";

const t = useMock();

const REDACTED = "[redacted]";
const SENT = {
  token: "SECRET-token-a1",
  password: "SECRET-password-b2",
  keyValue: "SECRET-keyvalue-c3",
  pairValue: "SECRET-pair-d4",
  trunk: "SECRET-trunk-e5",
};

const json = (method: string, body: unknown) => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

async function har(query = "", base = t.url): Promise<{ status: number; text: string; har: Har }> {
  const res = await fetch(`${base}/__mock/requests.har${query}`);
  const text = await res.text();
  return { status: res.status, text, har: res.ok ? JSON.parse(text) : undefined };
}

const byOperation = (h: Har, operationId: string) => h.log.entries.filter((e) => e._operationId === operationId);

describe("GET /__mock/requests.har", () => {
  let ws: { workspaceId: string; apiKey: string };
  /** Every secret of the workspace: its key, what was sent, and the webhook secrets its answers show. */
  const secrets: string[] = [];
  /** The recorded agents list, and the workspace's integration ids. */
  let listed: string;
  let integrations: string[];
  const send = (path: string, init: RequestInit = {}) => t.raw(path, { ...init, key: ws.apiKey });

  beforeAll(async () => {
    ws = await t.workspace({ seed: 11 });
    const records = async (collection: string) =>
      (await (await t.raw(`/__mock/workspaces/${ws.workspaceId}/${collection}`)).json()) as any[];
    integrations = (await records("integrations")).map((i) => i.integrationId);
    const webhookSecrets = (await records("webhooks")).map((w) => w.secret as string);
    expect(webhookSecrets.length).toBeGreaterThan(0);
    secrets.push(ws.apiKey, ...Object.values(SENT), ...webhookSecrets);

    listed = await (await send("/v1/agents?size=50")).text();
    expect((await send("/v1/webhooks?size=50")).status).toBe(200);
    const [i1, i2, i3, i4] = integrations;
    for (const [id, body] of [
      [i1, { authType: "BEARER", token: SENT.token }],
      [i2, { authType: "BASIC", username: "u", password: SENT.password }],
      [i3, { authType: "API_KEY", apiKey: { key: "X-Key", value: SENT.keyValue, position: "header" } }],
      [i4, { authType: "NONE", headers: [{ key: "Authorization", value: `Bearer ${SENT.pairValue}` }] }],
    ] as const)
      expect((await send(`/v1/integrations/${id}/auth`, json("POST", body))).status).toBe(200);
    const number = (await records("phoneNumbers"))[0].sipPhoneNumber as string;
    await send(`/v1/phone-number/${encodeURIComponent(number)}`, json("PATCH", { trunkPassword: SENT.trunk }));
    expect((await send("/v1/calls/no-such-call")).status).toBe(404);
    // A key in the query is refused, and must not be kept either.
    expect((await t.raw(`/v1/agents?api_key=${ws.apiKey}`, { key: null })).status).toBe(401);

    const upload = new FormData();
    upload.set("name", "Handbook");
    // A text longer than the limit: the form and the answer (which holds the text) are cut.
    upload.set("knowledge_base_texts", JSON.stringify([`${"Returns within 30 days. ".repeat(3500)}`]));
    upload.append("knowledge_base_files", new Blob(["# Returns\nWithin 30 days."]), "returns.md");
    expect((await send("/v1/knowledge-bases", { method: "POST", body: upload })).status).toBe(201);

    const rule = await t.raw(
      "/__mock/faults",
      json("POST", { operationId: "listCalls", workspaceId: ws.workspaceId, kind: "reset", times: 1 }),
    );
    expect(rule.status).toBe(201);
    await expect(send("/v1/calls")).rejects.toThrow();
  });

  it("is HAR 1.2 by the HAR schema, oldest first, and each request is one httpsnippet writes as curl", async () => {
    const { status, har: h } = await har(`?workspaceId=${ws.workspaceId}`);
    expect(status).toBe(200);
    expect(harSchemaErrors(h)).toEqual([]);
    // The check can fail: an entry without its request is refused.
    expect(harSchemaErrors({ log: { ...h.log, entries: [{ ...h.log.entries[0], request: undefined }] } })).not.toEqual(
      [],
    );
    expect(h.log.entries.map((e) => e._operationId)).toEqual([
      "listAgents",
      "listWebhooks",
      "createIntegrationAuth",
      "createIntegrationAuth",
      "createIntegrationAuth",
      "createIntegrationAuth",
      "updatePhoneNumber",
      "getCall",
      "createKnowledgeBase",
      "listCalls",
    ]);
    // On the workspace's clock (virtual here: it stands still), each started `time` before its answer.
    for (const entry of h.log.entries) expect(Number.isNaN(Date.parse(entry.startedDateTime))).toBe(false);
    for (const entry of h.log.entries) {
      // Where the client sent it, by its Host (a replica's, behind the shared-store tests' proxy).
      expect(entry.request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//);
      expect(entry._workspaceId).toBe(ws.workspaceId);
      expect(curlOf(entry.request)).toContain(`curl --request ${entry.request.method}`);
    }
    const [auth] = byOperation(h, "createIntegrationAuth");
    expect(auth.request.postData).toEqual({ mimeType: "application/json", text: expect.any(String) });
    expect(JSON.parse(auth.request.postData!.text!)).toEqual({ authType: "BEARER", token: REDACTED });
    expect(auth.response).toMatchObject({ status: 200, statusText: "OK" });
    expect(curlOf(auth.request)).toContain(`--data '{"authType":"BEARER","token":"${REDACTED}"}'`);
  });

  it("holds no secret: keys, tokens, passwords and webhook secrets read [redacted] wherever they were", async () => {
    const { text, har: h } = await har();
    expect(secrets.filter((s) => text.includes(s))).toEqual([]);
    const listWebhooks = byOperation(h, "listWebhooks")[0];
    expect(listWebhooks.request.headers).toContainEqual({ name: "x-api-key", value: REDACTED });
    const hooks = JSON.parse(listWebhooks.response.content.text!).data as { secret: string }[];
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) expect(hook.secret).toBe(REDACTED);
    const sent = byOperation(h, "createIntegrationAuth").map((e) => JSON.parse(e.request.postData!.text!));
    expect(sent[2].apiKey).toEqual({ key: "X-Key", value: REDACTED, position: "header" });
    expect(sent[3].headers).toEqual([{ key: "Authorization", value: REDACTED }]);
    const refused = h.log.entries.find((e) => e.request.url.includes("api_key="))!;
    expect(refused.response.status).toBe(401);
    expect(refused.request.queryString).toEqual([{ name: "api_key", value: REDACTED }]);
  });

  it("shows a 404 with its body, a reset connection as status 0, and an upload's fields and files", async () => {
    const { har: h } = await har(`?workspaceId=${ws.workspaceId}`);
    const [notFound] = byOperation(h, "getCall");
    expect(notFound.response).toMatchObject({ status: 404, statusText: "Not Found" });
    expectErrorBody(JSON.parse(notFound.response.content.text!), 404, "/v1/calls/no-such-call");
    const [reset] = byOperation(h, "listCalls");
    expect(reset.response).toMatchObject({ status: 0, _error: "connection reset", content: { size: 0 } });
    expect(reset._faultId).toEqual(expect.any(String));
    const [upload] = byOperation(h, "createKnowledgeBase");
    expect(upload.request.postData!.mimeType).toBe("multipart/form-data");
    expect(upload.request.headers).toContainEqual({
      name: "content-type",
      value: expect.stringMatching(/^multipart\/form-data; boundary=/),
    });
    const params = upload.request.postData!.params!;
    expect(params.map((p) => p.name)).toEqual(["name", "knowledge_base_texts", "knowledge_base_files"]);
    expect(params[0]).toEqual({ name: "name", value: "Handbook" });
    expect(params[1].comment).toBe(`cut at ${CAPTURE_LIMIT} bytes`);
    expect(params[2]).toMatchObject({ fileName: "returns.md", comment: "25 bytes" });
    expect(curlOf(upload.request)).toContain("--form name=Handbook");
  });

  it("cuts a body over 64 KB and says so", async () => {
    const { har: h } = await har(`?workspaceId=${ws.workspaceId}&operationId=createKnowledgeBase`);
    const { content, bodySize } = h.log.entries[0].response;
    expect(bodySize).toBeGreaterThan(CAPTURE_LIMIT);
    expect(content).toMatchObject({ size: bodySize, comment: `cut at ${CAPTURE_LIMIT} bytes` });
    expect(new TextEncoder().encode(content.text).length).toBeLessThanOrEqual(CAPTURE_LIMIT);
    expect(content.text!.startsWith('{"')).toBe(true);
  });

  it("takes the journal's filters: operation, workspace, method, status, and the newest `limit`", async () => {
    const ops = (h: Har) => h.log.entries.map((e) => e._operationId);
    const ofWs = `workspaceId=${ws.workspaceId}`;
    expect(ops((await har(`?${ofWs}&operationId=createIntegrationAuth`)).har)).toEqual(
      Array(4).fill("createIntegrationAuth"),
    );
    expect(ops((await har(`?${ofWs}&status=404`)).har)).toEqual(["getCall"]);
    expect(ops((await har(`?${ofWs}&method=patch`)).har)).toEqual(["updatePhoneNumber"]);
    expect(ops((await har(`?${ofWs}&limit=2`)).har)).toEqual(["createKnowledgeBase", "listCalls"]);
    const other = await t.workspace();
    expect((await har(`?workspaceId=${other.workspaceId}`)).har.log.entries).toEqual([]);
    // The control plane's own requests are no /v1 exchanges: never in the HAR.
    expect(
      (await har()).har.log.entries.every((e: HarEntry) => new URL(e.request.url).pathname.startsWith("/v1/")),
    ).toBe(true);
  });

  it("refuses a limit over what the journal keeps with 400", async () => {
    const res = await fetch(`${t.url}/__mock/requests.har?limit=${t.mock.mock.journal.capacity + 1}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, "/__mock/requests.har");
    expect(body.validationErrors.limit).toMatch(/at most/);
  });

  it.skipIf(skipBrowser)(`is replayed by Playwright's routeFromHAR (${CHROMIUM})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "har-"));
    const browser = await launchChromium();
    try {
      const file = join(dir, "mock.har");
      const recorded = await har(`?workspaceId=${ws.workspaceId}`);
      writeFileSync(file, recorded.text);
      // The live answer moves on; the replay must give the recorded one.
      const added = await t.raw(`/__mock/workspaces/${ws.workspaceId}/agents`, json("POST", {}));
      expect(added.status).toBe(201);
      const context = await browser.newContext();
      await context.routeFromHAR(file, { url: "**/v1/**", notFound: "abort" });
      const page = await context.newPage();
      const { url } = byOperation(recorded.har, "listAgents")[0].request;
      expect(url).toMatch(/\/v1\/agents\?size=50$/);
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      // The recorded answer (its webhook secrets redacted), not the live one with the agent added since.
      const replayed = await response!.text();
      expect(replayed).toBe(byOperation(recorded.har, "listAgents")[0].response.content.text);
      const ids = (text: string) => (JSON.parse(text).data as { agentId: string }[]).map((a) => a.agentId);
      expect(ids(replayed)).toEqual(ids(listed));
      const live = await (await send("/v1/agents?size=50")).text();
      expect(ids(live)).toHaveLength(ids(listed).length + 1);
      // A request the HAR does not hold is aborted, not sent to the mock.
      await expect(page.goto(url.replace("size=50", "size=49"))).rejects.toThrow();
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** An upstream that answers what a real mock answers, gzipped, as a deployment behind a CDN would. */
async function gzippingUpstream(real: RunningMock): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await fetch(`${real.url}${req.url}`, {
      method: req.method,
      headers: { "x-api-key": real.apiKey, "content-type": req.headers["content-type"] ?? "application/json" },
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const body = gzipSync(Buffer.from(await answer.arrayBuffer()));
    res.writeHead(answer.status, { "content-type": "application/json", "content-encoding": "gzip" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the HAR of the upstream door", () => {
  let real: RunningMock;
  let upstream: { url: string; close(): Promise<void> };
  let door: RunningMock;

  beforeAll(async () => {
    real = await startMock({ log: () => {} });
    upstream = await gzippingUpstream(real);
    door = await startMock({ upstream: upstream.url, upstreamApiKey: "upstream-key-secret-9", log: () => {} });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
    await real?.close();
  });

  it("shows forwarded request bodies, and gzipped answers decoded with what compression saved", async () => {
    const headers = { "X-API-Key": "client-key-secret-7", "Content-Type": "application/json" };
    const created = await fetch(`${door.url}/v1/integrations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "CRM", description: `token ${SENT.token}`, token: SENT.token }),
    });
    expect([201, 400]).toContain(created.status);
    const hooks = await fetch(`${door.url}/v1/webhooks?size=50`, { headers });
    expect(hooks.status).toBe(200);
    const secretsOfHooks = ((await hooks.json()).data as { secret: string }[]).map((h) => h.secret);
    const { text, har: h } = await har("", door.url);
    expect(harSchemaErrors(h)).toEqual([]);
    const [post, list] = h.log.entries;
    expect(post).toMatchObject({ _source: "upstream", _operationId: "createIntegration" });
    expect(JSON.parse(post.request.postData!.text!)).toEqual({
      name: "CRM",
      description: `token ${REDACTED}`,
      token: REDACTED,
    });
    expect(list.response.headers).toContainEqual({ name: "content-encoding", value: "gzip" });
    const { content } = list.response;
    expect(content.compression).toBeGreaterThan(0);
    expect(content.size).toBe(list.response.bodySize + content.compression!);
    expect(JSON.parse(content.text!).data.length).toBe(secretsOfHooks.length);
    const leaked = [...secretsOfHooks, SENT.token, "client-key-secret-7", "upstream-key-secret-9"].filter((s) =>
      text.includes(s),
    );
    expect(leaked).toEqual([]);
  });
});

describe.skipIf(!redisAvailable() && !process.env.CI)("the HAR on a shared store (--store redis)", () => {
  it("shows what another process served, redacted before it left that process", async () => {
    const redis = await startRedis();
    const a = await startMock({ store: redis.url, log: () => {} });
    const b = await startMock({ store: redis.url, log: () => {} });
    const raw = new Redis(redis.url);
    try {
      const [integrationId] = (
        (await (await fetch(`${a.url}/__mock/workspaces/default/integrations`)).json()) as any[]
      ).map((i) => i.integrationId);
      const sent = await fetch(`${a.url}/v1/integrations/${integrationId}/auth`, {
        ...json("POST", { authType: "BASIC", username: "u", password: SENT.password }),
        headers: { "Content-Type": "application/json", "X-API-Key": a.apiKey },
      });
      expect(sent.status).toBe(200);
      const { text, har: h } = await har("?operationId=createIntegrationAuth", b.url);
      expect(harSchemaErrors(h)).toEqual([]);
      expect(h.log.entries).toHaveLength(1);
      expect(JSON.parse(h.log.entries[0].request.postData!.text!)).toEqual({
        authType: "BASIC",
        username: "u",
        password: REDACTED,
      });
      expect(h.log.entries[0].request.headers).toContainEqual({ name: "x-api-key", value: REDACTED });
      expect(text).not.toContain(SENT.password);
      // What Redis holds has no secret either: it was redacted in the process that served it.
      const stored = (await raw.lrange(JOURNAL_LIST, 0, -1)).join("\n");
      expect(stored).toContain(integrationId);
      expect(stored).not.toContain(SENT.password);
      expect(stored).not.toContain(a.apiKey);
      // The journal's list reads the same entries, their exchanges left aside.
      const listedThere = await (await fetch(`${b.url}/__mock/requests?operationId=createIntegrationAuth`)).json();
      expect(listedThere).toHaveLength(1);
      expect(Object.keys(listedThere[0])).not.toContain("safe");
    } finally {
      raw.disconnect();
      await a.close();
      await b.close();
      await redis.stop();
    }
  });
});
