/**
 * The shared store (--store redis://) as a process meets it: a store that goes away answers 500 with
 * the reference error body and the mock keeps running, a paused store loses nothing, a store that
 * cannot be reached stops the start with exit 2 and one line, and --workers N serves one port from N
 * processes that SIGTERM stops together.
 */
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../harness.js";
import { runMockToExit, type MockProcess } from "../process.js";
import { freePort, type RedisServer } from "../redis.js";
import { mockOn, onCleanup, redisForTest, stopAfterEach, until, type Reply } from "./support.js";

stopAfterEach();

/** A mock process on `redis` with a virtual clock. */
const mockOnVirtual = (redis: RedisServer, ...args: string[]) => mockOn(redis, "--clock", "virtual", ...args);

/** A request on a connection of its own (so node:cluster hands each to a worker in turn); generous deadline. */
function send(mock: MockProcess, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { "X-API-Key": mock.apiKey };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    const req = http.request(`${mock.url}${path}`, { method, headers, agent: false, timeout: 30_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.once("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.once("error", reject);
    req.end(payload);
  });
}

/** pid -> [ppid, state, comm] from /proc/PID/stat (comm in parentheses may hold spaces). */
function procStat(pid: number): { ppid: number; state: string; comm: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const [state, ppid] = stat.slice(close + 2).split(" ");
    return { ppid: Number(ppid), state, comm: stat.slice(stat.indexOf("(") + 1, close) };
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat?.ppid === pid && stat.state !== "Z") found.push(Number(name));
  }
  return found;
}

const alive = (pid: number) => {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
};

describe("a store that goes away", () => {
  it("answers 500 with the reference error body while Redis is down, and answers again once it is back", async () => {
    const redis = await redisForTest();
    const a = await mockOnVirtual(redis);
    const created = await send(a, "POST", "/v1/integrations", { name: "before the outage" });
    expect(created.status).toBe(201);

    await redis.stop();
    const read = await send(a, "GET", "/v1/agents?size=1");
    expect(read.status).toBe(500);
    expectErrorBody(read.body, 500, "/v1/agents");
    expect(read.body.message).toMatch(/shared store \(redis:\/\/127\.0\.0\.1:\d+\) is unavailable/);
    const write = await send(a, "POST", "/v1/integrations", { name: "during the outage" });
    expect(write.status).toBe(500);
    expectErrorBody(write.body, 500, "/v1/integrations");
    expect(a.child.exitCode).toBeNull();

    // The same port, an empty store (redis-server here keeps nothing): A reconnects on its own, seeds the
    // store again as at start, and answers as a fresh mock; what it had is gone with the store.
    await redis.restart();
    await until(
      "A to answer its control plane again",
      async () => (await send(a, "GET", "/__mock/health")).status === 200,
    );
    expect(
      (await send(a, "GET", "/__mock/workspaces")).body.map((w: { workspaceId: string }) => w.workspaceId),
    ).toEqual(["default"]);
    expect((await send(a, "GET", "/v1/agents?size=1")).status).toBe(200);
    expect((await send(a, "GET", `/v1/integrations/${created.body.integrationId}`)).status).not.toBe(200);
    expect(a.child.exitCode).toBeNull();
  });

  it("answers 500 while Redis does not answer (paused) and keeps every write once it does", {
    timeout: 60_000,
  }, async () => {
    const redis = await redisForTest();
    const a = await mockOnVirtual(redis);
    const created = await send(a, "POST", "/v1/integrations", { name: "before the pause" });
    expect(created.status).toBe(201);

    const pid = redis.pid;
    process.kill(pid, "SIGSTOP");
    onCleanup(async () => process.kill(pid, "SIGCONT"));
    // Each store command gives up after its timeout (5 s): the requests fail, the mock does not hang.
    const [read, write] = await Promise.all([
      send(a, "GET", "/v1/agents?size=1"),
      send(a, "POST", "/v1/integrations", { name: "during the pause" }),
    ]);
    for (const [reply, path] of [
      [read, "/v1/agents"],
      [write, "/v1/integrations"],
    ] as const) {
      expect(reply.status).toBe(500);
      expectErrorBody(reply.body, 500, path);
      expect(reply.body.message).toMatch(/shared store .* is unavailable/);
    }
    process.kill(pid, "SIGCONT");

    await until("A to answer again", async () => (await send(a, "GET", "/v1/agents?size=1")).status === 200);
    expect(await send(a, "GET", `/v1/integrations/${created.body.integrationId}`)).toEqual({
      status: 200,
      body: created.body,
    });
    const names = ((await send(a, "GET", "/__mock/workspaces/default/integrations")).body as { name: string }[]).map(
      (i) => i.name,
    );
    expect(names).toContain("before the pause");
    // Answered 500: not written.
    expect(names).not.toContain("during the pause");
    const after = await send(a, "POST", "/v1/integrations", { name: "after the pause" });
    expect(after.status).toBe(201);
    expect((await send(a, "GET", `/v1/integrations/${after.body.integrationId}`)).status).toBe(200);
  });
});

describe("starting on a store", () => {
  it("exits 2 with one line naming the store when it cannot be reached, with or without --workers", async () => {
    const port = await freePort();
    for (const args of [
      ["--store", `redis://127.0.0.1:${port}`],
      ["--workers", "2", "--store", `redis://127.0.0.1:${port}`],
    ]) {
      const exit = await runMockToExit(args);
      expect(exit.code, args.join(" ")).toBe(2);
      const lines = exit.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`shared store at redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
      expect(exit.stdout).not.toMatch(/listening on/);
    }
  });

  it("refuses --workers 2 without --store: exit 2, one line", async () => {
    const exit = await runMockToExit(["--workers", "2"]);
    expect(exit.code).toBe(2);
    const lines = exit.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--workers needs --store/);
  });
});

describe("--workers 2 --store", () => {
  it("serves one port from a primary and two workers, and SIGTERM to the primary stops them all with 0", async () => {
    const redis = await redisForTest();
    const mock = await mockOnVirtual(redis, "--workers", "2");
    const primary = mock.child.pid!;
    // Both workers up (the first one printed the banner; the second may still be starting).
    const workers = await until("two workers", async () => {
      const found = childrenOf(primary);
      return found.length === 2 && found;
    });
    expect(workers.map((pid) => procStat(pid)!.comm)).toEqual([procStat(primary)!.comm, procStat(primary)!.comm]);
    for (const pid of workers)
      expect(
        readFileSync(`/proc/${pid}/cmdline`, "utf8")
          .split("\0")
          .some((arg) => arg.endsWith("mock-server/main.ts")),
      ).toBe(true);

    // Every request on a connection of its own: the workers take turns, and each sees the others' writes.
    const created = await send(mock, "POST", "/v1/integrations", { name: "made by one worker" });
    expect(created.status).toBe(201);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => send(mock, "GET", `/v1/integrations/${created.body.integrationId}`)),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(replies.every((r) => r.body.name === "made by one worker")).toBe(true);

    const exit = await mock.stop("SIGTERM");
    expect(exit.code).toBe(0);
    await until("the workers to be gone", async () => workers.every((pid) => !alive(pid)));
  });
});
