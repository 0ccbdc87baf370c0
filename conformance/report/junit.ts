/**
 * JUnit XML for CI: one testsuite per resource group, one testcase per rule, at most one <failure> per
 * testcase (its text holds every finding). A crashed rule is an <error type="crash">; a known failure
 * (baseline) is <skipped> with its findings in <system-out>, so CI stays green for it; an inconclusive
 * rule (no real answer through the environment) is <skipped message="inconclusive: ...">, JUnit having
 * no such state. Every suite's <properties> carry the run and its environment (`environment.*`).
 */
import type { RuleResult, RunResult } from "../lib/runner.js";
import type { Failure } from "../lib/rule.js";
import { operationsOfRun } from "../generic/catalog.js";
import { environmentProperties } from "./environment.js";
import { countOutcomes } from "./group.js";

/** Everything XML 1.0 does not allow (C0 controls but tab, CR, LF; lone surrogates; U+FFFE, U+FFFF). */
const ILLEGAL = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(s: string): string {
  return s.replace(ILLEGAL, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** For attribute values: quotes, and line breaks kept as character references (a parser would fold them to spaces). */
export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

const seconds = (ms: number) => (Math.max(ms, 0) / 1000).toFixed(3);

export function findingText(f: Failure, i?: number): string {
  return [
    `${i === undefined ? "" : `${i + 1}. `}[${f.level}] ${f.message}`,
    `   pointer:  ${f.pointer || "(body)"}`,
    `   expected: ${f.expected}`,
    `   actual:   ${f.actual}`,
    ...(f.curl ? [`   repro:    ${f.curl}`] : []),
  ].join("\n");
}

function findingsText(failures: Failure[]): string {
  return failures.map((f, i) => findingText(f, i)).join("\n\n");
}

/** The first finding's message, and how many more there are. */
function headline(failures: Failure[]): string {
  if (failures.length === 0) return "failed";
  return `${failures[0].message}${failures.length > 1 ? ` (+${failures.length - 1} more)` : ""}`;
}

function testcase(r: RuleResult, indent: string): string[] {
  const open = `${indent}<testcase classname="${xmlAttr(`${r.group}.${r.operationId}`)}" name="${xmlAttr(`${r.id} [${r.level}]`)}" time="${seconds(r.durationMs)}"`;
  const inner = `${indent}  `;
  switch (r.outcome) {
    case "passed":
      return [`${open}/>`];
    case "skipped":
      return [`${open}>`, `${inner}<skipped message="${xmlAttr(r.reason ?? "skipped")}"/>`, `${indent}</testcase>`];
    case "inconclusive":
      return [
        `${open}>`,
        `${inner}<skipped message="${xmlAttr(`inconclusive: ${r.reason ?? "no real answer through the environment"}`)}"/>`,
        `${indent}</testcase>`,
      ];
    case "errored": {
      const first = (r.error ?? "crashed").split("\n")[0];
      const text = [
        r.error ?? "(no stack)",
        ...(r.failures.length > 0 ? ["", `Findings before the crash:`, findingsText(r.failures)] : []),
      ].join("\n");
      return [
        `${open}>`,
        `${inner}<error message="${xmlAttr(`rule crashed: ${first}`)}" type="crash">${xmlText(text)}</error>`,
        `${indent}</testcase>`,
      ];
    }
    case "failed":
      if (r.known) {
        return [
          `${open}>`,
          `${inner}<skipped message="${xmlAttr(`known failure (baseline): ${headline(r.failures)}`)}"/>`,
          `${inner}<system-out>${xmlText(`Known failure (baseline), not failing the run:\n\n${findingsText(r.failures)}`)}</system-out>`,
          `${indent}</testcase>`,
        ];
      }
      return [
        `${open}>`,
        `${inner}<failure message="${xmlAttr(headline(r.failures))}" type="${xmlAttr(r.failures[0]?.level ?? r.level)}">${xmlText(`${r.description}\n\n${findingsText(r.failures)}`)}</failure>`,
        `${indent}</testcase>`,
      ];
  }
}

function attrs(c: ReturnType<typeof countOutcomes>): string {
  return `tests="${c.total}" failures="${c.failed - c.known}" errors="${c.errored}" skipped="${c.skipped + c.known + c.inconclusive}"`;
}

export function junitReport(run: RunResult): string {
  const groups = new Map<string, RuleResult[]>();
  for (const r of run.results) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  const properties: [string, string][] = [
    ["level", run.level],
    ["runId", run.runId],
    ["target.kind", run.target?.kind ?? (run.isMock ? "mock" : "foreign")],
    ["target.reason", run.target?.reason ?? ""],
    ["baseUrl", run.baseUrl],
    ["readOnly", String(run.readOnly)],
    ...(run.interrupted ? [["interrupted", run.interrupted] as [string, string]] : []),
    ...(run.ledgerFile ? [["ledgerFile", run.ledgerFile] as [string, string]] : []),
    ...(run.environment ? environmentProperties(run.environment) : []),
  ];
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`conformance ${run.baseUrl} (${run.level})`)}" ${attrs(countOutcomes(run.results))} time="${seconds(run.durationMs)}" timestamp="${xmlAttr(run.startedAt)}">`,
  ];
  // Per operation of the suite, whether its rules are hand-written or generic: `operation.<id>.rules`,
  // when any operation's rules are generic (their testcases' classname starts `generic.` too); a run of
  // hand-written rules alone keeps its properties as they were.
  const catalog = operationsOfRun(run);
  const kinds = new Map(
    catalog.some((op) => op.rules === "generic") ? catalog.map((op) => [op.operationId, op.rules]) : [],
  );
  let id = 0;
  for (const [group, results] of groups) {
    const time = results.reduce((s, r) => s + r.durationMs, 0);
    out.push(
      `  <testsuite name="${xmlAttr(group)}" id="${id++}" ${attrs(countOutcomes(results))} time="${seconds(time)}" timestamp="${xmlAttr(run.startedAt)}">`,
    );
    const operationKinds = [...new Set(results.map((r) => r.operationId))]
      .filter((op) => kinds.has(op))
      .map((op): [string, string] => [`operation.${op}.rules`, kinds.get(op)!]);
    out.push(
      "    <properties>",
      ...[...properties, ...operationKinds].map(
        ([name, value]) => `      <property name="${xmlAttr(name)}" value="${xmlAttr(value)}"/>`,
      ),
      "    </properties>",
    );
    for (const r of results) out.push(...testcase(r, "    "));
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return `${out.join("\n")}\n`;
}

/** The report of a run that could not start (exit 2): one testsuite "conformance", one testcase "setup" with one <error>. */
export function junitCannotStart(message: string, meta: { baseUrl?: string; level?: string }): string {
  const timestamp = new Date().toISOString();
  const properties: [string, string][] = [];
  if (meta.baseUrl !== undefined) properties.push(["baseUrl", meta.baseUrl]);
  if (meta.level !== undefined) properties.push(["level", meta.level]);
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="conformance" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${timestamp}">`,
    `  <testsuite name="conformance" id="0" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${timestamp}">`,
    ...(properties.length > 0
      ? [
          "    <properties>",
          ...properties.map(([n, v]) => `      <property name="${xmlAttr(n)}" value="${xmlAttr(v)}"/>`),
          "    </properties>",
        ]
      : []),
    `    <testcase classname="conformance" name="setup" time="0.000">`,
    `      <error message="${xmlAttr(`the run could not start: ${message}`)}" type="cannot-start">${xmlText(message)}</error>`,
    "    </testcase>",
    "  </testsuite>",
    "</testsuites>",
  ].join("\n")}\n`;
}
