/**
 * Readiness and draining, for a load balancer in front of replicas (issue 27, part 3):
 *  - GET /__mock/ready is 200 while the store answers and holds a seeded mock, and 503 with the
 *    reference's error body within READY_LIMIT_MS when it does not (health says only "the process is up");
 *  - SIGTERM to a `--workers 2 --store` primary lets the request in flight and the webhook attempt
 *    under way finish, writes their outcome and journal entry to the store, and exits 0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { READY_LIMIT_MS } from "../../control/operability.js";
import { startMock } from "../../server.js";
import { expectErrorBody } from "../harness.js";
import type { MockProcess } from "../process.js";
import { mockOn, onCleanup, redisForTest, stopAfterEach, until, type Reply } from "./support.js";

stopAfterEach();

async function send(
  mock: { url: string; apiKey: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(mock.url + path, {
    method,
    headers: {
      "X-API-Key": mock.apiKey,
      ...(body !== undefined && { "Content-Type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe("GET /__mock/ready", () => {
  it("is ready in memory, and says where the state lives", async () => {
    const mock = await startMock({ clock: "virtual" });
    onCleanup(() => mock.close());
    expect(await send(mock, "GET", "/__mock/ready")).toEqual({
      status: 200,
      body: { status: "ready", store: "memory" },
    });
  });

  it("answers 503 with the error body within its limit while Redis does not answer, and 200 again after", {
    timeout: 60_000,
  }, async () => {
    const redis = await redisForTest();
    const mock = await mockOn(redis, "--clock", "virtual");
    expect(await send(mock, "GET", "/__mock/ready")).toEqual({
      status: 200,
      body: { status: "ready", store: "redis" },
    });

    const pid = redis.pid;
    process.kill(pid, "SIGSTOP");
    onCleanup(async () => process.kill(pid, "SIGCONT"));
    const started = performance.now();
    const paused = await send(mock, "GET", "/__mock/ready");
    const tookMs = performance.now() - started;
    expect(paused.status).toBe(503);
    expectErrorBody(paused.body, 503, "/__mock/ready");
    expect(paused.body.message).toMatch(/^Not ready: /);
    // Bounded by the limit (plus this machine's scheduling), not by the store's own reconnection.
    expect(tookMs).toBeLessThan(READY_LIMIT_MS * 2.5);
    process.kill(pid, "SIGCONT");
    await until("ready again", async () => (await send(mock, "GET", "/__mock/ready")).status === 200);

    // A Redis that comes back empty is seeded again by the readiness read itself, as by a first request.
    await redis.restart();
    await until("ready on the emptied store", async () => (await send(mock, "GET", "/__mock/ready")).status === 200);
    expect((await send(mock, "GET", "/v1/agents?size=1")).status).toBe(200);
  });
});

/** GET on a connection of its own (no keep-alive), so node:cluster hands it to the next worker. */
function fresh(mock: MockProcess, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${mock.url}${path}`, { headers: { "X-API-Key": mock.apiKey }, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.once("error", reject);
  });
}

/** A webhook receiver that holds each delivery `holdMs` before answering 200; tells when one arrived. */
async function slowReceiver(holdMs: number) {
  const arrived: string[] = [];
  let answered = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      arrived.push(body);
      setTimeout(() => {
        answered++;
        res.writeHead(200).end("ok");
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, arrived, answered: () => answered };
}

describe("SIGTERM with --workers 2 --store", () => {
  it("finishes the request in flight and the webhook attempt under way, keeps both, and exits 0", {
    timeout: 60_000,
  }, async () => {
    const redis = await redisForTest();
    const mock: MockProcess = await mockOn(redis, "--clock", "virtual", "--workers", "2", "--shutdown-grace", "10");
    const receiver = await slowReceiver(1_500);
    const agentId = (await send(mock, "GET", "/v1/agents?size=1")).body.data[0].agentId;

    // Any worker's scrape counts every worker's requests. node:cluster hands fresh connections to the
    // listening workers in turn; the second may still be starting, so rounds go on until well after.
    let sent = 0;
    for (let round = 0; round < 15; round++) {
      for (let i = 0; i < 4; i++, sent++) expect((await fresh(mock, "/v1/calls?size=1")).status).toBe(200);
      const scrape = await fresh(mock, "/__mock/metrics");
      expect(scrape.text).toMatch(
        new RegExp(`^apm_requests_total\\{operation="listCalls",status="200"\\} ${sent}$`, "m"),
      );
    }
    const hook = { agentId, url: receiver.url, events: "conversation_started", active: true };
    expect((await send(mock, "POST", "/__mock/workspaces/default/webhooks", hook)).status).toBe(201);

    // The attempt is under way (the receiver holds it) and a slow request is in flight, when SIGTERM comes.
    expect((await send(mock, "POST", "/v1/chat", { agentId })).status).toBeLessThan(300);
    await until("the delivery to reach the receiver", async () => receiver.arrived.length === 1);
    const slow = send(mock, "GET", "/v1/agents?size=1", undefined, { Prefer: "delay=1000" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exit = await mock.stop("SIGTERM");

    expect((await slow).status).toBe(200);
    expect(exit.code).toBe(0);
    expect(receiver.answered()).toBe(1);
    // What the stopped processes wrote is in the store: a new process on it reads the outcome and the journal.
    const after = await mockOn(redis, "--clock", "virtual");
    const [delivery] = (await send(after, "GET", "/__mock/webhook-deliveries")).body;
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts).toHaveLength(1);
    const entries = (await send(after, "GET", "/__mock/requests?operationId=listAgents")).body as { status: number }[];
    expect(entries.length).toBe(2);
    expect(entries.every((e) => e.status === 200)).toBe(true);
  });
});
