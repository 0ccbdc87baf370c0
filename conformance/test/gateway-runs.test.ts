/**
 * The suite through a gateway of our own (gateway/gateway.ts) in front of the kit's mock, taken for a
 * foreign deployment: rate limits in every form, the gateway's own error pages, resets and timeouts are
 * the environment, never a finding; a write that reached the service before the gateway failed is in
 * the ledger and not made twice outside it; the same correct target gets the same verdict on every run
 * whatever the noise; a real fault under that noise fails only its own rules.
 * The runs mostly wait on their gateways (latency, Retry-After, backoff), so the tests run side by side,
 * three at a time, each on a mock of its own: no run moves the lists another one walks.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import { afterAll, beforeAll, describe, it } from "vitest";
import { main } from "../cli.js";
import type { RunResult } from "../lib/runner.js";
import { startGateway, type Gateway, type GatewayOptions } from "./gateway/gateway.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

/** A realistic gateway: a rate limit, 1 % error pages, 1 % resets, latency, gzip, undocumented fields. */
const MIX: Omit<GatewayOptions, "upstream"> = {
  rateLimit: { perSecond: 150, burst: 40, retryAfter: "seconds" },
  gatewayErrors: { probability: 0.01 },
  resets: { probability: 0.01 },
  latency: { minMs: 0, maxMs: 4 },
  compress: "gzip",
  extraFields: true,
};

/** E10 with its totalCount off by one: a real fault of the service, played behind the gateway. */
const TOTAL_OFF_BY_ONE: GatewayOptions["rewrite"] = (req, res) => {
  if (req.method !== "GET" || req.path !== "/v1/calls" || res.status !== 200) return undefined;
  const body = JSON.parse(res.body.toString("utf8"));
  return { ...res, body: Buffer.from(JSON.stringify({ ...body, totalCount: body.totalCount + 1 })) };
};

const outcomes = (run: RunResult) => Object.fromEntries(run.results.map((r) => [r.id, r.outcome]));
const failed = (run: RunResult) =>
  run.results.filter((r) => r.outcome === "failed" || r.outcome === "errored").map((r) => r.id);
const inconclusive = (run: RunResult) =>
  run.results.filter((r) => r.outcome === "inconclusive").map((r) => `${r.id}: ${r.reason}`);

/** Tests running at once; the longest (the realistic mix) is declared first so it starts first. */
const slots = pLimit(3);
/** A test may wait for a slot behind the others: its timeout allows for that. */
const QUEUED = 300_000;

/** `body` in a slot, with a mock of its own (real clock: it poses as a foreign deployment), closed after. */
function withOwnMock<T>(body: (mock: Running) => Promise<T>): Promise<T> {
  return slots(async () => {
    const mock = await startKitMock({ clock: "real" });
    try {
      return await body(mock);
    } finally {
      await mock.close();
    }
  });
}

