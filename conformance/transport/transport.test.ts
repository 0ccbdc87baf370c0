/**
 * The transport alone, with scripted answers instead of a network: what is judged and what is the
 * environment's, what is sent again and when, and what a write whose fate is unknown does.
 */
import { describe, expect, it } from "vitest";
import { answerKind, isApiErrorBody, networkKind, TargetUnreachable, type Answer } from "./answer-kind.js";
import { environmentLine } from "./environment.js";
import { Pacer } from "./pacer.js";
import { parseRateLimit, retryAfterMs } from "./retry-after.js";
import { Transport, WriteOutcomeUnknown } from "./transport.js";

const API_ERROR = {
  timestamp: "2026-01-01T00:00:00Z",
  status: 500,
  error: "Internal Server Error",
  message: "boom",
  path: "/v1/calls",
};

function answer(status: number, json?: unknown, headers: Record<string, string> = {}): Answer {
  const text = json === undefined ? "<html><body><h1>Bad Gateway</h1></body></html>" : JSON.stringify(json);
  return {
    status,
    headers: new Headers({ "content-type": json === undefined ? "text/html" : "application/json", ...headers }),
    text,
    json,
  };
}

/** An attempt function that plays `script` in order (an Error entry is a network failure) and logs when each was sent. */
function scripted(script: (Answer | Error)[]) {
  const sentAt: number[] = [];
  let i = 0;
  const attempt = async () => {
    sentAt.push(performance.now());
    const next = script[Math.min(i++, script.length - 1)];
    if (next instanceof Error) throw new TargetUnreachable(next.message, { cause: next });
    return next;
  };
  return { attempt, sentAt, count: () => i };
}

const fast = (extra = {}) => new Transport({ backoffBaseMs: 5, random: () => 0.5, ...extra });
const GET = { method: "GET", describe: "GET /v1/calls" };
const POST = { method: "POST", describe: "POST /v1/integrations" };
const reset = (bytesWritten: number) =>
  Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET", socket: { bytesWritten } });

describe("answer kinds", () => {
  it.each([
    [answer(200, {}), "api"],
    [answer(404, { ...API_ERROR, status: 404 }), "api"],
    [answer(500, API_ERROR), "api-5xx"],
    [answer(500, { message: "Internal server error" }), "gateway"],
    [answer(500), "gateway"],
    [answer(502, API_ERROR), "gateway"],
    [answer(503), "gateway"],
    [answer(503, undefined, { "retry-after": "1" }), "unavailable"],
    [answer(504), "gateway"],
    [answer(429, { ...API_ERROR, status: 429 }), "rate-limited"],
    [answer(429), "rate-limited"],
  ] as const)("%#: %o is %s", (a, kind) => expect(answerKind(a)).toBe(kind));

  it("knows the 2.2 body", () => {
    expect(isApiErrorBody(API_ERROR)).toBe(true);
    expect(isApiErrorBody({ message: "x" })).toBe(false);
    expect(isApiErrorBody([API_ERROR])).toBe(false);
  });

  it("tells network failures apart through fetch's wrapper", () => {
    expect(
      networkKind(new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) })),
    ).toBe("refused");
    expect(networkKind(new TypeError("fetch failed", { cause: reset(0) }))).toBe("reset-unsent");
    expect(networkKind(new TypeError("fetch failed", { cause: reset(120) }))).toBe("reset");
    expect(
      networkKind(Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" })),
    ).toBe("timeout");
    expect(networkKind(new Error("something else"))).toBe("reset");
  });
});

describe("Retry-After and --rate-limit", () => {
  it("reads delta-seconds and HTTP-dates, the latter against the answer's Date", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    const date = "Wed, 25 Nov 2026 10:00:00 GMT";
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 25 Nov 2026 10:00:05 GMT", date }))).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 25 Nov 2026 10:00:05 GMT" }), Date.parse(date) + 1000)).toBe(
      4000,
    );
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it("parses paces", () => {
    expect(parseRateLimit("auto")).toEqual({ kind: "auto" });
    expect(parseRateLimit("20/s")).toEqual({ kind: "fixed", perSecond: 20 });
    expect(parseRateLimit("600/m")).toEqual({ kind: "fixed", perSecond: 10 });
    expect(parseRateLimit("0/s")).toBeUndefined();
    expect(parseRateLimit("fast")).toBeUndefined();
  });
});

