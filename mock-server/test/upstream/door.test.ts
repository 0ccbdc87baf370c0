/**
 * The upstream door (`startMock({ upstream })`, `--upstream`) as a proxy, end to end: a bare node:http
 * server stands for the real deployment and answers what each test chooses, the client is node:http
 * (nothing decompressed or rewritten on the way back). What comes back is the upstream's answer
 * unchanged; what the upstream receives is the client's request as a proxy passes it on; uploads stream
 * through whole; the control plane and fault rules stay with the door; a failing upstream is a 502/504
 * naming it; `--route` splits operations between the upstream and the mock, with `fallback` as the
 * mock's answer when the upstream gives none.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock, type StartOptions } from "../../server.js";
import { expectErrorBody } from "../harness.js";
import { freePort, jsonAnswer, send, startRawUpstream, type Answer, type RawUpstream } from "./raw-upstream.js";

const UPSTREAM_KEY = "upstream-secret-key-1";
const CLIENT_KEY = "client-key-7";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

// The process form runs the build (`npm test` makes it first; here only when a source is newer).
beforeAll(() => void execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: ROOT }), 180_000);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  // The door first (it may hold connections to the upstream), then the upstream.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstream(answer?: Answer): Promise<RawUpstream> {
  const started = await startRawUpstream(answer);
  cleanups.push(() => started.close());
  return started;
}

async function door(options: StartOptions): Promise<RunningMock & { logs: string[] }> {
  const logs: string[] = [];
  const running = await startMock({ log: (line) => void logs.push(line), shutdownGraceMs: 500, ...options });
  cleanups.push(() => running.close());
  return Object.assign(running, { logs });
}

/** `node dist/mock-server/main.js ARGS` on 127.0.0.1:0 with none of the mock's variables set. */
function runDist(args: string[]) {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  const child = spawn(
    process.execPath,
    ["dist/mock-server/main.js", "--port", "0", "--host", "127.0.0.1", "--log-format", "off", ...args],
    { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stderr })),
  );
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    return exited;
  };
  const listening = new Promise<string>((resolve, reject) => {
    const look = () => {
      const found = /listening on (http:\/\/\S+)\/v1/.exec(stdout);
      if (found) resolve(found[1]);
    };
    child.stdout.on("data", look);
    void exited.then(({ code }) => reject(new Error(`exited with ${code} before listening:\n${stdout}\n${stderr}`)));
  });
  listening.catch(() => undefined);
  return { exited, listening, kill };
}

/** The door's journal entries of one operation, newest first. */
async function journal(url: string, operationId: string): Promise<{ status: number; source?: string }[]> {
  return (await send(`${url}/__mock/requests?operationId=${operationId}`)).json();
}

const CALLS_PAGE = { data: [{ callId: "call-up-1", status: "ended" }], hasMore: false };

