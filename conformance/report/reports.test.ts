/**
 * The reports on synthetic runs: JUnit well-formed with one <failure> per failing testcase, crashes as
 * <error>, known failures skipped; baselines (known, partial, stale, --only'd rules, bad files); the
 * console grouping failures by cause and staying short; the HTML page self-contained and escaped.
 * Runs through a gateway: inconclusive rules (counted, not failing unless asked) and the environment
 * section in every report.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RuleResult, RunResult } from "../lib/runner.js";
import type { Failure } from "../lib/rule.js";
import { applyBaseline, baselineFile, loadBaseline, type Baseline } from "./baseline.js";
import { countingFailures, countOutcomes, runFails } from "./group.js";
import { consoleReport } from "./console.js";
import { groupFailures, messagePattern, percentile, pointerPattern, timingRows } from "./group.js";
import { htmlReport } from "./html.js";
import { jsonReport } from "./json.js";
import { junitCannotStart, junitReport } from "./junit.js";
import { EnvironmentStats, type EnvironmentReport } from "../transport/environment.js";
import { operationCatalog } from "../generic/catalog.js";
import { documentRules } from "../generic/document-rules.js";
import { bundledDocument } from "../lib/document.js";
import { isReferenceOperation } from "../../scripts/test/lib/reference-operations.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom") as {
  JSDOM: new (text: string, options: { contentType: string }) => { window: { document: Document } };
};

/** Parses XML strictly (jsdom throws on a malformed document); fails on a parsererror element too. */
function parseXml(xml: string): Document {
  const doc = new JSDOM(xml, { contentType: "text/xml" }).window.document;
  expect(doc.getElementsByTagName("parsererror").length).toBe(0);
  return doc;
}

const BASE = "http://127.0.0.1:4010";
const UPLOAD_CURL = `d=$(mktemp -d) && printf %s 'JVBERi0xLjQK${"QUJD".repeat(120)}' | base64 -d > "$d/0" && curl -sS -i -X POST '${BASE}/v1/knowledge-bases' -H "X-API-Key: $API_KEY" -F 'files=@'"$d/0"';filename=a.pdf;type=application/pdf'`;

function failure(over: Partial<Failure> = {}): Failure {
  return {
    rule: "listCalls.walk",
    operationId: "listCalls",
    level: "documented",
    pointer: "/totalCount",
    expected: "3",
    actual: "4",
    message: "the pages together hold total records",
    curl: `curl -sS -i -X GET '${BASE}/v1/calls?page=0&size=2' -H "X-API-Key: $API_KEY"`,
    ...over,
  };
}

function result(id: string, outcome: RuleResult["outcome"], over: Partial<RuleResult> = {}): RuleResult {
  const operationId = id.split(".")[0];
  const { failures = [], ...rest } = over;
  return {
    id,
    group: operationId.toLowerCase().includes("call") ? "calls" : "other",
    operationId,
    level: "documented",
    readOnly: true,
    description: `checks ${id}`,
    outcome,
    durationMs: 12.5,
    ...rest,
    failures: failures.map((f) => ({ ...f, rule: id, operationId })),
  };
}

/**
 * The operations a run of the kit's spec lists, the reference's (E1 to E17, hand-written rules): the
 * synthetic runs are of those, whatever operations a spec author has added to spec/.
 */
const REFERENCE_CATALOG = operationCatalog(bundledDocument, documentRules(bundledDocument)).filter((op) =>
  isReferenceOperation(op.operationId),
);

function makeRun(results: RuleResult[], over: Partial<RunResult> = {}): RunResult {
  return {
    baseUrl: BASE,
    level: "documented",
    isMock: false,
    target: { kind: "foreign", reason: "GET /__mock/health answered 404" },
    readOnly: false,
    runId: "conformance-2026-01-02-abcdef",
    startedAt: "2026-01-02T03:04:05.678Z",
    durationMs: 4321,
    results,
    coverage: { listCalls: { "200": 5, "400": 1, "502": 2 }, listAgents: { "200": 3 } },
    timings: { listCalls: [5, 1, 3, 2, 4, 100], listAgents: [7] },
    ledger: [
      {
        kind: "integration",
        id: "int-1",
        note: "created by E2; the reference has no way to delete an integration",
        state: "left",
      },
      {
        kind: "phone number",
        id: "+14155550123",
        note: "friendlyName changed by updatePhoneNumber.by-e164; still differs",
        state: "not-restored",
      },
    ],
    notCovered: [
      "getQaRule.known: no QA rule id known (pass --qa-rule-id)",
      "no QA rule id (pass --qa-rule-id): E12 not covered",
    ],
    environment: new EnvironmentStats().report(undefined, "auto", []),
    operations: REFERENCE_CATALOG,
    ...over,
  };
}

/**
 * A run through a busy gateway: 262 answers 429 at about 20/s, 31 s waited, 8 502s and 3 504s, one reset,
 * one flaky answer, 100 timed answers of the API (1..100 ms).
 */
function busyEnvironment(inconclusive: string[]): EnvironmentReport {
  const stats = new EnvironmentStats();
  for (let i = 0; i < 262; i++) stats.attempt("rate-limited", 429, 2), stats.retry("rateLimited");
  for (let i = 0; i < 11; i++) stats.attempt("gateway", i < 8 ? 502 : 504, 30), stats.retry("gateway");
  stats.attempt("reset", undefined, undefined);
  stats.retry("network");
  for (let i = 1; i <= 100; i++) stats.attempt("api", 200, i);
  stats.flaky.push({ request: "POST /v1/agents", first: 500, then: 201 });
  stats.waited(0, 31_000);
  return stats.report(20, "auto", inconclusive);
}

