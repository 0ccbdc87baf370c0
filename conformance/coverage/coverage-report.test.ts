/** The coverage reports from a planted run: the console's grouping and verdict, recipes without secrets. */
import { describe, expect, it } from "vitest";
import {
  coverageConsoleReport,
  coverageHtmlReport,
  coverageJunitReport,
  recipeLine,
  type CoverageRun,
} from "./coverage-report.js";

const run = (over: Partial<CoverageRun> = {}): CoverageRun => ({
  source: "http://127.0.0.1:4010 (GET /__mock/coverage)",
  coverage: {
    workspaceId: "w1",
    percent: 50,
    variants: [
      { operationId: "getCall", kind: "status", value: "200", seen: true, howTo: "Send a valid GET." },
      {
        operationId: "getCall",
        kind: "status",
        value: "404",
        seen: false,
        howTo: "Name what does not exist.",
        recipe: [{ method: "GET", path: "/v1/calls/nope", headers: { "X-API-Key": "k-123", Prefer: "code=404" } }],
      },
      { operationId: "listCalls", kind: "page", value: "empty", seen: false, howTo: "Ask past the end." },
      { operationId: "listCalls", kind: "page", value: "first", seen: true, howTo: "Ask for page=0." },
    ],
  },
  failUnder: 0,
  notes: [],
  notJudged: [],
  startedAt: "2026-11-01T12:00:00.000Z",
  durationMs: 3,
  ...over,
});

describe("the console", () => {
  it("groups what was never received by operation, each with its howTo, then the verdict", () => {
    expect(coverageConsoleReport(run()).split("\n")).toEqual([
      "Coverage of workspace w1, http://127.0.0.1:4010 (GET /__mock/coverage): 50 % (2 of 4 variants received)",
      "Never received: 2 variants of 2 operations",
      "  getCall  GET /v1/calls/{callId}  (1 of 2 received)",
      "    ✗ status 404  Name what does not exist.",
      "  listCalls  GET /v1/calls  (1 of 2 received)",
      "    ✗ page empty  Ask past the end.",
      "PASS: 50 % is at or above --fail-under 0",
    ]);
    expect(coverageConsoleReport(run({ failUnder: 50.5 }))).toMatch(/\nFAIL: 50 % is below --fail-under 50\.5$/);
  });
});

describe("recipes", () => {
  it("never show a key, a token or a secret", () => {
    expect(
      recipeLine({ method: "GET", path: "/v1/calls", query: { page: "1" }, headers: { Authorization: "Bearer t" } }),
    ).toBe("GET /v1/calls?page=1 with Authorization: [redacted]");
    expect(
      recipeLine({
        method: "POST",
        path: "/__mock/workspaces/w/webhooks",
        body: { url: "https://r", secret: "whsec_1", nested: [{ token: "t" }] },
      }),
    ).toBe(
      'POST /__mock/workspaces/w/webhooks body {"url":"https://r","secret":"[redacted]","nested":[{"token":"[redacted]"}]}',
    );
    for (const report of [coverageJunitReport(run()), coverageHtmlReport(run())]) {
      expect(report).not.toContain("k-123");
      expect(report).toContain("Prefer: code=404");
    }
  });
});