describe("the upstream's answer comes back unchanged", () => {
  it("keeps status, body bytes, custom headers and the upstream's request id; says X-Mock-Source: upstream", async () => {
    const body = Buffer.from(JSON.stringify(CALLS_PAGE, null, 2));
    const up = await upstream(
      jsonAnswer(200, body, {
        "X-Custom": "kept as sent",
        "Cache-Control": "private, max-age=7",
        ETag: '"v42"',
        "Set-Cookie": ["a=1; Path=/", "b=2; Path=/"],
        "X-Request-Id": "upstream-req-42",
        // Hop-by-hop on the way back: for the door's connection to the upstream, not the client's.
        Connection: "keep-alive, X-Up-Hop",
        "Keep-Alive": "timeout=99",
        "X-Up-Hop": "not for the client",
      }),
    );
    const mock = await door({ upstream: up.url });
    const res = await send(`${mock.url}/v1/calls`, {
      headers: { "X-API-Key": CLIENT_KEY, "X-Request-Id": "client-req-1" },
    });
    expect(res.status).toBe(200);
    expect(res.body.equals(body)).toBe(true);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["x-custom"]).toBe("kept as sent");
    expect(res.headers["cache-control"]).toBe("private, max-age=7");
    expect(res.headers.etag).toBe('"v42"');
    expect(res.headers["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(res.headers["x-request-id"]).toBe("upstream-req-42");
    expect(res.headers["x-mock-source"]).toBe("upstream");
    expect(res.headers["x-up-hop"]).toBeUndefined();
    expect(res.headers["keep-alive"]).not.toBe("timeout=99");
    expect(up.seen.map((s) => `${s.method} ${s.url}`)).toEqual(["GET /v1/calls"]);
    const [entry] = await journal(mock.url, "listCalls");
    expect(entry).toMatchObject({ status: 200, source: "upstream" });
  });

  it("passes a gzip answer on as the same compressed bytes", async () => {
    const compressed = gzipSync(JSON.stringify(CALLS_PAGE));
    const up = await upstream(
      jsonAnswer(200, compressed, { "Content-Encoding": "gzip", "Content-Length": compressed.length }),
    );
    const mock = await door({ upstream: up.url });
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY, "Accept-Encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.body.equals(compressed)).toBe(true);
    expect(Number(res.headers["content-length"])).toBe(compressed.length);
  });

  it.each([
    {
      status: 201,
      method: "POST",
      path: "/v1/integrations",
      sent: '{"name":"CRM"}',
      body: '{"integrationId":"int-1"}',
    },
    { status: 204, method: "DELETE", path: "/v1/qa-rules/qa-1", sent: undefined, body: undefined },
    {
      status: 404,
      method: "GET",
      path: "/v1/calls/call-missing",
      sent: undefined,
      body: '{"status":404,"error":"Not Found","message":"upstream says no"}',
    },
  ])("passes $status to $method $path through", async ({ status, method, path, sent, body }) => {
    const up = await upstream(jsonAnswer(status, body));
    const mock = await door({ upstream: up.url });
    const res = await send(`${mock.url}${path}`, {
      method,
      headers: { "X-API-Key": CLIENT_KEY, ...(sent && { "Content-Type": "application/json" }) },
      body: sent,
    });
    expect(res.status).toBe(status);
    expect(res.body.toString()).toBe(body ?? "");
    expect(res.headers["x-mock-source"]).toBe("upstream");
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0]).toMatchObject({ method, url: path });
    expect(up.seen[0].body.toString()).toBe(sent ?? "");
  });
});