const LOST_CALLS =
  "no real answer through the environment: GET /v1/calls: no answer from the API after 4 attempts (met 502 (not the API's answer), 429, 429, 502 (not the API's answer))";
const LOST_AGENTS =
  "no real answer through the environment: GET /v1/agents: no answer from the API after 4 attempts (met reset, reset, reset, reset)";

/** Three inconclusive rules (two for one reason), a pass, a skip, and a ledger with writes the gateway swallowed. */
function gatewayRun(over: Partial<RunResult> = {}): RunResult {
  const results = [
    result("listCalls.total-pages", "passed"),
    result("listCalls.walk", "inconclusive", { reason: LOST_CALLS }),
    result("listCalls.by-status", "inconclusive", { reason: LOST_CALLS }),
    result("listAgents.walk", "inconclusive", { reason: LOST_AGENTS }),
    result("getQaRule.known", "skipped", { reason: "no QA rule id known (pass --qa-rule-id)" }),
  ];
  return makeRun(results, {
    environment: busyEnvironment(["listCalls.walk", "listCalls.by-status", "listAgents.walk"]),
    ledgerFile: "/tmp/agent-platform-conformance/conformance-2026-01-02-abcdef.ledger.jsonl",
    ledger: [
      { kind: "agent", id: "ag_9f8e7d6c5b", note: "created by E2; removed", state: "removed" },
      {
        kind: "agent",
        id: "(unknown id)",
        note: "POST /v1/agents met 502 after forwarding: the agent may exist",
        state: "maybe-left",
      },
      {
        kind: "webhook",
        id: "wh_1a2b3c4d5e",
        note: "DELETE met a reset: the webhook may still exist",
        state: "maybe-removed",
      },
    ],
    ...over,
  });
}

/** A run with one of each outcome, a failure carrying markup and characters XML does not allow. */
function mixedRun(): RunResult {
  return makeRun([
    result("listCalls.total-pages", "passed"),
    result("listCalls.walk", "failed", {
      failures: [
        failure({
          pointer: "/data/3/createdAt",
          message: "createdAt is UTC",
          expected: "a Z time",
          actual: `"<script>alert('x')</script> & \u0001\u0008 \ud800 done"`,
        }),
        failure(),
        failure({
          pointer: "/hasNext",
          message: "hasNext: a later page exists",
          expected: "true",
          actual: "false",
          level: "assumed",
        }),
      ],
    }),
    result("listCalls.crash", "errored", {
      error:
        "TypeError: Cannot read properties of undefined (reading 'data')\n    at walk (conformance/operations/calls.ts:10:5)\n    at run (runner.ts:1:1)",
    }),
    result("getQaRule.known", "skipped", { reason: "no QA rule id known (pass --qa-rule-id)" }),
    result("createKnowledgeBase.upload", "failed", {
      group: "knowledge-bases",
      failures: [
        failure({
          pointer: "#status",
          message: "POST /v1/knowledge-bases must answer 201",
          expected: "201",
          actual: "500",
          curl: UPLOAD_CURL,
        }),
      ],
    }),
  ]);
}

