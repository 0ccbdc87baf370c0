/**
 * `agent-platform-conformance parity` end to end: two kit mocks seeded differently (different data,
 * the same behaviour) differ in nothing; the same mock behind a proxy that changes three behaviours
 * (422 for an invalid size, calls listed oldest first, error bodies without `path`) differs in exactly
 * those, plus the rule outcomes they flip; behind a gateway that answers 429 with Retry-After and the
 * odd 502 it still differs in nothing; and a target it cannot use stops it with one line (exit 2).
 * Each comparison has two mocks of its own and runs beside the others: the paced one mostly waits on its
 * gateway, the two full ones are CPU-bound in this process and go one at a time.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startMock, type RunningMock } from "../../mock-server/server.js";
import { main } from "../cli.js";
import { parityMain } from "../parity/command.js";
import type { Difference, ParityResult } from "../parity/types.js";
import { startFaultProxy, type FaultHooks } from "./faults/proxy.js";
import { chainHooks, on, parse, relist, withJson } from "./faults/rewrite.js";
import { startGateway } from "./gateway/gateway.js";

const LISTS = ["listAgents", "listTestRuns", "listCalls", "listPhoneNumbers", "listWebhooks"];

/** (1) An invalid `size` answers 422, the rest of the body as it was (its status field follows). */
const SIZE_422: FaultHooks = on(LISTS, {
  response: (_req, res) => {
    const body = parse(res);
    if (res.status !== 400 || !body?.validationErrors?.size) return undefined;
    return withJson(res, { ...body, status: 422, error: "Unprocessable Entity" }, { status: 422 });
  },
});

/** (2) Calls listed oldest first. */
const OLDEST_FIRST: FaultHooks = relist("listCalls", { items: (items) => [...items].reverse() });

/** (3) Error bodies without `path`, on every operation. */
const NO_PATH: FaultHooks = {
  response: (req, res) => {
    if (!req.operationId || res.status < 400) return undefined;
    const body = parse(res);
    if (!body || typeof body !== "object") return undefined;
    const { path: _path, ...rest } = body;
    return withJson(res, rest);
  },
};

/** A second workspace of the mock, for the isolation probes. */
async function secondKey(mock: RunningMock): Promise<string> {
  const res = await fetch(`${mock.url}/__mock/workspaces`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ seed: 3 }),
  });
  return ((await res.json()) as { apiKey: string }).apiKey;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const nonOutcome = (r: ParityResult) => r.differences.filter((d) => d.kind !== "outcome");
const probeOf = (d: Difference) => String((d.a as { probe: string }).probe);

interface Pair {
  a: RunningMock;
  b: RunningMock;
}

/** Different seeds: different agents, calls, numbers and webhooks, the same behaviour. */
async function startPair(): Promise<Pair> {
  const [a, b] = await Promise.all([
    startMock({ port: 0, host: "127.0.0.1", seed: 1 }),
    startMock({ port: 0, host: "127.0.0.1", seed: 7 }),
  ]);
  return { a, b };
}

/** `body` with a pair of mocks of its own, closed after: comparisons running side by side share nothing. */
async function withPair<T>(body: (pair: Pair) => Promise<T>): Promise<T> {
  const pair = await startPair();
  try {
    return await body(pair);
  } finally {
    await Promise.all([pair.a.close(), pair.b.close()]);
  }
}

/** The two full comparisons keep this process's core busy: one at a time. */
const cpuBound = pLimit(1);
/** A comparison may wait for the other full one: its timeout allows for that. */
const QUEUED = 300_000;