describe("the request reaches the upstream as a proxy passes it on", () => {
  it("Host names the upstream, hop-by-hop headers stay behind, X-Forwarded-Host names the door, the key goes on", async () => {
    const up = await upstream();
    const mock = await door({ upstream: up.url });
    const res = await send(`${mock.url}/v1/calls?limit=2`, {
      headers: [
        "Connection",
        "keep-alive, X-Hop-Secret",
        "Keep-Alive",
        "timeout=5",
        "TE",
        "trailers",
        "Upgrade",
        "h2c",
        "Proxy-Authorization",
        "Basic cHJveHk6c2VjcmV0",
        "X-Hop-Secret",
        "named in Connection",
        "X-API-Key",
        CLIENT_KEY,
        "X-End-To-End",
        "kept",
      ],
    });
    expect(res.status).toBe(200);
    const [seen] = up.seen;
    expect(seen.url).toBe("/v1/calls?limit=2");
    expect(seen.headers.host).toBe(`127.0.0.1:${up.port}`);
    expect(seen.headers["x-forwarded-host"]).toBe(new URL(mock.url).host);
    expect(seen.headers["x-api-key"]).toBe(CLIENT_KEY);
    expect(seen.headers["x-end-to-end"]).toBe("kept");
    for (const name of ["keep-alive", "te", "upgrade", "proxy-authorization", "x-hop-secret"])
      expect(seen.headers[name], name).toBeUndefined();
    // The door's own connection to the upstream may say keep-alive; the client's Connection stays behind.
    expect(seen.headers.connection ?? "").not.toMatch(/x-hop-secret/i);
    expect(seen.rawHeaders.join("\n")).not.toMatch(/cHJveHk6c2VjcmV0|named in Connection/);
  });

  it("with upstreamApiKey the upstream gets that key, never the client's", async () => {
    const up = await upstream();
    const mock = await door({ upstream: up.url, upstreamApiKey: UPSTREAM_KEY });
    await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    const [seen] = up.seen;
    expect(seen.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    expect(seen.rawHeaders).not.toContain(CLIENT_KEY);
  });
});

/** A form of createKnowledgeBase (E9) with one text file of `size` bytes, built byte by byte. */
function knowledgeBaseForm(size: number): { body: Buffer; contentType: string } {
  const boundary = "----door-test-boundary-7f3a";
  const file = Buffer.from(
    randomBytes(Math.ceil((size * 3) / 4))
      .toString("base64")
      .slice(0, size),
  );
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBig upload\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="big.txt"\r\n` +
        "Content-Type: text/plain\r\n\r\n",
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const MB = 1024 * 1024;

describe("request bodies stream through to the upstream", () => {
  it.each(["Content-Length", "chunked"])("an 8 MB upload (E9) reaches it whole (%s)", async (framing) => {
    const up = await upstream(jsonAnswer(201, { kbId: "kb-up-1", name: "Big upload", files: [] }));
    const mock = await door({ upstream: up.url });
    const { body, contentType } = knowledgeBaseForm(8 * MB);
    const pieces = Array.from({ length: Math.ceil(body.length / (256 * 1024)) }, (_, i) =>
      body.subarray(i * 256 * 1024, (i + 1) * 256 * 1024),
    );
    const res = await send(`${mock.url}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": CLIENT_KEY, "Content-Type": contentType },
      body: framing === "chunked" ? pieces : body,
    });
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ kbId: "kb-up-1" });
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0].headers["content-type"]).toBe(contentType);
    expect(up.seen[0].bytes).toBe(body.length);
    expect(up.seen[0].sha256).toBe(sha256(body));
  });

  it("a JSON body past what the door copies for its checks (2 MB) reaches it whole", async () => {
    const up = await upstream(jsonAnswer(201, { integrationId: "int-1" }));
    const mock = await door({ upstream: up.url });
    const body = Buffer.from(JSON.stringify({ name: "CRM", notes: "x".repeat(2 * MB) }));
    const res = await send(`${mock.url}/v1/integrations`, {
      method: "POST",
      headers: { "X-API-Key": CLIENT_KEY, "Content-Type": "application/json" },
      body,
      timeoutMs: 10_000,
    });
    expect(res.status).toBe(201);
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0].bytes).toBe(body.length);
    expect(up.seen[0].sha256).toBe(sha256(body));
  });

  it("a form without a boundary (1 MB), which the door cannot read, reaches it whole for it to judge", async () => {
    const up = await upstream(jsonAnswer(400, { status: 400, error: "Bad Request", message: "no boundary" }));
    const mock = await door({ upstream: up.url });
    const body = Buffer.alloc(MB, "a");
    const res = await send(`${mock.url}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": CLIENT_KEY, "Content-Type": "multipart/form-data" },
      body,
      timeoutMs: 10_000,
    });
    expect(res.status).toBe(400);
    expect(res.json().message).toBe("no boundary");
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0].bytes).toBe(body.length);
  });

  it("in front of a second mock, the 8 MB createKnowledgeBase is answered 201 and kept there", async () => {
    const real = await startMock({ log: () => undefined });
    cleanups.push(() => real.close());
    const mock = await door({ upstream: real.url });
    const { body, contentType } = knowledgeBaseForm(8 * MB);
    const res = await send(`${mock.url}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": real.apiKey, "Content-Type": contentType },
      body,
    });
    expect(res.status).toBe(201);
    expect(res.headers["x-mock-source"]).toBe("upstream");
    const kb = res.json();
    expect(kb.files).toEqual([expect.objectContaining({ type: "file", content: "big.txt" })]);
    const kept = (await send(`${real.url}/__mock/workspaces/default/knowledgeBases`)).json();
    expect(kept.map((k: { kbId: string }) => k.kbId)).toContain(kb.kbId);
  });
});