const dir = mkdtempSync(join(tmpdir(), "conformance-reports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("junit", () => {
  it("the well-formedness check can fail", () => {
    expect(() => parseXml("<a><b></a>")).toThrow();
  });

  it("is well-formed, one <failure> per failing testcase, crashes as <error>, skips with their reason, properties on every suite", () => {
    const run = mixedRun();
    const xml = junitReport(run);
    expect(xml).not.toMatch(/[\u0001\u0008]/);
    const doc = parseXml(xml);
    const cases = Array.from(doc.getElementsByTagName("testcase"));
    expect(cases).toHaveLength(run.results.length);
    const byName = new Map(cases.map((c) => [c.getAttribute("name")!.replace(/ \[.*\]$/, ""), c]));

    const walk = byName.get("listCalls.walk")!;
    const failures = walk.getElementsByTagName("failure");
    expect(failures).toHaveLength(1);
    expect(failures[0].getAttribute("message")).toBe("createdAt is UTC (+2 more)");
    const text = failures[0].textContent!;
    for (const p of ["/data/3/createdAt", "/totalCount", "/hasNext"]) expect(text).toContain(p);
    expect(text).toContain("<script>alert('x')</script> & ");
    expect(text).toContain("[assumed] hasNext: a later page exists");
    expect(text).toContain(`repro:    curl -sS -i -X GET '${BASE}/v1/calls?page=0&size=2' -H "X-API-Key: $API_KEY"`);
    // The upload repro is whole, mktemp and all.
    expect(byName.get("createKnowledgeBase.upload")!.getElementsByTagName("failure")[0].textContent).toContain(
      UPLOAD_CURL,
    );

    const crash = byName.get("listCalls.crash")!;
    expect(crash.getElementsByTagName("failure")).toHaveLength(0);
    const error = crash.getElementsByTagName("error");
    expect(error).toHaveLength(1);
    expect(error[0].getAttribute("type")).toBe("crash");
    expect(error[0].getAttribute("message")).toContain("TypeError: Cannot read properties of undefined");
    expect(error[0].textContent).toContain("at walk (conformance/operations/calls.ts:10:5)");

    const skipped = byName.get("getQaRule.known")!.getElementsByTagName("skipped");
    expect(skipped).toHaveLength(1);
    expect(skipped[0].getAttribute("message")).toBe("no QA rule id known (pass --qa-rule-id)");
    expect(byName.get("listCalls.total-pages")!.children).toHaveLength(0);

    // Counts agree with the children, per suite and overall; timestamp, no hostname; properties per suite.
    const suites = Array.from(doc.getElementsByTagName("testsuite"));
    expect(suites.map((s) => s.getAttribute("name")).sort()).toEqual(["calls", "knowledge-bases", "other"]);
    const count = (el: Element, tag: string) =>
      Array.from(el.getElementsByTagName("testcase")).filter((c) => c.getElementsByTagName(tag).length > 0).length;
    for (const el of [...suites, doc.documentElement]) {
      expect(Number(el.getAttribute("tests"))).toBe(el.getElementsByTagName("testcase").length);
      expect(Number(el.getAttribute("failures"))).toBe(count(el, "failure"));
      expect(Number(el.getAttribute("errors"))).toBe(count(el, "error"));
      expect(Number(el.getAttribute("skipped"))).toBe(count(el, "skipped"));
      expect(el.getAttribute("time")).toMatch(/^\d+\.\d{3}$/);
      expect(el.hasAttribute("hostname")).toBe(false);
    }
    expect(doc.documentElement.getAttribute("failures")).toBe("2");
    for (const s of suites) {
      expect(s.getAttribute("timestamp")).toBe(run.startedAt);
      const props = Object.fromEntries(
        Array.from(s.getElementsByTagName("property")).map((p) => [p.getAttribute("name"), p.getAttribute("value")]),
      );
      // The run's own properties, then the environment's (tested with a busy gateway below).
      const own = Object.fromEntries(Object.entries(props).filter(([name]) => !name!.startsWith("environment.")));
      expect(own).toEqual({
        level: "documented",
        runId: run.runId,
        "target.kind": "foreign",
        "target.reason": "GET /__mock/health answered 404",
        baseUrl: BASE,
        readOnly: "false",
      });
      expect(props["environment.summary"]).toBe(run.environment.summary);
    }
    expect(doc.documentElement.getElementsByTagName("properties")).toHaveLength(suites.length);
    expect(Array.from(doc.documentElement.children).every((c) => c.tagName === "testsuite")).toBe(true);
  });

  it("reports a known failure as skipped with its findings in system-out", () => {
    const run = mixedRun();
    applyBaseline(run, { file: "b.json", entries: [{ rule: "listCalls.walk" }] });
    const doc = parseXml(junitReport(run));
    const walk = Array.from(doc.getElementsByTagName("testcase")).find((c) =>
      c.getAttribute("name")!.startsWith("listCalls.walk "),
    )!;
    expect(walk.getElementsByTagName("failure")).toHaveLength(0);
    expect(walk.getElementsByTagName("skipped")[0].getAttribute("message")).toBe(
      "known failure (baseline): createdAt is UTC (+2 more)",
    );
    expect(walk.getElementsByTagName("system-out")[0].textContent).toContain("/hasNext");
    expect(doc.documentElement.getAttribute("failures")).toBe("1");
    expect(doc.documentElement.getAttribute("skipped")).toBe("2");
  });

  it("junitCannotStart: one suite, one setup testcase with one error", () => {
    const doc = parseXml(
      junitCannotStart(`target unreachable: ${BASE} (ECONNREFUSED <&> "q")`, { baseUrl: BASE, level: "documented" }),
    );
    const suites = doc.getElementsByTagName("testsuite");
    expect(suites).toHaveLength(1);
    expect(suites[0].getAttribute("name")).toBe("conformance");
    expect(suites[0].getAttribute("errors")).toBe("1");
    const cases = doc.getElementsByTagName("testcase");
    expect(cases).toHaveLength(1);
    expect(cases[0].getAttribute("name")).toBe("setup");
    const errors = cases[0].getElementsByTagName("error");
    expect(errors).toHaveLength(1);
    expect(errors[0].getAttribute("message")).toContain(`ECONNREFUSED <&> "q"`);
    expect(errors[0].textContent).toBe(`target unreachable: ${BASE} (ECONNREFUSED <&> "q")`);
    parseXml(junitCannotStart("no --base-url", {}));
  });
});