describe("parity", { concurrent: true }, () => {
  /** For the runs that cannot start, which send a request or two at most. */
  let shared: Pair;
  let dir: string;
  beforeAll(async () => {
    shared = await startPair();
    dir = mkdtempSync(join(tmpdir(), "parity-"));
  });
  afterAll(async () => {
    await Promise.all([shared?.a.close(), shared?.b.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function parity({ a, b }: Pair, bUrl: string, extra: string[] = []) {
    const out: string[] = [];
    const err: string[] = [];
    const json = join(dir, `${Math.random()}.json`);
    const html = join(dir, `${Math.random()}.html`);
    const { code, result } = await parityMain(
      ["--base-url", a.url, "--api-key", a.apiKey, "--against", bUrl, "--against-api-key", b.apiKey, "--quiet"].concat(
        ["--json", json, "--html", html],
        extra,
      ),
      {},
      { out: (t) => out.push(t), err: (t) => err.push(t) },
      { backoffBaseMs: 20 },
    );
    return { code, result: result!, out: out.join("\n"), err: err.join("\n"), json, html };
  }

  it(
    "runs through a gateway's 429s (Retry-After) and 502s and still finds no difference",
    { timeout: QUEUED },
    ({ expect }) =>
      withPair(async (pair) => {
        const { b } = pair;
        const gateway = await startGateway({
          upstream: b.url,
          seed: 11,
          // A window's 429 announces the wait to its end (Retry-After: 1), which the auto pace learns exactly.
          fixedWindow: { limit: 25, windowSeconds: 1 },
          gatewayErrors: { probability: 0.01, statuses: [502] },
          // The API's traffic only: the suite's fixtures on the mock's control plane are not the subject here.
          quiet: (path) => path.startsWith("/__mock"),
        });
        try {
          // A share of the rules keeps the paced run short; the probes all run.
          const run = await parity(pair, gateway.url, ["--only", "/listCalls\\.|createIntegration\\./"]);
          const stats = gateway.stats();
          expect(stats.rateLimited).toBeGreaterThan(0);
          expect(stats.gatewayErrors["502"]).toBeGreaterThan(0);
          expect(run.result.differences).toEqual([]);
          expect(run.code).toBe(0);
          expect(run.result.b.environment.rateLimited).toBe(stats.rateLimited);
          expect(run.out).toMatch(/Environment: A .*; B \d+ requests, [1-9]\d* rate-limited/);
        } finally {
          await gateway.close();
        }
      }),
  );

  it("finds no difference between two mocks holding different data", { timeout: QUEUED }, ({ expect }) =>
    cpuBound(() =>
      withPair(async (pair) => {
        const { a, b } = pair;
        const run = await parity(pair, b.url, [
          "--second-api-key",
          await secondKey(a),
          "--against-second-api-key",
          await secondKey(b),
        ]);
        expect(run.err).toBe("");
        expect(run.result.differences).toEqual([]);
        expect(run.code).toBe(0);
        // Everything was compared: every rule, and the probes (isolation ones included).
        expect(run.result.rulesCompared).toBeGreaterThan(150);
        expect(run.result.observationsCompared).toBeGreaterThan(100);
        expect(run.result.notCompared.unobserved).toEqual({ a: 0, b: 0 });
        const isolation = run.result.b.observations.find((o) => o.probe === "a call of another workspace");
        expect(isolation?.value).toEqual({ status: 404 });
        const report = JSON.parse(readFileSync(run.json, "utf8"));
        expect(report.differences).toEqual([]);
        expect(report.a).toBe(a.url);
        expect(report.b).toBe(b.url);
        expect(run.out).toMatch(/No differences: A and B behave alike/);
        expect(run.out).toMatch(/0 rules inconclusive on A, 0 rules inconclusive on B/);
        expect(readFileSync(run.html, "utf8")).toContain("ALIKE");
        expect(JSON.stringify(report)).not.toContain(b.apiKey);
      }),
    ),
  );

  it(
    "reports the three behaviours a rewriting proxy changes, and the rule outcomes they flip",
    { timeout: QUEUED },
    ({ expect }) =>
      cpuBound(() =>
        withPair(async (pair) => {
          const { b } = pair;
          const proxy = await startFaultProxy(b.url, chainHooks(SIZE_422, OLDEST_FIRST, NO_PATH));
          try {
            const run = await parity(pair, proxy.url);
            expect(run.code).toBe(1);
            const kinds = new Set(nonOutcome(run.result).map((d) => d.kind));
            expect([...kinds].sort()).toEqual(["message", "order", "status"]);
            // (1) Only the invalid sizes, on every list: 400 on A, 422 on B.
            const statuses = run.result.differences.filter((d) => d.kind === "status");
            expect(statuses.map((d) => d.operationId).sort()).toEqual([...LISTS].sort());
            for (const d of statuses) {
              expect(probeOf(d)).toBe("size=0, size=abc");
              expect(d.a).toMatchObject({ status: 400 });
              expect(d.b).toMatchObject({ status: 422 });
            }
            // (2) The call list, by its creation timestamps, not by ids.
            expect(run.result.differences.filter((d) => d.kind === "order")).toEqual([
              {
                operationId: "listCalls",
                kind: "order",
                a: { probe: "first page by createdAt", order: "newest-first" },
                b: { probe: "first page by createdAt", order: "oldest-first" },
              },
            ]);
            // (3) Error bodies without path: that aspect only, on every operation with an error probe.
            const messages = run.result.differences.filter((d) => d.kind === "message");
            expect(messages.length).toBeGreaterThanOrEqual(15);
            for (const d of messages) {
              const { probe: _a, ...aspectsA } = d.a as Record<string, unknown>;
              const { probe: _b, ...aspectsB } = d.b as Record<string, unknown>;
              expect(aspectsA).toEqual({ path: "the request path" });
              expect(aspectsB).toEqual({ path: "(absent)" });
            }
            // The rules those behaviours break fail on B only; each names its rule.
            const outcomes = run.result.differences.filter((d) => d.kind === "outcome");
            expect(outcomes.length).toBeGreaterThan(0);
            for (const d of outcomes) {
              expect(d.rule).toMatch(/^[A-Za-z]+\.[\w-]+$/);
              expect(d.a).toEqual({ outcome: "passed" });
              expect((d.b as { outcome: string }).outcome).toMatch(/^(failed|errored)$/);
            }
            expect(outcomes.map((d) => d.rule)).toContain("listCalls.newest-first");
            // The JSON report holds exactly the fixed shape.
            const report = JSON.parse(readFileSync(run.json, "utf8"));
            expect(report.differences).toEqual(run.result.differences);
            for (const d of report.differences) {
              expect(Object.keys(d).every((k) => ["operationId", "kind", "a", "b", "rule"].includes(k))).toBe(true);
              expect(["status", "order", "default", "field", "message", "outcome"]).toContain(d.kind);
              expect(d.kind === "outcome").toBe(typeof d.rule === "string");
            }
            expect(report.summary.differences).toMatchObject({ status: 5, order: 1, default: 0, field: 0 });
            // The console groups by operation.
            expect(run.out).toMatch(
              /\nlistCalls\n( {2}.*\n)* {2}order {4}first page by createdAt: A newest-first; B oldest-first/,
            );
            expect(run.out).toMatch(/ {2}status {3}size=0, size=abc: A 400; B 422/);
            expect(run.out).toMatch(
              / {2}message {2}page=-1, page=abc, size=0, size=abc: A path: the request path; B path: \(absent\)/,
            );
            const html = readFileSync(run.html, "utf8");
            expect(html).toContain("DIFFER");
            expect(html).toContain("oldest-first");
          } finally {
            await proxy.close();
          }
        }),
      ),
  );

  describe("cannot run: exit 2 with one line", () => {
    const lines = async (argv: string[]) => {
      const err: string[] = [];
      const { code } = await main(["parity", ...argv], {}, { out: () => {}, err: (t) => err.push(t) });
      return { code, err: err.join("\n") };
    };

    it("when B cannot be reached", async ({ expect }) => {
      const { a } = shared;
      const port = await closedPort();
      const run = await lines([
        "--base-url",
        a.url,
        "--api-key",
        a.apiKey,
        "--against",
        `http://127.0.0.1:${port}`,
        "--against-api-key",
        "k",
      ]);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(
        new RegExp(`^conformance parity: cannot run: B http://127.0.0.1:${port} cannot be reached`),
      );
      expect(run.err.split("\n")).toHaveLength(1);
    });

    it("when B refuses its key, without printing it", async ({ expect }) => {
      const { a, b } = shared;
      const run = await lines([
        "--base-url",
        a.url,
        "--api-key",
        a.apiKey,
        "--against",
        b.url,
        "--against-api-key",
        "wrong-key-123",
      ]);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(
        /^conformance parity: cannot run: B .* refuses --against-api-key \(GET \/v1\/agents answered 401\)/,
      );
      expect(run.err).not.toContain("wrong-key-123");
    });

    it("when an option is missing or wrong", async ({ expect }) => {
      const { a, b } = shared;
      expect((await lines(["--base-url", a.url, "--api-key", a.apiKey])).err).toMatch(/cannot run: no --against B/);
      expect(
        (
          await lines([
            "--base-url",
            a.url,
            "--api-key",
            "k",
            "--against",
            b.url,
            "--against-api-key",
            "k",
            "--retries",
            "x",
          ])
        ).code,
      ).toBe(2);
      // The suite's own setup checks, in B's option names.
      const v1 = await lines([
        "--base-url",
        a.url,
        "--api-key",
        "k",
        "--against",
        `${b.url}/v1`,
        "--against-api-key",
        "k",
      ]);
      expect(v1.err).toMatch(/cannot run: B .*: --against http:\/\/127\.0\.0\.1:\d+\/v1 ends in \/v1/);
      const bad = await lines(["--frobnicate"]);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/^conformance parity: bad options/);
    });
  });
});