describe("transport", () => {
  it("hands the API's answers back at once", async () => {
    const s = scripted([answer(404, { ...API_ERROR, status: 404 })]);
    expect((await fast().send(GET, s.attempt)).status).toBe(404);
    expect(s.count()).toBe(1);
  });

  it("sends a read again after gateway pages and resets, and counts them", async () => {
    const t = fast();
    const s = scripted([answer(502), reset(50), answer(504), answer(200, {})]);
    expect((await t.send(GET, s.attempt)).status).toBe(200);
    const env = t.report([]);
    expect(env.requests).toBe(4);
    expect(env.gatewayErrors).toEqual({ 502: 1, 504: 1 });
    expect(env.networkErrors).toEqual({ reset: 1 });
    expect(env.retries.gateway + env.retries.network).toBe(3);
  });

  it("gives up after --retries with Inconclusive, naming what it met", async () => {
    const s = scripted([answer(502)]);
    await expect(fast({ retries: 2 }).send(GET, s.attempt)).rejects.toThrow(
      /no answer from the API after 3 attempts \(met 502/,
    );
    expect(s.count()).toBe(3);
  });

  it("sends nothing while a Retry-After runs, and sends a write again after a 429", async () => {
    const t = fast();
    const s = scripted([answer(429, undefined, { "retry-after": "1" }), answer(201, {})]);
    const started = performance.now();
    expect((await t.send(POST, s.attempt)).status).toBe(201);
    expect(s.sentAt[1] - started).toBeGreaterThanOrEqual(995);
    // Another request waits for the same announced end.
    const other = scripted([answer(200, {})]);
    t.pacer.holdOff(300, false);
    const before = performance.now();
    await t.send(GET, other.attempt);
    expect(other.sentAt[0] - before).toBeGreaterThanOrEqual(295);
    expect(t.report([]).rateLimited).toBe(1);
  });

  it("backs off exponentially on 429s without Retry-After", async () => {
    const s = scripted([answer(429), answer(429), answer(429), answer(200, {})]);
    await fast({ backoffBaseMs: 20, random: () => 1 }).send(GET, s.attempt);
    const gaps = s.sentAt.slice(1).map((at, i) => at - s.sentAt[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(19);
    expect(gaps[1]).toBeGreaterThanOrEqual(39);
    expect(gaps[2]).toBeGreaterThanOrEqual(79);
  });

  it("never resends a write that may have been processed: the rule hears it", async () => {
    for (const first of [answer(502), reset(300), answer(500, API_ERROR)]) {
      const s = scripted([first, answer(201, {})]);
      await expect(fast().send(POST, s.attempt)).rejects.toBeInstanceOf(WriteOutcomeUnknown);
      expect(s.count()).toBe(1);
    }
    // A rule that started over judges an API 5xx; a gateway page still sends it back to the start.
    expect(
      (await fast().send({ ...POST, unknownWrite: "judge" }, scripted([answer(500, API_ERROR)]).attempt)).status,
    ).toBe(500);
    await expect(
      fast().send({ ...POST, unknownWrite: "judge" }, scripted([answer(502)]).attempt),
    ).rejects.toBeInstanceOf(WriteOutcomeUnknown);
    // A write that cannot take effect twice (putting a field back) is resent like a read.
    expect(
      (await fast().send({ ...POST, idempotent: true }, scripted([answer(502), answer(200, {})]).attempt)).status,
    ).toBe(200);
  });

  it("resends a write that provably never left: refused, or reset before a byte", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const t = fast();
    await t.send(GET, scripted([answer(200, {})]).attempt);
    const s = scripted([refused, reset(0), answer(201, {})]);
    expect((await t.send(POST, s.attempt)).status).toBe(201);
    expect(s.count()).toBe(3);
  });

  it("does not wait out a target that refuses from the start, a refused certificate or an unknown host", async () => {
    for (const code of ["ECONNREFUSED", "DEPTH_ZERO_SELF_SIGNED_CERT", "ENOTFOUND"]) {
      const s = scripted([Object.assign(new Error(code), { code }), answer(200, {})]);
      await expect(fast().send(GET, s.attempt)).rejects.toBeInstanceOf(TargetUnreachable);
      expect(s.count()).toBe(1);
    }
  });

  it("asks the API once more after its own 5xx on a read, and reports a changed answer as flaky", async () => {
    const t = fast();
    expect((await t.send(GET, scripted([answer(500, API_ERROR), answer(200, {})]).attempt)).status).toBe(200);
    expect((await t.send(GET, scripted([answer(500, API_ERROR), answer(500, API_ERROR)]).attempt)).status).toBe(500);
    expect(t.report([]).flaky).toEqual([{ request: "GET /v1/calls", first: 500, then: 200 }]);
  });

  it("stops waiting once the run's wait budget is spent", async () => {
    const s = scripted([answer(429, undefined, { "retry-after": "5" })]);
    await expect(fast({ maxWaitMs: 1000 }).send(GET, s.attempt)).rejects.toThrow(
      /wait budget is spent|after 1 attempt/,
    );
    expect(s.count()).toBe(1);
  });
});

describe("pacer", () => {
  it("learns a token bucket's rate from one limit cycle and settles just below it", () => {
    let now = 0;
    const pacer = new Pacer({ kind: "auto" }, 1, () => now);
    // 21 accepted in 40 ms (a burst of 20 and a refill), then a 429 asking for 1 s.
    for (let i = 0; i < 21; i++) pacer.accepted();
    now = 40;
    pacer.holdOff(1000, true);
    expect(pacer.currentPace).toBeCloseTo(0.95 * (21 / 1.04), 5);
  });

  it("learns a fixed window's long-run rate (600 a minute), the wait included", () => {
    let now = 0;
    const pacer = new Pacer({ kind: "auto" }, 1, () => now);
    for (let i = 0; i < 600; i++) pacer.accepted();
    now = 1000;
    pacer.holdOff(59_000, true);
    expect(pacer.currentPace).toBeCloseTo(9.5, 5);
  });

  it("at the second 429 takes what was accepted since the first, having crept up in between, and then keeps it", async () => {
    let now = 0;
    const pacer = new Pacer({ kind: "auto" }, 1, () => now);
    const tick = async (to: number) => {
      now = to;
      await pacer.acquire();
      pacer.release();
    };
    for (let i = 0; i < 10; i++) pacer.accepted();
    now = 20;
    pacer.holdOff(2000, true); // a burst of 10, then a wait rounded up to whole seconds: a low first guess
    const guess = pacer.currentPace!;
    expect(guess).toBeCloseTo(0.95 * (10 / 2.02), 5);
    await tick(2100);
    expect(pacer.currentPace).toBeCloseTo(guess * 1.25, 5);
    for (let t = 4100; t <= 30_000; t += 1000) await tick(t);
    const met = pacer.currentPace!;
    for (let i = 0; i < 500; i++) pacer.accepted();
    now = 30_020;
    pacer.holdOff(1000, true, 30_000);
    const after = 0.95 * Math.min(500 / 30, met);
    expect(pacer.currentPace).toBeCloseTo(after, 5);
    // A 429 to a request sent before the last one tells nothing new.
    pacer.holdOff(1000, true, 30_010);
    expect(pacer.currentPace).toBeCloseTo(after, 5);
    // The second 429 gave the figure of a whole cycle: no more creeping up.
    for (let t = 31_100; t <= 120_000; t += 1000) await tick(t);
    expect(pacer.currentPace).toBeCloseTo(after, 5);
  });

  it("spaces requests at a fixed pace", async () => {
    const pacer = new Pacer({ kind: "fixed", perSecond: 50 });
    const at: number[] = [];
    for (let i = 0; i < 4; i++) {
      await pacer.acquire();
      at.push(performance.now());
      pacer.release();
    }
    expect(at[3] - at[0]).toBeGreaterThanOrEqual(58);
  });

  it("keeps at most N requests in flight", async () => {
    const pacer = new Pacer({ kind: "auto" }, 2);
    let inFlight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        await pacer.acquire();
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        pacer.release();
      }),
    );
    expect(most).toBe(2);
  });
});

it("sums the environment up in one line", () => {
  const line = environmentLine({
    requests: 900,
    rateLimited: 262,
    waitedSeconds: 31.2,
    pace: 19.6,
    paceMode: "auto",
    retries: { rateLimited: 262, unavailable: 0, gateway: 11, network: 0, timeout: 0, api5xx: 0 },
    gatewayErrors: { 502: 6, 504: 5 },
    networkErrors: {},
    flaky: [],
    inconclusive: [],
    latency: { p50: 3, p95: 9, p99: 20 },
  });
  expect(line).toBe(
    "target rate-limited 262 requests at about 20/s; waited 31 s; 11 gateway errors retried; 0 inconclusive",
  );
});