describe("baseline", () => {
  const walkRun = () =>
    makeRun([
      result("listCalls.walk", "failed", {
        failures: [
          failure(),
          failure({ pointer: "/data/4/createdAt", message: "createdAt is UTC" }),
          failure({ pointer: "/data/7/createdAt", message: "createdAt is UTC" }),
        ],
      }),
      result("listCalls.total-pages", "passed"),
      result("getQaRule.known", "skipped", { reason: "no QA rule id known" }),
    ]);

  it("makes a rule known when every finding is covered (indexes aside); the run then passes", () => {
    const run = walkRun();
    expect(runFails(run)).toBe(true);
    applyBaseline(run, {
      file: "b",
      entries: [
        { rule: "listCalls.walk", pointer: "/totalCount" },
        { rule: "listCalls.walk", pointer: "/data/0/createdAt" },
      ],
    });
    expect(run.results[0].known).toBe(true);
    expect(runFails(run)).toBe(false);
    expect(run.staleBaseline).toEqual([]);
    // An entry without a pointer covers every finding of the rule.
    const again = walkRun();
    applyBaseline(again, { file: "b", entries: [{ rule: "listCalls.walk" }] });
    expect(again.results[0].known).toBe(true);
  });

  it("keeps a rule failing when one finding is not covered", () => {
    const run = walkRun();
    applyBaseline(run, { file: "b", entries: [{ rule: "listCalls.walk", pointer: "/totalCount", note: "TICKET-12" }] });
    expect(run.results[0].known).toBeFalsy();
    expect(runFails(run)).toBe(true);
    expect(run.staleBaseline).toEqual([]);
  });

  it("lists stale entries, but not those of rules that did not run or were skipped", () => {
    const run = walkRun();
    applyBaseline(run, {
      file: "b",
      entries: [
        { rule: "listCalls.walk" },
        { rule: "listCalls.walk", pointer: "/page" },
        { rule: "listCalls.total-pages", pointer: "/totalPages", note: "TICKET-7" },
        { rule: "getQaRule.known" },
        { rule: "listAgents.walk", pointer: "/totalCount" },
      ],
    });
    expect(run.results[0].known).toBe(true);
    expect(run.staleBaseline).toEqual([
      "listCalls.walk /page (no longer fails)",
      "listCalls.total-pages /totalPages (no longer fails) - TICKET-7",
    ]);
    expect(consoleReport(run)).toMatch(/Stale baseline entries[^\n]*\n {2}listCalls\.walk \/page \(no longer fails\)/);
  });

  it("never makes a crash known", () => {
    const run = makeRun([result("listCalls.crash", "errored", { error: "Error: x", failures: [failure()] })]);
    applyBaseline(run, { file: "b", entries: [{ rule: "listCalls.crash" }] });
    expect(runFails(run)).toBe(true);
  });

  it("loads the knownFailures format and the suite's --json report; baselineFile round-trips", () => {
    const known = join(dir, "known.json");
    writeFileSync(
      known,
      JSON.stringify({ knownFailures: [{ rule: "listCalls.walk", pointer: "/totalCount", note: "TICKET-12" }] }),
    );
    expect(loadBaseline(known)).toEqual({
      file: known,
      entries: [{ rule: "listCalls.walk", pointer: "/totalCount", note: "TICKET-12" }],
    });

    const report = join(dir, "report.json");
    writeFileSync(report, jsonReport(walkRun()));
    const fromReport = loadBaseline(report);
    expect(fromReport.entries.map((e) => `${e.rule} ${e.pointer}`)).toEqual([
      "listCalls.walk /totalCount",
      "listCalls.walk /data/*/createdAt",
    ]);
    const run = walkRun();
    applyBaseline(run, fromReport);
    expect(runFails(run)).toBe(false);

    const made = join(dir, "made.json");
    writeFileSync(made, baselineFile(walkRun()));
    const baseline: Baseline = loadBaseline(made);
    expect(baseline.entries).toHaveLength(2);
    const again = walkRun();
    applyBaseline(again, baseline);
    expect(again.results[0].known).toBe(true);
  });

  it("refuses bad files with one line naming the file", () => {
    const cases: [string, string | undefined, RegExp][] = [
      ["missing.json", undefined, /no such file/],
      ["not-json.json", "{knownFailures: oops", /not JSON/],
      ["array.json", "[1,2]", /expected \{"knownFailures"/],
      ["other.json", `{"foo":1}`, /neither knownFailures nor results/],
      ["not-array.json", `{"knownFailures":{}}`, /knownFailures must be an array/],
      ["no-rule.json", `{"knownFailures":[{"pointer":"/x"}]}`, /knownFailures\[0\]\.rule/],
      ["bad-pointer.json", `{"knownFailures":[{"rule":"a","pointer":3}]}`, /knownFailures\[0\]\.pointer/],
      ["bad-report.json", `{"runId":"r","results":[{"id":"a"}]}`, /results\[0\]/],
    ];
    for (const [name, content, message] of cases) {
      const file = join(dir, name);
      if (content !== undefined) writeFileSync(file, content);
      let error: Error | undefined;
      try {
        loadBaseline(file);
      } catch (e) {
        error = e as Error;
      }
      expect(error, name).toBeInstanceOf(Error);
      expect(error!.message, name).toMatch(message);
      expect(error!.message, name).toContain(file);
      expect(error!.message, name).not.toContain("\n");
    }
  });
});

describe("grouping helpers", () => {
  it("normalises pointers, counts and ids, not statuses", () => {
    expect(pointerPattern("/data/3/x/12")).toBe("/data/*/x/*");
    expect(pointerPattern("#status")).toBe("#status");
    expect(messagePattern("page 2 of 1 holds 3 items")).toBe("page <n> of <n> holds <n> items");
    expect(messagePattern("GET /v1/calls/5b1140a3-2cac-4cce-a40e-c5a714c7c5d1 must answer 404")).toBe(
      "<request> must answer 404",
    );
    expect(messagePattern("a time stamped now is 32352 minutes behind (section 1.3: UTC)")).toBe(
      "a time stamped now is <n> minutes behind (section 1.3: UTC)",
    );
    expect(messagePattern("status=in_progress lists only in_progress calls")).toBe(
      "status=in_progress lists only in_progress calls",
    );
    expect(messagePattern("E3 shows kb_5f2c9a1e7b3d4c6a8e0f")).toBe("E3 shows <id>");
    expect(messagePattern("a PNG image is refused with 415; 403 or 404, not 200, 250 minutes behind")).toBe(
      "a PNG image is refused with 415; 403 or 404, not 200, <n> minutes behind",
    );
  });

  it("percentile is nearest-rank", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile([3, 1, 2], 50)).toBe(2);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeUndefined();
    expect(timingRows(makeRun([]))).toEqual([
      { operationId: "listAgents", count: 1, p50: 7, p95: 7, max: 7 },
      { operationId: "listCalls", count: 6, p50: 3, p95: 100, max: 100 },
    ]);
  });
});