describe("the control plane and fault rules stay with the door", () => {
  it("answers /__mock/health and /__mock/requests itself; the upstream sees none of them", async () => {
    const up = await upstream();
    const mock = await door({ upstream: up.url });
    const health = await send(`${mock.url}/__mock/health`);
    expect(health.status).toBe(200);
    expect(health.json()).toMatchObject({ status: "ok", kit: "agent-platform-mock-kit" });
    const requests = await send(`${mock.url}/__mock/requests`);
    expect(requests.status).toBe(200);
    expect(Array.isArray(requests.json())).toBe(true);
    expect(up.seen).toEqual([]);
  });

  it("a status rule answers 500 with the 2.2 body in front of the upstream, which sees nothing", async () => {
    const up = await upstream(jsonAnswer(200, CALLS_PAGE));
    const mock = await door({ upstream: up.url });
    const rule = await send(`${mock.url}/__mock/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ operationId: "listCalls", status: 500 }),
    });
    expect(rule.status).toBe(201);
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.status).toBe(500);
    const error = res.json();
    expect(Object.keys(error).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
    expectErrorBody(error, 500, "/v1/calls");
    expect(up.seen).toEqual([]);
  });

  it("a delay rule delays the forwarded answer", async () => {
    const up = await upstream(jsonAnswer(200, CALLS_PAGE));
    const mock = await door({ upstream: up.url });
    const rule = await send(`${mock.url}/__mock/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ operationId: "listCalls", delayMs: 400 }),
    });
    expect(rule.status).toBe(201);
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(CALLS_PAGE);
    expect(res.headers["x-mock-source"]).toBe("upstream");
    expect(res.ms).toBeGreaterThanOrEqual(380);
    expect(up.seen).toHaveLength(1);
  });
});

describe("an upstream that fails is a gateway error naming it", () => {
  /** The 2.2 body of a gateway error: names host:port, never echoes the upstream key. */
  function expectGatewayError(
    res: { status: number; body: Buffer; headers: Record<string, unknown>; json(): any },
    status: number,
    target: string,
  ) {
    expect(res.status).toBe(status);
    const error = res.json();
    expectErrorBody(error, status, "/v1/calls");
    expect(error.error).toBe(status === 502 ? "Bad Gateway" : "Gateway Timeout");
    expect(error.message).toContain(target);
    expect(res.body.toString()).not.toContain(UPSTREAM_KEY);
    // The door answered for the upstream: the mock served nothing.
    expect(res.headers["x-mock-source"]).toBe("upstream");
  }

  it("nothing listening: 502", async () => {
    const port = await freePort();
    const mock = await door({ upstream: `http://127.0.0.1:${port}`, upstreamApiKey: UPSTREAM_KEY });
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expectGatewayError(res, 502, `127.0.0.1:${port}`);
    expect(res.json().message).toMatch(/ECONNREFUSED|unreachable/);
  });

  it("no answer within upstreamTimeoutMs (200 ms): 504, not a hang", async () => {
    const up = await upstream(() => undefined);
    const mock = await door({ upstream: up.url, upstreamApiKey: UPSTREAM_KEY, upstreamTimeoutMs: 200 });
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expectGatewayError(res, 504, `127.0.0.1:${up.port}`);
    // The client gives up after 5 s (raw-upstream.ts): an answer at all is the door's own timeout, not the upstream's.
    expect(up.seen).toHaveLength(1);
  });

  it("half a body, then the connection cut: 502", async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": 1000 });
      res.write('{"data":[{"callId":"call-');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const mock = await door({ upstream: up.url, upstreamApiKey: UPSTREAM_KEY });
    const res = await send(`${mock.url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expectGatewayError(res, 502, `127.0.0.1:${up.port}`);
  });

  it("startMock at its own address rejects with one line, and leaves the port free", async () => {
    const port = await freePort();
    const started = startMock({ port, upstream: `http://127.0.0.1:${port}`, log: () => undefined });
    const error: Error = await started.then(
      (running) => {
        cleanups.push(() => running.close());
        throw new Error("started");
      },
      (e: Error) => e,
    );
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(error.message).not.toContain("\n");
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once("error", reject);
      again.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it("the process at its own address exits 2 with one line on stderr", async () => {
    const port = await freePort();
    const child = runDist(["--port", String(port), "--upstream", `http://127.0.0.1:${port}`]);
    cleanups.push(child.kill);
    const exit = await Promise.race([
      child.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("still running after 5 s")), 5_000)),
    ]);
    expect(exit.code).toBe(2);
    expect(exit.stderr.trim().split("\n")).toEqual([expect.stringContaining(`http://127.0.0.1:${port}`)]);
  });
});

