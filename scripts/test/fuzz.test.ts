/**
 * The short version of `npm run fuzz` (the long run, 10 000 requests, is `npm run fuzz`): a fixed seed,
 * so a failure here replays exactly with the printed command. Also checks the fuzzer itself: its
 * generator reaches every operation and every kind of hostility, and its checks catch a broken answer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { operations } from "../../conformance/lib/spec.js";
import { fuzzCases } from "../fuzz/cases.js";
import { responseProblems } from "../fuzz/checks.js";
import { failureReport, runFuzz } from "../fuzz/run.js";
import type { FuzzCase } from "../fuzz/case.js";

const SEED = 20_261_106;

describe("npm run fuzz, short", () => {
  it("600 requests over every operation: no 5xx, 2.2 errors, no store change on a 4xx, no pollution", async () => {
    const result = await runFuzz({ runs: 600, seed: SEED });
    if (result.failure) throw new Error(failureReport(result.failure));
    expect(result.stats.requests).toBeGreaterThanOrEqual(600);
    for (const id of operations.keys()) expect(result.stats.byOperation.get(id)!.sent, id).toBeGreaterThan(0);
  }, 120_000);
});

describe("the fuzzer's generator and checks", () => {
  const cases = fc.sample(fuzzCases({ known: { agentId: ["a1"] }, validBodies: {} }), { numRuns: 3000, seed: SEED });

  it("reaches every operation with valid and with hostile requests", () => {
    for (const id of operations.keys()) {
      const mine = cases.filter((c) => c.operationId === id);
      expect(
        mine.some((c) => c.expect === "accept"),
        `${id} valid`,
      ).toBe(true);
      expect(
        mine.some((c) => c.kind !== "valid" && c.kind !== "invalid"),
        `${id} hostile`,
      ).toBe(true);
    }
  });

  it.each([
    "malformed-json",
    "hostile-value",
    "hostile-nested",
    "content-type",
    "duplicate-query",
    "overlong-id",
    "query-syntax",
    "huge-header",
    "form-garbage",
    "raw",
    "method",
    "auth",
  ])("makes %s cases", (kind) => expect(cases.some((c) => c.kind === kind)).toBe(true));

  const aCase: FuzzCase = {
    operationId: "listAgents",
    kind: "valid",
    expect: "accept",
    why: "test",
    wire: { method: "GET", target: "/v1/agents", headers: [], key: "valid" },
  };
  const error = (status: number, body: object, type = "application/json") => ({
    status,
    headers: { "content-type": type },
    text: JSON.stringify(body),
  });
  const good = {
    timestamp: "2026-11-01T12:00:00.000Z",
    status: 404,
    error: "Not Found",
    message: "x",
    path: "/v1/agents",
  };

  it.each<[string, ReturnType<typeof error>, RegExp]>([
    ["a 5xx", error(500, { ...good, status: 500, error: "Internal Server Error" }), /answered 500/],
    ["an error as text/html", error(404, good, "text/html"), /not application\/json/],
    ["an error whose status differs from HTTP", error(404, { ...good, status: 400 }), /status/],
    ["an error without a message", error(404, { ...good, message: undefined }), /message/],
    ["an error with another path", error(404, { ...good, path: "/v1/calls" }), /path/],
    [
      "a valid request refused as bad",
      error(400, { ...good, status: 400, error: "Bad Request" }),
      /valid by the spec was refused/,
    ],
  ])("flags %s", (_name, response, problem) => {
    expect(responseProblems(aCase, response).join("\n")).toMatch(problem);
  });

  it("passes a well-formed 404", () => expect(responseProblems(aCase, error(404, good))).toEqual([]));
});
