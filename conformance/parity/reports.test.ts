import { describe, expect, it } from "vitest";
import { parityConsoleReport } from "./console-report.js";
import { parityHtmlReport } from "./html-report.js";
import { parityJsonReport } from "./json-report.js";
import type { ParityResult, SideResult } from "./types.js";

const side = (baseUrl: string, extra: Partial<SideResult> = {}): SideResult => ({
  baseUrl,
  target: "a foreign deployment (--target foreign)",
  ruleCounts: { passed: 10, failed: 1, skipped: 2 },
  inconclusive: [],
  probes: 70,
  observations: [],
  left: [],
  environment: { requests: 500, rateLimited: 3, gatewayErrors: 1, waitedSeconds: 3 },
  durationMs: 4200,
  ...extra,
});

const result = (differences: ParityResult["differences"], extra: Partial<ParityResult> = {}): ParityResult => ({
  a: side("https://a.example"),
  b: side("https://b.example", {
    inconclusive: ["listCalls.walk"],
    observations: [
      { operationId: "getCall", kind: "status", probe: "a call of another workspace", unobserved: "no second key" },
    ],
    left: [{ kind: "integration", id: "int-1", note: "created by parity's defaults probe" }],
  }),
  level: "assumed",
  differences,
  notCompared: { inconclusive: { a: 0, b: 1 }, skippedOnOneSide: ["getQaRule.known"], unobserved: { a: 0, b: 1 } },
  rulesCompared: 11,
  observationsCompared: 120,
  durationMs: 5000,
  ...extra,
});

const DIFFERENCES: ParityResult["differences"] = [
  {
    operationId: "listCalls",
    kind: "outcome",
    rule: "listCalls.newest-first",
    a: { outcome: "passed" },
    b: { outcome: "failed", why: "items out of order" },
  },
  {
    operationId: "listCalls",
    kind: "status",
    a: { probe: "size=0, size=abc", status: 400 },
    b: { probe: "size=0, size=abc", status: 422 },
  },
  {
    operationId: "listCalls",
    kind: "message",
    a: { probe: "size=0", path: "the request path" },
    b: { probe: "size=0", path: "(absent)" },
  },
  {
    operationId: "listCalls",
    kind: "field",
    a: { probe: "items of the first page", field: "endedAt", present: "in every record" },
    b: { probe: "items of the first page", field: "endedAt", present: "in none" },
  },
  {
    operationId: "getCall",
    kind: "message",
    a: { probe: "unknown id", error: "the status text" },
    b: { probe: "unknown id", error: "<script>alert(1)</script>" },
  },
];

describe("parity console report", () => {
  it("groups differences by operation, says what was not compared, what was left, and counts last", () => {
    const text = parityConsoleReport(result(DIFFERENCES));
    expect(text).toContain("Parity of A https://a.example and B https://b.example (level assumed)");
    expect(text).toContain(
      [
        "listCalls",
        "  outcome  listCalls.newest-first: A passed; B failed: items out of order",
        "  status   size=0, size=abc: A 400; B 422",
        "  message  size=0: A path: the request path; B path: (absent)",
        "  field    items of the first page: endedAt: A in every record; B in none",
      ].join("\n"),
    );
    expect(text).toContain("0 rules inconclusive on A, 1 rule inconclusive on B");
    expect(text).toContain("inconclusive on B: listCalls.walk");
    expect(text).toContain("1 rule skipped on one target only (fixtures the other lacks): getQaRule.known");
    expect(text).toContain("Left on B by the probes: integration int-1 (created by parity's defaults probe)");
    expect(text.split("\n").at(-1)).toMatch(
      /^5 differences \(1 outcome, 1 status, 2 message, 1 field\) in 2 operations/,
    );
  });

  it("says so when nothing differs", () => {
    expect(parityConsoleReport(result([])).split("\n").at(-1)).toMatch(
      /^No differences: A and B behave alike in the 11 rules and 120 observations compared/,
    );
  });
});

describe("parity JSON report", () => {
  it("holds the differences as compared, the two base URLs and a summary", () => {
    const report = JSON.parse(parityJsonReport(result(DIFFERENCES)));
    expect(Object.keys(report)).toEqual(["differences", "a", "b", "summary"]);
    expect(report.differences).toEqual(DIFFERENCES);
    expect(report.a).toBe("https://a.example");
    expect(report.summary.differences).toEqual({ outcome: 1, status: 1, message: 2, default: 0, order: 0, field: 1 });
    expect(report.summary.sides.b.left).toEqual([
      { kind: "integration", id: "int-1", note: "created by parity's defaults probe" },
    ]);
  });
});

describe("parity HTML report", () => {
  it("is one page with no script or external asset, everything from a target escaped", () => {
    const html = parityHtmlReport(result(DIFFERENCES));
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src=/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("DIFFER");
    expect(html).toContain("<code>listCalls</code>");
    expect(html).toContain("int-1");
    expect(parityHtmlReport(result([]))).toContain("ALIKE");
  });
});