describe("console", () => {
  /** 100 findings of one cause across 20 rules (five each, at different indexes and counts), and 30 passing rules. */
  function bigRun(): RunResult {
    const ops = ["listCalls", "listAgents", "listWebhooks", "listPhoneNumbers", "listTestRuns"];
    const failing = Array.from({ length: 20 }, (_, i) =>
      result(`${ops[i % 5]}.check-${i}`, "failed", {
        failures: Array.from({ length: 5 }, (_, j) =>
          failure({
            pointer: `/data/${j}/createdAt`,
            message: `a time stamped now is ${100 + i * 5 + j} minutes behind (section 1.3: UTC)`,
            expected: "now",
            actual: `"2026-01-01T00:00:00.000Z"`,
            curl: `curl -sS -i -X GET '${BASE}/v1/x?page=${j}' -H "X-API-Key: $API_KEY"`,
          }),
        ),
      }),
    );
    const passing = Array.from({ length: 30 }, (_, i) => result(`${ops[i % 5]}.passing-${i}`, "passed"));
    const skipped = Array.from({ length: 10 }, (_, i) =>
      result(`${ops[i % 5]}.other-workspace-${i}`, "skipped", {
        reason: "needs a second key: pass --second-api-key KEY",
      }),
    );
    return makeRun([...failing, ...passing, ...skipped], { notCovered: skipped.map((r) => `${r.id}: ${r.reason}`) });
  }

  it("prints one cause once for 100 identical findings, no line per passing rule, and ends with the table and the summary", () => {
    const run = bigRun();
    expect(groupFailures(run.results.flatMap((r) => r.failures))).toHaveLength(1);
    const out = consoleReport(run);
    const lines = out.split("\n");
    expect(lines.length).toBeLessThan(70);
    expect(lines.filter((l) => /^\s+\d+\. \d+x /.test(l))).toEqual([
      "  1. 100x [documented] at /data/*/createdAt: a time stamped now is <n> minutes behind (section 1.3: UTC)",
    ]);
    expect(out).toContain(
      "20 rules: listCalls.check-0, listAgents.check-1, listWebhooks.check-2, listPhoneNumbers.check-3, ... (+16 more)",
    );
    expect(lines.filter((l) => l.includes("curl "))).toHaveLength(1);
    expect(out).not.toContain("passing-");
    // Skips by reason, once; the not-covered entries they already say are not repeated.
    expect(lines.filter((l) => l.includes("needs a second key"))).toHaveLength(1);
    expect(out).toMatch(/^\s+10 {2}needs a second key: pass --second-api-key KEY: /m);
    expect(out).not.toContain("Not covered");
    // Header: target and why, level, run id.
    expect(lines[1]).toBe("  Target: a foreign deployment (GET /__mock/health answered 404)");
    expect(out).toContain(`Level:  documented`);
    expect(out).toContain(run.runId);
    // The table by operation comes last, then the summary line.
    const table = lines.findIndex((l) =>
      /^\s+operation\s+passed\s+failed\s+errored\s+skipped\s+statuses seen$/.test(l),
    );
    expect(table).toBeGreaterThan(lines.findIndex((l) => l.includes("100x")));
    expect(lines.slice(table + 2, -2).every((l) => /^ {2}\w+ +\d+ +\d+ +\d+ +\d+/.test(l))).toBe(true);
    expect(lines.find((l) => l.startsWith("  listCalls "))).toMatch(/^ {2}listCalls +6 +4 +0 +2 +200\* 400\* .*502!$/);
    expect(lines.at(-2)).toBe("");
    expect(lines.at(-1)).toBe("30 passed, 20 failed (0 known), 0 errored, 10 skipped in 4.3 s");
  });

  it("shows the level of each cause, crashes with their first stack line, known failures, the ledger loudly, and repro lines whole", () => {
    const run = mixedRun();
    applyBaseline(run, { file: "b", entries: [{ rule: "listCalls.walk" }] });
    const out = consoleReport(run);
    expect(out).toContain(
      "1x [documented] at #status: POST /v1/knowledge-bases must answer 201 (createKnowledgeBase.upload)",
    );
    expect(out).toContain(`repro: ${UPLOAD_CURL}`);
    expect(out).toMatch(
      /Crashed rules[^\n]*\n {2}listCalls\.crash: TypeError: Cannot read properties of undefined \(reading 'data'\) {2}\(at walk \(conformance\/operations\/calls\.ts:10:5\)\)/,
    );
    expect(out).toMatch(
      /Known failures \(baseline[^\n]*\n {2}listCalls\.walk: 3 findings at \/data\/3\/createdAt, \/totalCount, \/hasNext/,
    );
    expect(out).toContain("could NOT be put back");
    expect(out).toMatch(/NOT RESTORED phone number \+14155550123/);
    expect(out).toContain("Not covered:\n  no QA rule id (pass --qa-rule-id): E12 not covered");
    expect(out.split("\n").at(-1)).toBe("1 passed, 2 failed (1 known), 1 errored, 1 skipped in 4.3 s");

    // Without the baseline the walk's findings are causes, each with the level it rests on.
    const plain = consoleReport(mixedRun());
    expect(plain).toContain("1x [assumed] at /hasNext: hasNext: a later page exists (listCalls.walk)");
    expect(plain).toContain("1x [documented] at /data/*/createdAt: createdAt is UTC (listCalls.walk)");
  });
});

describe("html", () => {
  const EXTERNAL = /(src|href)=["']?(https?:)?\/\//i;

  it("is self-contained and escapes what the target sent", () => {
    const run = mixedRun();
    run.results[1].failures[0].actual = `<script>alert(1)</script><img src="http://evil.example/x.png"><a href='//evil.example'>`;
    run.target.reason = `<b onmouseover="x">`;
    const html = htmlReport(run);
    expect(html).not.toMatch(EXTERNAL);
    expect(EXTERNAL.test(`<img src="https://x">`)).toBe(true);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    expect(html).toContain(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=&quot;http://evil.example/x.png&quot;&gt;",
    );
    expect(html).not.toContain("<b onmouseover");
    expect(html).toContain(`data-verdict="FAIL"`);
    // The upload repro, whole and escaped, in a <pre>.
    expect(html).toContain(
      `<pre class="repro" title="Reproduce: API_KEY from your environment">${UPLOAD_CURL.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")}</pre>`,
    );
    // Percentiles of listCalls [5,1,3,2,4,100]: p50 3, p95 100.
    expect(html).toMatch(
      /<td><code>listCalls<\/code><\/td><td class="n">6<\/td><td class="n">3\.00<\/td><td class="n">100<\/td>/,
    );
    // Undocumented status flagged, not-restored ledger entry loud.
    expect(html).toContain(`! 2</td>`);
    expect(html).toContain("could NOT be put back");
    const doc = new JSDOM(html, { contentType: "text/html" }).window.document;
    expect(doc.querySelectorAll("script,link,iframe,img")).toHaveLength(0);
    expect(doc.querySelectorAll("article.cause").length).toBe(
      groupFailures(run.results.filter((r) => r.outcome !== "passed").flatMap((r) => r.failures)).length,
    );
  });

  it("says PASS for a passing run and for one whose failures are all known", () => {
    const passing = makeRun([result("listCalls.total-pages", "passed")], { ledger: [] });
    expect(htmlReport(passing)).toContain(`data-verdict="PASS"`);
    const known = makeRun([result("listCalls.walk", "failed", { failures: [failure()] })]);
    applyBaseline(known, { file: "b", entries: [{ rule: "listCalls.walk" }] });
    const html = htmlReport(known);
    expect(html).toContain(`data-verdict="PASS"`);
    expect(html).toContain("nothing failed beyond 1 known failure (baseline)");
  });
});

describe("through a gateway: inconclusive rules and the environment", () => {
  it("counts inconclusive rules; they are not findings and fail the run only with failOnInconclusive", () => {
    const run = gatewayRun();
    expect(countOutcomes(run.results)).toEqual({
      passed: 1,
      failed: 0,
      known: 0,
      errored: 0,
      skipped: 1,
      inconclusive: 3,
      total: 5,
    });
    expect(countingFailures(run)).toEqual([]);
    expect(runFails(run)).toBe(false);
    expect(runFails(run, {})).toBe(false);
    expect(runFails(run, { failOnInconclusive: false })).toBe(false);
    expect(runFails(run, { failOnInconclusive: true })).toBe(true);
    // Without an inconclusive rule the option changes nothing.
    const clean = makeRun([result("listCalls.total-pages", "passed")]);
    expect(runFails(clean, { failOnInconclusive: true })).toBe(false);
    // A real failure still fails whatever the option.
    const failing = gatewayRun({
      results: [...gatewayRun().results, result("listCalls.size", "failed", { failures: [failure()] })],
    });
    expect(runFails(failing)).toBe(true);
  });

  it("baseline: an inconclusive rule neither matches an entry nor makes it stale", () => {
    const run = gatewayRun();
    applyBaseline(run, {
      file: "b",
      entries: [
        { rule: "listCalls.walk", pointer: "/totalCount" },
        { rule: "listAgents.walk" },
        { rule: "listCalls.total-pages", pointer: "/x" },
      ],
    });
    expect(run.results.some((r) => r.known)).toBe(false);
    expect(run.staleBaseline).toEqual(["listCalls.total-pages /x (no longer fails)"]);
    expect(runFails(run)).toBe(false);
  });

  it('JUnit: an inconclusive rule is <skipped message="inconclusive: ...">, counted as skipped; the environment is in every suite\'s properties', () => {
    const run = gatewayRun();
    const doc = parseXml(junitReport(run));
    const byName = new Map(
      Array.from(doc.getElementsByTagName("testcase")).map((c) => [c.getAttribute("name")!.replace(/ \[.*\]$/, ""), c]),
    );
    for (const [id, reason] of [
      ["listCalls.walk", LOST_CALLS],
      ["listAgents.walk", LOST_AGENTS],
    ]) {
      const skipped = byName.get(id)!.getElementsByTagName("skipped");
      expect(skipped).toHaveLength(1);
      expect(skipped[0].getAttribute("message")).toBe(`inconclusive: ${reason}`);
      expect(byName.get(id)!.getElementsByTagName("failure")).toHaveLength(0);
      expect(byName.get(id)!.getElementsByTagName("error")).toHaveLength(0);
    }
    // 3 inconclusive + 1 skipped; nothing failed.
    expect(doc.documentElement.getAttribute("skipped")).toBe("4");
    expect(doc.documentElement.getAttribute("failures")).toBe("0");
    const suites = Array.from(doc.getElementsByTagName("testsuite"));
    for (const el of suites)
      expect(Number(el.getAttribute("skipped"))).toBe(
        Array.from(el.getElementsByTagName("testcase")).filter((c) => c.getElementsByTagName("skipped").length > 0)
          .length,
      );
    for (const s of suites) {
      const props = Object.fromEntries(
        Array.from(s.getElementsByTagName("property")).map((p) => [p.getAttribute("name"), p.getAttribute("value")]),
      );
      expect(props).toMatchObject({
        "environment.requests": "374",
        "environment.rateLimited": "262",
        "environment.waitedSeconds": "31",
        "environment.pace": "20",
        "environment.paceMode": "auto",
        "environment.retries.rateLimited": "262",
        "environment.retries.gateway": "11",
        "environment.retries.network": "1",
        "environment.retries.timeout": "0",
        "environment.gatewayErrors.502": "8",
        "environment.gatewayErrors.504": "3",
        "environment.networkErrors.reset": "1",
        "environment.flaky": "1",
        "environment.inconclusive": "3",
        "environment.latency.p50": "50",
        "environment.latency.p95": "95",
        "environment.latency.p99": "99",
        "environment.summary": run.environment.summary,
        ledgerFile: run.ledgerFile,
      });
    }
    expect(run.environment.summary).toMatch(
      /^target rate-limited 262 requests at about 20\/s; waited 31 s; 11 gateway errors and 1 network error retried; .*3 inconclusive$/,
    );
    // A quiet run: no pace, no latency, so those properties are left out rather than written as "null".
    const quiet = parseXml(junitReport(makeRun([result("listCalls.total-pages", "passed")])));
    const names = Array.from(quiet.getElementsByTagName("testsuite")[0].getElementsByTagName("property")).map((p) =>
      p.getAttribute("name"),
    );
    expect(names).toContain("environment.requests");
    expect(names).not.toContain("environment.pace");
    expect(names).not.toContain("environment.latency.p50");
  });

  it("console: inconclusive rules by reason, the Environment block and its summary line, the ledger's uncertain writes and file, an interruption first", () => {
    const run = gatewayRun({ interrupted: "SIGINT" });
    const out = consoleReport(run);
    const lines = out.split("\n");
    // The interruption, loud, right after the header.
    const interrupted = lines.findIndex((l) => l.startsWith("!!! INTERRUPTED (SIGINT)"));
    expect(interrupted).toBeGreaterThan(0);
    expect(interrupted).toBeLessThan(7);
    // Inconclusive rules apart from the skipped ones, grouped by reason.
    expect(out).toMatch(
      /\nInconclusive: 3 rules got no real answer through the environment[^\n]*\n {4}2 {2}GET \/v1\/calls: no answer from the API after 4 attempts \(met 502[^\n]*: listCalls\.walk, listCalls\.by-status\n {4}1 {2}GET \/v1\/agents: [^\n]*: listAgents\.walk\n/,
    );
    expect(out).toMatch(/\nSkipped: 1 rule, by reason:\n {4}1 {2}no QA rule id known/);
    // The Environment block.
    const env = lines.findIndex((l) => l.startsWith("Environment (what stood between the suite and the API)"));
    expect(env).toBeGreaterThan(0);
    const block = lines.slice(env + 1, env + 9).join("\n");
    expect(block).toMatch(/^ {2}requests +374 sent/m);
    expect(block).toMatch(/^ {2}rate limited +262 answered 429; waited 31 s$/m);
    expect(block).toMatch(/^ {2}pace +20 req\/s \(auto: learnt from the target's 429s\)$/m);
    expect(block).toMatch(/^ {2}retries +rate limited \(429\) x262, gateway page x11, network x1$/m);
    expect(block).toMatch(/^ {2}gateway errors +502 x8, 504 x3$/m);
    expect(block).toMatch(/^ {2}network errors +reset x1$/m);
    expect(block).toMatch(/^ {2}flaky answers +POST \/v1\/agents: 500, then 201$/m);
    expect(block).toMatch(/^ {2}latency +p50 50 ms, p95 95 ms, p99 99 ms$/m);
    // The one-line summary after it, before the table and the count line.
    const summary = lines.indexOf(`Environment: ${run.environment.summary}`);
    const table = lines.findIndex((l) =>
      /^\s+operation\s+passed\s+failed\s+errored\s+inconclusive\s+skipped\s+statuses seen$/.test(l),
    );
    expect(summary).toBeGreaterThan(env);
    expect(table).toBeGreaterThan(summary);
    expect(lines.find((l) => l.startsWith("  listCalls "))).toMatch(/^ {2}listCalls +1 +0 +0 +2 +0 +200\* /);
    expect(lines.find((l) => l.startsWith("  listAgents "))).toMatch(/^ {2}listAgents +0 +0 +0 +1 +0 /);
    expect(lines.at(-1)).toBe("1 passed, 0 failed (0 known), 0 errored, 3 inconclusive, 1 skipped in 4.3 s");
    // The ledger: file path, writes the gateway swallowed loud and first, the rest after.
    expect(out).toContain(`  File: ${run.ledgerFile} `);
    expect(out).toContain("!!! 2 writes the run could not confirm");
    const ledger = lines.filter((l) => /^ {2}(MAYBE LEFT|MAYBE REMOVED|removed) /.test(l));
    expect(ledger).toHaveLength(3);
    expect(ledger[0]).toMatch(/^ {2}MAYBE LEFT {3}agent \(unknown id\): /);
    expect(ledger[1]).toMatch(/^ {2}MAYBE REMOVED webhook wh_1a2b3c4d5e: /);
    expect(ledger[2]).toMatch(/^ {2}removed {6}agent ag_9f8e7d6c5b: /);
    // A run without an inconclusive rule keeps the old table and count line, and still shows its environment.
    const quiet = consoleReport(makeRun([result("listCalls.total-pages", "passed")], { ledger: [] }));
    expect(quiet).toContain("\nEnvironment: no rate limit met; waited 0 s; 0 gateway errors retried; 0 inconclusive\n");
    expect(quiet).toMatch(/^\s+operation\s+passed\s+failed\s+errored\s+skipped\s+statuses seen$/m);
    expect(quiet).not.toContain("Inconclusive");
    expect(quiet).not.toContain("INTERRUPTED");
    expect(quiet.split("\n").at(-1)).toBe("1 passed, 0 failed (0 known), 0 errored, 0 skipped in 4.3 s");
  });

  it("JSON: the environment with the DESIGN names, summary.inconclusive, the verdict by runFails", () => {
    const run = gatewayRun();
    const doc = JSON.parse(jsonReport(run));
    expect(Object.keys(doc.environment)).toEqual(
      expect.arrayContaining([
        "requests",
        "rateLimited",
        "waitedSeconds",
        "pace",
        "retries",
        "gatewayErrors",
        "flaky",
        "latency",
      ]),
    );
    expect(doc.environment).toMatchObject({
      requests: 374,
      rateLimited: 262,
      waitedSeconds: 31,
      pace: 20,
      paceMode: "auto",
      retries: { rateLimited: 262, unavailable: 0, gateway: 11, network: 1, timeout: 0, api5xx: 0 },
      gatewayErrors: { "502": 8, "504": 3 },
      networkErrors: { reset: 1 },
      flaky: [{ request: "POST /v1/agents", first: 500, then: 201 }],
      inconclusive: ["listCalls.walk", "listCalls.by-status", "listAgents.walk"],
      latency: { p50: 50, p95: 95, p99: 99 },
      summary: run.environment.summary,
    });
    expect(doc.summary).toEqual({
      verdict: "pass",
      passed: 1,
      failed: 0,
      known: 0,
      errored: 0,
      skipped: 1,
      inconclusive: 3,
      total: 5,
    });
    expect(doc.ledgerFile).toBe(run.ledgerFile);
    expect(
      doc.results.filter((r: RuleResult) => r.outcome === "inconclusive").map((r: RuleResult) => r.reason),
    ).toEqual([LOST_CALLS, LOST_CALLS, LOST_AGENTS]);
    expect(JSON.parse(jsonReport(run, { failOnInconclusive: true })).summary.verdict).toBe("fail");
    // Read back as a baseline, an inconclusive rule is no known failure.
    const file = join(dir, "gateway-report.json");
    writeFileSync(file, jsonReport(run));
    expect(loadBaseline(file).entries).toEqual([]);
  });

  it("HTML: the environment section, an inconclusive mark per such rule, their reasons; still self-contained", () => {
    const run = gatewayRun({ interrupted: "SIGTERM" });
    run.environment.flaky.push({ request: `GET /v1/x<script>`, first: 500, then: 200 });
    const html = htmlReport(run);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    expect(html).toContain("GET /v1/x&lt;script&gt;: 500, then 200");
    const doc = new JSDOM(html, { contentType: "text/html" }).window.document;
    expect(doc.querySelector("[data-verdict]")!.textContent).toBe("PASS");
    // Environment: the summary line and a row per figure.
    const env = doc.querySelector("section#environment")!;
    expect(env).not.toBeNull();
    expect(env.querySelector("p.env-summary")!.textContent).toBe(run.environment.summary);
    const rows = Object.fromEntries(
      Array.from(env.querySelectorAll("table.env tr")).map((tr) => [
        tr.querySelector("th")!.textContent,
        tr.querySelector("td")!.textContent,
      ]),
    );
    expect(rows).toMatchObject({
      requests: "374 sent, retries included",
      "rate limited": "262 answered 429; waited 31 s",
      "gateway errors": "502 x8, 504 x3",
      latency: "p50 50 ms, p95 95 ms, p99 99 ms",
    });
    expect(rows.pace).toContain("20 req/s (auto");
    expect(doc.querySelector("dl.meta")!.textContent).toContain(run.environment.summary);
    expect(doc.querySelector('nav a[href="#environment"]')).not.toBeNull();
    // One "?" mark per inconclusive rule, linking to their list, the reason in its title.
    const marks = Array.from(doc.querySelectorAll("table.ops .m.inconclusive"));
    expect(marks).toHaveLength(3);
    expect(marks.every((m) => m.textContent === "?" && m.getAttribute("href") === "#inconclusive")).toBe(true);
    expect(marks.find((m) => m.getAttribute("title")!.startsWith("listCalls.walk "))!.getAttribute("title")).toContain(
      `inconclusive: ${LOST_CALLS}`,
    );
    expect(html).toMatch(/\.m\.inconclusive\{background:var\(--inc\)\}/);
    // The list by reason.
    const list = doc.querySelector("section#inconclusive")!;
    expect(Array.from(list.querySelectorAll("tr")).map((tr) => tr.textContent)).toEqual([
      `2${LOST_CALLS.replace("no real answer through the environment: ", "")}listCalls.walk listCalls.by-status`,
      `1${LOST_AGENTS.replace("no real answer through the environment: ", "")}listAgents.walk`,
    ]);
    // Counts, the ops table's column, the interruption and the ledger's uncertain writes.
    expect(Array.from(doc.querySelectorAll(".counts .k")).map((k) => k.textContent)).toEqual([
      "1 passed",
      "0 failed",
      "0 errored",
      "3 inconclusive",
      "1 skipped",
    ]);
    expect(Array.from(doc.querySelectorAll("table.ops tfoot td")).map((td) => td.textContent)).toEqual([
      "all operations",
      "1",
      "0",
      "0",
      "3",
      "1",
      "5 rules",
    ]);
    expect(doc.querySelector("p.alarm.interrupted")!.textContent).toContain("INTERRUPTED (SIGTERM)");
    expect(doc.querySelector("#ledger")!.textContent).toContain("could not confirm");
    expect(doc.querySelector("#ledger")!.textContent).toContain(run.ledgerFile);
    expect(Array.from(doc.querySelectorAll("table.ledger tbody tr")).map((tr) => tr.className)).toEqual([
      "maybe-left",
      "maybe-removed",
      "removed",
    ]);
    // --fail-on-inconclusive turns the verdict as it turns the exit code.
    expect(htmlReport(run, { failOnInconclusive: true })).toContain(`data-verdict="FAIL"`);
    // A run with no inconclusive rule keeps its four counts.
    const quiet = new JSDOM(htmlReport(makeRun([result("listCalls.total-pages", "passed")])), {
      contentType: "text/html",
    }).window.document;
    expect(quiet.querySelectorAll(".counts .k")).toHaveLength(4);
    expect(quiet.querySelector("section#inconclusive")).toBeNull();
    expect(quiet.querySelector("section#environment p.env-summary")!.textContent).toBe(
      "no rate limit met; waited 0 s; 0 gateway errors retried; 0 inconclusive",
    );
  });
});
