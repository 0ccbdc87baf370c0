/**
 * The shared-store tests' own infrastructure, checked on its own so a failure there points here and
 * not at the store: a real redis-server per test (redis.ts) and the round-robin proxy that spreads
 * requests over several mocks (round-robin.ts).
 */
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../redis.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "./round-robin.js";

/** What redis answers to one command sent over a fresh raw connection (its first reply line). */
function rawCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`));
    let reply = "";
    socket.on("data", (chunk) => {
      reply += chunk;
      if (reply.includes("\r\n")) {
        socket.destroy();
        resolve(reply.slice(0, reply.indexOf("\r\n")));
      }
    });
    socket.once("error", reject);
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something could listen on 127.0.0.1:port now (nothing else holds it). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("startRedis", () => {
  let redis: RedisServer | undefined;
  afterEach(async () => void (await redis?.stop()));

  it("answers PING on its loopback port", async () => {
    redis = await startRedis();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await rawCommand(redis.port, "PING")).toBe("+PONG");
  });

  it("restart() comes back on the same port as a new process", async () => {
    redis = await startRedis();
    const { port, pid } = redis;
    await redis.restart();
    expect(redis.port).toBe(port);
    expect(redis.pid).not.toBe(pid);
    expect(isRunning(pid)).toBe(false);
    expect(await rawCommand(port, "PING")).toBe("+PONG");
  });

  it("stop() ends the process and frees the port", async () => {
    redis = await startRedis();
    const { port, pid } = redis;
    await redis.stop();
    expect(isRunning(pid)).toBe(false);
    expect(await portFree(port)).toBe(true);
    await expect(rawCommand(port, "PING")).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("startRoundRobinProxy", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function target(handler: http.RequestListener): Promise<string> {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  async function proxy(targets: string[]): Promise<RoundRobinProxy> {
    const started = await startRoundRobinProxy(targets);
    closers.push(() => started.close());
    return started;
  }

  /** A target that answers with its name and the Host header it was sent. */
  const named = (name: string) => target((req, res) => res.end(JSON.stringify({ name, host: req.headers.host })));

  it("sends each request to the next target in turn, with the target's Host", async () => {
    const targets = [await named("a"), await named("b")];
    const rr = await proxy(targets);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await (await fetch(`${rr.url}/which`)).json());
    expect(answers.map((answer) => answer.name)).toEqual(["a", "b", "a", "b", "a"]);
    expect(answers[0].host).toBe(new URL(targets[0]).host);
    expect(answers[1].host).toBe(new URL(targets[1]).host);
    expect(rr.counts).toEqual([3, 2]);
  });

  it("passes a POST body through, and the status, headers and body back", async () => {
    const echo = await target((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        res.setHeader("Set-Cookie", ["a=1; Path=/", "b=2; Path=/"]);
        res.writeHead(201, { "Content-Type": "application/json", "X-Echo-Method": req.method! });
        res.end(JSON.stringify({ received: body, contentType: req.headers["content-type"] }));
      });
    });
    const rr = await proxy([echo]);
    const response = await fetch(`${rr.url}/things?x=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"name":"n"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-echo-method")).toBe("POST");
    expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(await response.json()).toEqual({ received: '{"name":"n"}', contentType: "application/json" });
  });

  it("resets the client's connection when the target resets its own", async () => {
    const resetting = await target((req) => req.socket.resetAndDestroy());
    const midBody = await target((req, res) => {
      res.writeHead(200, { "Content-Length": "100" }).write("only part");
      setTimeout(() => req.socket.destroy(), 20);
    });
    const rr = await proxy([resetting, midBody]);
    await expect(fetch(`${rr.url}/`)).rejects.toThrow(TypeError);
    const partial = await fetch(`${rr.url}/`);
    await expect(partial.text()).rejects.toThrow(TypeError);
  });

  it("answers 502 with a JSON error when a target cannot be reached", async () => {
    const gone = await target(() => {});
    await closers.pop()!();
    const rr = await proxy([gone]);
    const response = await fetch(`${rr.url}/`);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/^proxy: .*ECONNREFUSED/) });
  });
});
