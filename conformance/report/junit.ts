/** JUnit XML for CI: one testsuite per resource group, one testcase per rule. */
import type { RunResult } from "../lib/runner.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

export function junitReport(run: RunResult): string {
  const groups = new Map<string, RunResult["results"]>();
  for (const r of run.results) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="conformance ${esc(run.baseUrl)} (${run.level})" tests="${run.results.length}" failures="${run.results.filter((r) => r.outcome === "failed").length}" time="${(run.durationMs / 1000).toFixed(3)}">`];
  for (const [group, results] of groups) {
    const failures = results.filter((r) => r.outcome === "failed").length;
    const skipped = results.filter((r) => r.outcome === "skipped").length;
    const time = results.reduce((s, r) => s + r.durationMs, 0) / 1000;
    out.push(`  <testsuite name="${esc(group)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${time.toFixed(3)}">`);
    for (const r of results) {
      out.push(`    <testcase classname="${esc(`${group}.${r.operationId}`)}" name="${esc(`${r.id} [${r.level}]`)}" time="${(r.durationMs / 1000).toFixed(3)}">`);
      if (r.outcome === "skipped") out.push(`      <skipped message="${esc(r.reason ?? "")}"/>`);
      for (const f of r.failures) {
        const body = [`pointer: ${f.pointer || "(body)"}`, `expected: ${f.expected}`, `actual: ${f.actual}`, f.curl ? `repro: ${f.curl}` : ""].filter(Boolean).join("\n");
        out.push(`      <failure message="${esc(f.message)}" type="${esc(f.pointer || "body")}">${esc(body)}</failure>`);
      }
      out.push("    </testcase>");
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return `${out.join("\n")}\n`;
}