describe("--route: the mock, the upstream, or the upstream with the mock as fallback", () => {
  /** A call the door's workspace holds, asked of the mock through the door (listCalls routed to it). */
  async function mockCall(url: string): Promise<{ callId: string }> {
    const res = await send(`${url}/v1/calls?limit=1`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.headers["x-mock-source"]).toBe("mock");
    return res.json().data[0];
  }

  it("serves listCalls=mock from the mock and forwards getCall=fallback while the upstream answers", async () => {
    const up = await upstream(jsonAnswer(200, { callId: "call-up-1", status: "ended" }));
    const mock = await door({ upstream: up.url, route: "listCalls=mock,getCall=fallback" });
    const call = await mockCall(mock.url);
    expect(call.callId).toMatch(/\S/);
    expect(up.seen).toEqual([]);
    const res = await send(`${mock.url}/v1/calls/call-up-1`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.headers["x-mock-source"]).toBe("upstream");
    expect(res.json()).toEqual({ callId: "call-up-1", status: "ended" });
    expect(up.seen.map((s) => s.url)).toEqual(["/v1/calls/call-up-1"]);
    expect((await journal(mock.url, "listCalls"))[0]).toMatchObject({ source: "mock" });
  });

  it("with the upstream gone: a fallback operation answers from the mock, an upstream one 502", async () => {
    const up = await upstream(jsonAnswer(200, { callId: "call-up-1" }));
    const mock = await door({ upstream: up.url, route: "listCalls=mock,getCall=fallback" });
    const call = await mockCall(mock.url);
    await up.close();
    const res = await send(`${mock.url}/v1/calls/${call.callId}`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.status).toBe(200);
    expect(res.headers["x-mock-source"]).toBe("fallback");
    expect(res.json()).toMatchObject({ callId: call.callId });
    expect((await journal(mock.url, "getCall"))[0]).toMatchObject({ status: 200, source: "fallback" });
    expect(mock.logs.some((line) => line.startsWith("fallback: getCall"))).toBe(true);
    const agents = await send(`${mock.url}/v1/agents`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(agents.status).toBe(502);
    expect(agents.json().message).toContain(`127.0.0.1:${up.port}`);
  });

  it("an upstream 503 to a fallback operation: the mock answers", async () => {
    const up = await upstream(jsonAnswer(503, { status: 503, error: "Service Unavailable" }));
    const mock = await door({ upstream: up.url, route: "listCalls=mock,getCall=fallback" });
    const call = await mockCall(mock.url);
    const res = await send(`${mock.url}/v1/calls/${call.callId}`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(res.status).toBe(200);
    expect(res.headers["x-mock-source"]).toBe("fallback");
    expect(res.json()).toMatchObject({ callId: call.callId });
    expect(up.seen.map((s) => s.url)).toEqual([`/v1/calls/${call.callId}`]);
  });

  it("takes the table from a JSON file on the command line (--route FILE.json)", async () => {
    const up = await upstream(jsonAnswer(200, { callId: "call-up-1", status: "ended" }));
    const dir = mkdtempSync(join(tmpdir(), "door-route-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "route.json");
    writeFileSync(file, JSON.stringify({ listCalls: "mock", getCall: "fallback" }));
    const child = runDist(["--upstream", up.url, "--route", file]);
    cleanups.push(child.kill);
    const url = await child.listening;
    const listed = await send(`${url}/v1/calls`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(listed.status).toBe(200);
    expect(listed.headers["x-mock-source"]).toBe("mock");
    expect(up.seen).toEqual([]);
    const got = await send(`${url}/v1/calls/call-up-1`, { headers: { "X-API-Key": CLIENT_KEY } });
    expect(got.headers["x-mock-source"]).toBe("upstream");
    expect(got.json()).toEqual({ callId: "call-up-1", status: "ended" });
    expect(up.seen.map((s) => s.url)).toEqual(["/v1/calls/call-up-1"]);
  });

  it.each([
    ["listCall=mock", /listCall\b/],
    ["listCalls=proxy", /proxy/],
  ])("refuses the route %s with one line", async (route, names) => {
    const up = await upstream();
    const error: Error = await startMock({ upstream: up.url, route, log: () => undefined }).then(
      (running) => {
        cleanups.push(() => running.close());
        throw new Error("started");
      },
      (e: Error) => e,
    );
    expect(error.message).toMatch(names);
    expect(error.message).not.toContain("\n");
  });
});
