import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { hasMock, startKitMock } from "../support.js";
import { startGateway, type Gateway, type GatewayOptions } from "./gateway.js";

/** A tiny upstream that counts what reaches it and answers JSON. */
async function startCounter() {
  const seen: { method: string; path: string; bytes: number }[] = [];
  const server = createServer(async (req, res) => {
    let bytes = 0;
    for await (const c of req) bytes += (c as Buffer).length;
    seen.push({ method: req.method ?? "GET", path: req.url ?? "/", bytes });
    const body = JSON.stringify({ ok: true, path: req.url, data: [{ id: 1 }, { id: 2 }], filler: "abc".repeat(500) });
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A gateway in front of a fresh counter; `run` gets both, both are closed afterwards. */
async function withGateway(
  options: Omit<GatewayOptions, "upstream">,
  run: (gw: Gateway, up: Awaited<ReturnType<typeof startCounter>>) => Promise<void>,
) {
  const up = await startCounter();
  const gw = await startGateway({ upstream: up.url, ...options });
  try {
    await run(gw, up);
  } finally {
    await gw.close();
    await up.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Raw bytes and headers, without fetch's decoding. */
function raw(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

// Two suites, one after the other (tests concurrent inside each): the timing-sensitive ones (mostly sleeping) must not share the event loop with the heavy ones.
describe("gateway double", () => {
  it.concurrent("gateway error pages are nginx HTML, answered by the gateway, never forwarded", async () => {
    await withGateway({ gatewayErrors: { probability: 1 } }, async (gw, up) => {
      const seen = new Set<number>();
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${gw.url}/v1/agents`, {
          method: "POST",
          body: "{}",
          headers: { "content-type": "application/json" },
        });
        seen.add(res.status);
        expect(res.headers.get("content-type")).toBe("text/html");
        const text = await res.text();
        expect(text).toMatch(
          new RegExp(`^<html><head><title>${res.status} [^<]+</title></head><body><center><h1>${res.status} `),
        );
        expect(text).toContain("<hr><center>nginx</center>");
        expect(res.headers.has("retry-after")).toBe(false);
      }
      expect([...seen].every((s) => [502, 503, 504].includes(s))).toBe(true);
      expect(seen.size).toBeGreaterThan(1);
      expect(up.seen).toHaveLength(0);
      const s = gw.stats();
      expect(s.forwarded).toBe(0);
      expect(Object.values(s.gatewayErrors).reduce((a, b) => a + b, 0)).toBe(12);
    });
    await withGateway({ gatewayErrors: { probability: 1, statuses: [503], retryAfterOn503: true } }, async (gw, up) => {
      const res = await fetch(gw.url);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.text()).toContain("<title>503 Service Temporarily Unavailable</title>");
      expect(up.seen).toHaveLength(0);
    });
  });
  it.concurrent("resets: the client sees a network error; nothing is forwarded", async () => {
    await withGateway({ resets: { probability: 1 } }, async (gw, up) => {
      await expect(fetch(`${gw.url}/v1/calls`)).rejects.toThrow(TypeError);
      expect(up.seen).toHaveLength(0);
      const s = gw.stats();
      expect(s.resets).toBeGreaterThanOrEqual(1);
      expect(s.log[0].outcome).toBe("reset");
    });
  });
  it.concurrent("failAfterForward: the write reaches the service, the client gets a 502 page; `times` of them", async () => {
    await withGateway(
      { failAfterForward: { match: (r) => r.method === "POST" && r.path === "/v1/agents" } },
      async (gw, up) => {
        const post = () =>
          fetch(`${gw.url}/v1/agents`, {
            method: "POST",
            body: JSON.stringify({ name: "a" }),
            headers: { "content-type": "application/json" },
          });
        const first = await post();
        expect(first.status).toBe(502);
        expect(first.headers.get("content-type")).toBe("text/html");
        expect(await first.text()).toContain("<title>502 Bad Gateway</title>");
        expect(up.seen).toEqual([{ method: "POST", path: "/v1/agents", bytes: 12 }]);
        expect((await fetch(`${gw.url}/v1/agents`)).status).toBe(200);
        expect((await post()).status).toBe(200);
        const s = gw.stats();
        expect([s.failedAfterForward, s.forwarded]).toEqual([1, 3]);
        expect(s.log.map((e) => e.outcome)).toEqual(["after-forward-502", "forwarded", "forwarded"]);
      },
    );
  });
  it.concurrent("passes a 26 MB upload", async () => {
    await withGateway({}, async (gw, up) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(26 * 1024 * 1024)]), "big.bin");
      const res = await fetch(`${gw.url}/v1/knowledge-base`, { method: "POST", body: form });
      expect(res.status).toBe(200);
      expect(up.seen[0].bytes).toBeGreaterThan(26 * 1024 * 1024);
    });
  });
  it.concurrent("compresses with gzip or br when accepted, with Content-Encoding and Vary", async () => {
    for (const encoding of ["gzip", "br"] as const) {
      await withGateway({ compress: encoding }, async (gw) => {
        const plain = await raw(`${gw.url}/x`);
        expect(plain.headers["content-encoding"]).toBeUndefined();
        expect(plain.headers.vary).toBe("Accept-Encoding");
        const packed = await raw(`${gw.url}/x`, { "accept-encoding": `${encoding}, identity;q=0.5` });
        expect(packed.headers["content-encoding"]).toBe(encoding);
        expect(packed.headers.vary).toBe("Accept-Encoding");
        expect(Number(packed.headers["content-length"])).toBe(packed.body.length);
        expect(packed.body.length).toBeLessThan(plain.body.length);
        const unpacked = encoding === "gzip" ? gunzipSync(packed.body) : brotliDecompressSync(packed.body);
        expect(unpacked.equals(plain.body)).toBe(true);
        const refused = await raw(`${gw.url}/x`, { "accept-encoding": `${encoding};q=0` });
        expect(refused.headers["content-encoding"]).toBeUndefined();
        const viaFetch = await fetch(`${gw.url}/x`, { headers: { "accept-encoding": encoding } });
        expect(viaFetch.headers.get("content-encoding")).toBe(encoding);
        expect((await viaFetch.json()).ok).toBe(true);
      });
    }
  });
  it.concurrent("same seed, same sequence of outcomes; another seed, another sequence", async () => {
    const outcomes = async (seed: number) => {
      let seq: string[] = [];
      await withGateway({ seed, resets: { probability: 0.2 }, gatewayErrors: { probability: 0.3 } }, async (gw, up) => {
        for (let i = 0; i < 30; i++)
          await fetch(`${gw.url}/r/${i}`).then(
            (r) => r.arrayBuffer(),
            () => undefined,
          );
        const s = gw.stats();
        seq = s.log.map((e) => e.outcome);
        expect(seq).toHaveLength(30);
        expect(up.seen).toHaveLength(s.forwarded);
      });
      return seq;
    };
    const [a, b, c] = await Promise.all([outcomes(42), outcomes(42), outcomes(43)]);
    expect(new Set(a).size).toBeGreaterThanOrEqual(3);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });
  it.skipIf(!hasMock).concurrent("in front of the kit's mock: extraFields and rewrite", async () => {
    const mock = await startKitMock();
    const key = { "x-api-key": mock.apiKey };
    const gw = await startGateway({
      upstream: mock.url,
      extraFields: true,
      rewrite: (req, res) => {
        if (req.method !== "GET" || req.path !== "/v1/calls") return undefined;
        const body = JSON.parse(res.body.toString("utf8"));
        body.totalCount += 1;
        return { ...res, body: Buffer.from(JSON.stringify(body)) };
      },
    });
    try {
      const direct = await (await fetch(`${mock.url}/v1/calls`, { headers: key })).json();
      const res = await fetch(`${gw.url}/v1/calls`, { headers: key });
      expect(res.status).toBe(200);
      expect(res.headers.get("via")).toBe("1.1 gateway");
      expect(res.headers.get("x-gateway-request-id")).toMatch(/^[0-9a-f]{16}$/);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      const body = await res.json();
      expect(body.totalCount).toBe(direct.totalCount + 1);
      expect(body).toMatchObject({ servedBy: "edge-1", _trace: expect.any(String) });
      expect(body.data.length).toBeGreaterThan(0);
      for (const item of body.data)
        expect(item).toEqual({
          ...direct.data.find((d: { callId: string }) => d.callId === item.callId),
          servedBy: "edge-1",
        });
      const missing = await fetch(`${gw.url}/v1/calls/nope`, { headers: key });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ status: 404, servedBy: "edge-1" });
    } finally {
      await gw.close();
      await mock.close();
    }
  });
});

describe("gateway double: timings", () => {
  it.concurrent("bucket: exactly `burst` forwarded, then HTML 429s with Retry-After in delta-seconds (ceil)", async () => {
    await withGateway({ rateLimit: { perSecond: 0.4, burst: 3, retryAfter: "seconds" } }, async (gw, up) => {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await fetch(`${gw.url}/v1/calls?i=${i}`));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      expect(up.seen).toHaveLength(3);
      const limited = answers[3];
      expect(limited.headers.get("retry-after")).toBe("3"); // 2.5 s rounded up
      expect(limited.headers.get("content-type")).toBe("text/html");
      expect(await limited.text()).toContain("<title>429 Too Many Requests</title>");
      const s = gw.stats();
      expect([s.received, s.forwarded, s.rateLimited]).toEqual([5, 3, 2]);
      expect(s.log.map((e) => e.outcome)).toEqual(["forwarded", "forwarded", "forwarded", "429", "429"]);
      expect(s.log[4].path).toBe("/v1/calls?i=4");
    });
  });
  it.concurrent("bucket: Retry-After as an HTTP-date rounded up to the second, or absent", async () => {
    await withGateway({ rateLimit: { perSecond: 0.4, burst: 1, retryAfter: "http-date" } }, async (gw) => {
      expect((await fetch(gw.url)).status).toBe(200);
      const limited = await fetch(gw.url);
      expect(limited.status).toBe(429);
      const header = limited.headers.get("retry-after")!;
      expect(header).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      const until = Date.parse(header) - Date.now();
      expect(until).toBeGreaterThan(2_000);
      expect(until).toBeLessThanOrEqual(3_500);
    });
    await withGateway({ rateLimit: { perSecond: 0.4, burst: 1, retryAfter: "none" } }, async (gw) => {
      await fetch(gw.url);
      const limited = await fetch(gw.url);
      expect(limited.status).toBe(429);
      expect(limited.headers.has("retry-after")).toBe(false);
    });
  });
  it.concurrent("api-json 429 body is the API's error body", async () => {
    await withGateway(
      { rateLimit: { perSecond: 1, burst: 1, retryAfter: "seconds", body: "api-json" } },
      async (gw) => {
        await fetch(`${gw.url}/v1/calls`);
        const limited = await fetch(`${gw.url}/v1/calls?limit=2`);
        expect(limited.status).toBe(429);
        expect(limited.headers.get("content-type")).toMatch(/^application\/json/);
        const body = await limited.json();
        expect(Object.keys(body).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
        expect(body).toMatchObject({ status: 429, error: "Too Many Requests", path: "/v1/calls" });
        expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      },
    );
  });
  it.concurrent("a refused request takes no token; `early` counts an arrival inside the announced wait, not one after it", async () => {
    await withGateway({ rateLimit: { perSecond: 10, burst: 1, retryAfter: "seconds" } }, async (gw) => {
      expect((await fetch(gw.url)).status).toBe(200);
      const limited = await fetch(gw.url);
      const announcedAt = Date.now();
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("1");
      expect(gw.stats().early).toBe(0);
      await sleep(150); // one token back only if the 429 took none
      expect((await fetch(gw.url)).status).toBe(200);
      expect(gw.stats().early).toBe(1);
      await sleep(announcedAt + 1_000 - Date.now() + 20);
      expect((await fetch(gw.url)).status).toBe(200);
      expect(gw.stats().early).toBe(1);
    });
  });
  it.concurrent("fixed window: at most `limit` per window, 429 until the window ends", async () => {
    await withGateway({ fixedWindow: { limit: 2, windowSeconds: 0.4 } }, async (gw, up) => {
      const statuses = [];
      const firstAt = Date.now();
      for (let i = 0; i < 3; i++) statuses.push((await fetch(gw.url)).status);
      expect(statuses).toEqual([200, 200, 429]);
      const limited = await fetch(gw.url);
      expect(limited.headers.get("retry-after")).toBe("1");
      expect(up.seen).toHaveLength(2);
      await sleep(firstAt + 420 - Date.now()); // the next window
      expect((await fetch(gw.url)).status).toBe(200);
    });
  });
  it.concurrent("hangs: the client's timeout fires, nothing is forwarded, close() ends hanging requests", async () => {
    await withGateway({ hangs: { probability: 1 } }, async (gw, up) => {
      await expect(fetch(`${gw.url}/v1/calls`, { signal: AbortSignal.timeout(200) })).rejects.toMatchObject({
        name: "TimeoutError",
      });
      expect(up.seen).toHaveLength(0);
      expect(gw.stats().hangs).toBe(1);
      expect(gw.stats().log[0].outcome).toBe("hang");
    });
    const up = await startCounter();
    const gw = await startGateway({ upstream: up.url, hangs: { probability: 1 } });
    const pending = raw(`${gw.url}/v1/calls`).then(
      () => "answered",
      () => "failed",
    );
    await sleep(50);
    const t = Date.now();
    await gw.close();
    expect(Date.now() - t).toBeLessThan(500);
    expect(await pending).toBe("failed");
    await up.close();
  });
  it.concurrent("latency stays within [minMs, maxMs]", async () => {
    await withGateway({ latency: { minMs: 60, maxMs: 100 } }, async (gw) => {
      for (let i = 0; i < 4; i++) {
        const t = performance.now();
        await (await fetch(gw.url)).arrayBuffer();
        const took = performance.now() - t;
        expect(took).toBeGreaterThanOrEqual(58);
        expect(took).toBeLessThan(100 + 150);
      }
    });
  });
  it.concurrent("quiet paths bypass rate limit, gateway errors and latency", async () => {
    const options = {
      rateLimit: { perSecond: 0.1, burst: 1, retryAfter: "seconds" as const },
      gatewayErrors: { probability: 1 },
      latency: { minMs: 300, maxMs: 300 },
      quiet: (p: string) => p.startsWith("/__mock"),
    };
    await withGateway(options, async (gw, up) => {
      const t = performance.now();
      for (let i = 0; i < 3; i++) expect((await fetch(`${gw.url}/__mock/health`)).status).toBe(200);
      expect(performance.now() - t).toBeLessThan(250);
      expect((await fetch(`${gw.url}/v1/calls`)).status).toBeGreaterThanOrEqual(502);
      expect((await fetch(`${gw.url}/v1/calls`)).status).toBe(429);
      expect(up.seen.map((s) => s.path)).toEqual(["/__mock/health", "/__mock/health", "/__mock/health"]);
      expect(gw.stats().rateLimited).toBe(1);
    });
  });
});