describe.skipIf(!hasMock)(
  `the suite through a gateway${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`,
  { concurrent: true },
  () => {
    /** For the option checks, which send no request. */
    let mock: Running;
    let dir: string;
    beforeAll(async () => {
      mock = await startKitMock({ clock: "real" });
      dir = mkdtempSync(join(tmpdir(), "gateway-runs-"));
    });
    afterAll(async () => {
      await mock?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** One run through a fresh gateway with `options`; the gateway is closed after, its stats kept. */
    async function through(
      options: Omit<GatewayOptions, "upstream">,
      args: string[],
      target: Running,
    ): Promise<{ code: number; run: RunResult; gateway: ReturnType<Gateway["stats"]>; out: string[] }> {
      const gateway = await startGateway({ upstream: target.url, ...options });
      const out: string[] = [];
      try {
        const { code, run } = await main(
          [
            "--base-url",
            gateway.url,
            "--api-key",
            target.apiKey,
            "--target",
            "foreign",
            "--ledger",
            join(dir, `${Math.random()}.jsonl`),
            ...args,
          ],
          {},
          { out: (t) => out.push(t), err: (t) => out.push(t) },
          { backoffBaseMs: 20 },
        );
        return { code, run: run!, gateway: gateway.stats(), out };
      } finally {
        await gateway.close();
      }
    }

    it(
      "gives a correct target the same verdict on every run through a realistic mix, and a real fault fails only its own rules",
      { timeout: QUEUED },
      ({ expect }) =>
        withOwnMock(async (mock) => {
          // The fault pair runs on a mock of its own, beside the three verdict runs: each run mostly waits on its
          // gateway (latency, Retry-After, backoff, a clock tick), and no run moves the lists another one walks.
          // The verdict runs go one after the other on the one target, as a team would run them.
          const faulty = await startKitMock({ clock: "real" });
          const verdictRuns = async () => {
            const runs = [];
            for (const seed of [1, 2, 3]) runs.push(await through({ ...MIX, seed }, ["--timeout", "2"], mock));
            return runs;
          };
          const faultRuns = async () => {
            const alone = await through({ rewrite: TOTAL_OFF_BY_ONE }, [], faulty);
            const mixed = await through({ ...MIX, seed: 4, rewrite: TOTAL_OFF_BY_ONE }, ["--timeout", "2"], faulty);
            return { alone, mixed };
          };
          const [runs, { alone, mixed }] = await Promise.all([verdictRuns(), faultRuns()]).finally(() =>
            faulty.close(),
          );
          for (const { code, run } of runs) {
            expect(failed(run)).toEqual([]);
            expect(inconclusive(run)).toEqual([]);
            expect(code).toBe(0);
          }
          expect(outcomes(runs[1].run)).toEqual(outcomes(runs[0].run));
          expect(outcomes(runs[2].run)).toEqual(outcomes(runs[0].run));
          expect(
            runs.reduce(
              (n, r) =>
                n +
                r.gateway.rateLimited +
                r.gateway.resets +
                Object.values(r.gateway.gatewayErrors).reduce((a, b) => a + b, 0),
              0,
            ),
          ).toBeGreaterThan(10);

          expect(failed(alone.run).length).toBeGreaterThan(0);
          expect(failed(alone.run).every((id) => id.startsWith("listCalls.") || id.startsWith("getCall."))).toBe(true);
          expect(failed(mixed.run)).toEqual(failed(alone.run));
          expect(mixed.code).toBe(1);
        }),
    );

    describe.each([
      ["delta-seconds and an HTML page", "seconds", "html"],
      ["an HTTP-date and the API's own error body", "http-date", "api-json"],
      ["no Retry-After", "none", "html"],
    ] as const)("a rate limit announcing its wait with %s", (_label, retryAfter, body) => {
      it(
        "is waited out, never judged, and nothing is sent while an announced wait runs",
        { timeout: QUEUED },
        ({ expect }) =>
          withOwnMock(async (mock) => {
            const { code, run, gateway } = await through(
              { rateLimit: { perSecond: 60, burst: 20, retryAfter, body } },
              ["--only", "/\\/(listCalls|createIntegration)\\./"],
              mock,
            );
            expect(failed(run), body).toEqual([]);
            expect(inconclusive(run)).toEqual([]);
            expect(code).toBe(0);
            expect(gateway.rateLimited).toBeGreaterThan(0);
            expect(run.environment.rateLimited).toBe(gateway.rateLimited);
            expect(run.environment.requests).toBe(gateway.received);
            if (retryAfter !== "none") expect(gateway.early).toBe(0);
            // The pace learnt keeps the 429s to a few percent of the requests.
            expect(gateway.rateLimited / gateway.received).toBeLessThan(0.1);
          }),
      );
    });

    it("waits out the gateway's own HTML 502, 503 and 504 pages, and counts them", { timeout: QUEUED }, ({ expect }) =>
      withOwnMock(async (mock) => {
        const { code, run, gateway } = await through({ gatewayErrors: { probability: 0.05 }, seed: 5 }, [], mock);
        expect(failed(run)).toEqual([]);
        expect(inconclusive(run)).toEqual([]);
        expect(code).toBe(0);
        const pages = Object.values(gateway.gatewayErrors).reduce((a, b) => a + b, 0);
        expect(pages).toBeGreaterThan(10);
        expect(run.environment.gatewayErrors).toEqual(gateway.gatewayErrors);
      }),
    );

    it("sends again after connection resets and per-request timeouts", { timeout: QUEUED }, ({ expect }) =>
      withOwnMock(async (mock) => {
        const { code, run, gateway } = await through(
          { resets: { probability: 0.03 }, hangs: { probability: 0.01 }, seed: 9 },
          ["--timeout", "0.5"],
          mock,
        );
        expect(failed(run)).toEqual([]);
        expect(inconclusive(run)).toEqual([]);
        expect(code).toBe(0);
        expect(gateway.resets).toBeGreaterThan(5);
        expect(gateway.hangs).toBeGreaterThan(0);
        expect(run.environment.networkErrors.timeout).toBe(gateway.hangs);
      }),
    );

    it(
      "never makes twice, outside the ledger, what a write made before the gateway failed",
      { timeout: QUEUED },
      ({ expect }) =>
        withOwnMock(async (mock) => {
          const before = await records(mock, "integrations");
          const { code, run, gateway } = await through(
            { failAfterForward: { match: (r) => r.method === "POST" && r.path === "/v1/integrations", times: 2 } },
            ["--only", "createIntegration."],
            mock,
          );
          expect(gateway.failedAfterForward).toBe(2);
          expect(failed(run)).toEqual([]);
          expect(code).toBe(0);
          const made = (await records(mock, "integrations")).filter(
            (i) => !before.some((b) => b.integrationId === i.integrationId),
          );
          // Each one is in the ledger: by its id when its answer came back, by what it was made from when the gateway swallowed it.
          const lost = run.ledger.filter((e) => e.state === "maybe-left");
          expect(lost).toHaveLength(2);
          for (const integration of made) {
            const listed = run.ledger.some(
              (e) =>
                e.id === integration.integrationId ||
                (e.state === "maybe-left" && e.id.includes(JSON.stringify(integration.name))),
            );
            expect(listed, `integration ${integration.integrationId} "${integration.name}" is in the ledger`).toBe(
              true,
            );
          }
          expect(made.length).toBe(run.ledger.filter((e) => e.kind === "integration").length);
        }),
    );

    it(
      "finds a batch run whose creation answer the gateway swallowed, through its test runs",
      { timeout: QUEUED },
      ({ expect }) =>
        withOwnMock(async (mock) => {
          const before = await records(mock, "batchRuns");
          const testCase = (await records(mock, "testCases"))[0];
          const ids = ["--agent-id", testCase.agent.agentId, "--test-case-id", testCase.testCaseId];
          const { code, run, gateway } = await through(
            { failAfterForward: { match: (r) => r.method === "POST" && r.path === "/v1/batch-runs", times: 1 } },
            ["--only", "createBatchRun.created", ...ids],
            mock,
          );
          expect(run.results.map((r) => r.outcome)).toEqual(["passed"]);
          expect(gateway.failedAfterForward).toBe(1);
          expect(code).toBe(0);
          const made = (await records(mock, "batchRuns"))
            .filter((b) => !before.some((x) => x.batchId === b.batchId))
            .map((b) => b.batchId);
          expect(made.length).toBeGreaterThanOrEqual(2);
          const lost = run.ledger.filter((e) => e.kind === "batch run" && e.state === "maybe-left");
          expect(lost).toHaveLength(1);
          expect(made).toContain(lost[0].id);
          expect(made.every((id) => run.ledger.some((e) => e.id === id))).toBe(true);
        }),
    );

    it(
      "does not take calls moving on during the status filter walks for a finding: the check starts over, and is inconclusive if they move again",
      { timeout: QUEUED },
      ({ expect }) =>
        // A mock of its own: the calls this test starts must not move under the other tests' runs.
        withOwnMock(async (live) => {
          // Right after the last page of the in_progress walk, the calls in progress end (an hour passes) and
          // two new ones start: the ended walk then counts calls the in_progress walk counted already.
          const moves = (rounds: number): GatewayOptions["rewrite"] => {
            let moved = 0;
            const control = (path: string, body: unknown) =>
              fetch(`${live.url}/__mock${path}`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify(body),
              });
            return async (req, res) => {
              if (
                moved >= rounds ||
                req.query.get("status") !== "in_progress" ||
                JSON.parse(res.body.toString("utf8")).hasNext !== false
              )
                return undefined;
              moved++;
              await control("/clock/advance", { seconds: 3600, workspaceId: "default" });
              for (let i = 0; i < 2; i++) await control("/workspaces/default/calls", { status: "in_progress" });
              return undefined;
            };
          };
          const once = await through({ rewrite: moves(1) }, ["--only", "listCalls.status-filter"], live);
          expect(once.run.results.map((r) => r.outcome)).toEqual(["passed"]);
          const twice = await through({ rewrite: moves(2) }, ["--only", "listCalls.status-filter"], live);
          expect(twice.run.results.map((r) => [r.outcome, r.reason])).toEqual([
            ["inconclusive", expect.stringMatching(/calls changed state while the five filters were walked/)],
          ]);
          expect(twice.code).toBe(0);
        }),
    );

    it(
      "calls a rule inconclusive when the gateway never lets its operation through: exit 0, or 1 with --fail-on-inconclusive",
      { timeout: QUEUED },
      ({ expect }) =>
        withOwnMock(async (mock) => {
          const page = Buffer.from(
            "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
          );
          const blocked: GatewayOptions["rewrite"] = (req) =>
            req.path === "/v1/webhooks"
              ? { status: 502, headers: { "content-type": "text/html" }, body: page }
              : undefined;
          const junit = join(dir, "inconclusive.xml");
          const plain = await through(
            { rewrite: blocked },
            ["--only", "listWebhooks.", "--retries", "1", "--junit", junit],
            mock,
          );
          const ran = plain.run.results.filter((r) => r.outcome !== "skipped");
          expect(ran.length).toBeGreaterThan(3);
          expect(
            ran.every(
              (r) =>
                r.outcome === "inconclusive" &&
                /no real answer through the environment: GET \/v1\/webhooks/.test(r.reason ?? ""),
            ),
          ).toBe(true);
          expect(plain.code).toBe(0);
          expect(plain.run.environment.inconclusive).toEqual(ran.map((r) => r.id));
          expect(readFileSync(junit, "utf8")).toMatch(
            /<skipped message="inconclusive: no real answer through the environment/,
          );
          expect(plain.out.join("\n")).toMatch(new RegExp(`${ran.length} inconclusive`));
          const strict = await through(
            { rewrite: blocked },
            ["--only", "listWebhooks.", "--retries", "1", "--fail-on-inconclusive"],
            mock,
          );
          expect(strict.code).toBe(1);
        }),
    );

    it("runs read-only rules N at a time with --concurrency, to the same verdicts", { timeout: QUEUED }, ({ expect }) =>
      withOwnMock(async (mock) => {
        // Every answer waits a timer of its own length, so at 4 in flight they come back out of order.
        const slow = { latency: { minMs: 1, maxMs: 5 } };
        const one = await through(slow, ["--only", "/\\/list/"], mock);
        const four = await through(slow, ["--only", "/\\/list/", "--concurrency", "4"], mock);
        expect(failed(four.run)).toEqual([]);
        expect(outcomes(four.run)).toEqual(outcomes(one.run));
        expect(four.run.results.map((r) => r.id)).toEqual(one.run.results.map((r) => r.id));
      }),
    );

    it.for([
      ["--rate-limit", "fast"],
      ["--rate-limit", "0/s"],
      ["--concurrency", "0"],
      ["--retries", "-1"],
      ["--timeout", "soon"],
    ])("refuses %s %s with one line (exit 2)", async ([option, value], { expect }) => {
      const err: string[] = [];
      const { code } = await main(
        ["--base-url", mock.url, "--api-key", mock.apiKey, `${option}=${value}`],
        {},
        { out: () => {}, err: (t) => err.push(t) },
      );
      expect(code).toBe(2);
      expect(err).toEqual([expect.stringMatching(new RegExp(`^conformance: cannot start: ${option} must be`))]);
    });

    async function records(target: Running, collection: string): Promise<Record<string, any>[]> {
      return (await fetch(`${target.url}/__mock/workspaces/default/${collection}`)).json();
    }
  },
);
