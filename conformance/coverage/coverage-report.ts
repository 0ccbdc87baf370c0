/**
 * The reports of `agent-platform-mock coverage`: the console (the percent, then every variant never
 * received, grouped by operation, with how to provoke it), JUnit (one testcase per variant, an unseen one
 * a <failure> carrying its howTo and recipe), one self-contained HTML page, and the offline JSON. Recipes
 * are shown with the values of secret headers and fields replaced, as everything the mock reports is.
 */
import generatedDocument from "../../generated/openapi-document.js";
import { variantCatalogue, type VariantKind } from "../../mock-server/core/coverage/catalogue.js";
import { escapeHtml as e } from "../report/html.js";
import { xmlAttr, xmlText } from "../report/junit.js";
import type { Coverage, CoverageVariant, RecipeRequest } from "./answer.js";

/** A variant the run could not judge (offline: webhooks always, everything but statuses from a journal). */
export interface NotJudged {
  operationId: string;
  kind: VariantKind;
  value: string;
  howTo: string;
  reason: string;
}

export interface CoverageRun {
  /** Where the coverage comes from, for the reports' headings: a URL and endpoint, or a file. */
  source: string;
  coverage: Coverage;
  /** --fail-under: the run fails below this percent. */
  failUnder: number;
  /** Lines the console and the page show under the percent (offline: what the file could not tell). */
  notes: string[];
  notJudged: NotJudged[];
  startedAt: string;
  durationMs: number;
}

export const passes = (run: Pick<CoverageRun, "coverage" | "failUnder">) => run.coverage.percent >= run.failUnder;

/** operationId -> `GET /v1/calls/{callId}`, from the bundled spec; a webhook's name for a webhook. */
const places = (() => {
  const out = new Map<string, string>();
  for (const v of variantCatalogue(generatedDocument).variants)
    if (!out.has(v.operationId))
      out.set(v.operationId, v.kind === "webhook" ? `webhook ${v.path}` : `${v.method} ${v.path}`);
  return out;
})();
const placeOf = (operationId: string) => places.get(operationId) ?? "";

/** Variants grouped by operation, in the order they come (the catalogue's). */
function byOperation<T extends { operationId: string }>(variants: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const v of variants) groups.set(v.operationId, [...(groups.get(v.operationId) ?? []), v]);
  return groups;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const label = (v: { kind: string; value: string }) => `${v.kind} ${v.value}`;

/** Header and field names whose values a report never shows. */
const SECRET_NAME = /^(x-api-key|authorization|proxy-authorization|cookie)$|secret|token|password|api_?key|credential/i;

function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SECRET_NAME.test(k) && typeof v === "string" ? "[redacted]" : redacted(v),
    ]),
  );
}

/** `POST /__mock/faults body {...}`, `GET /v1/calls?page=0 with Prefer: code=404`: one request of a recipe. */
export function recipeLine(r: RecipeRequest): string {
  const query = r.query && Object.keys(r.query).length > 0 ? `?${new URLSearchParams(r.query)}` : "";
  const headers = Object.entries(r.headers ?? {})
    .map(([name, value]) => `${name}: ${SECRET_NAME.test(name) ? "[redacted]" : value}`)
    .join("; ");
  const body =
    r.body === undefined ? "" : ` body ${typeof r.body === "string" ? r.body : JSON.stringify(redacted(r.body))}`;
  return `${r.method} ${r.path}${query}${headers ? ` with ${headers}` : ""}${body}`;
}

function summaryLine(run: CoverageRun): string {
  const seen = run.coverage.variants.filter((v) => v.seen).length;
  return `${run.coverage.percent} % (${seen} of ${plural(run.coverage.variants.length, "variant")} received)`;
}

function verdictLine(run: CoverageRun): string {
  return passes(run)
    ? `PASS: ${run.coverage.percent} % is at or above --fail-under ${run.failUnder}`
    : `FAIL: ${run.coverage.percent} % is below --fail-under ${run.failUnder}`;
}

const workspaceName = (coverage: Coverage) =>
  coverage.workspaceId === "*" ? "every workspace in the file" : `workspace ${coverage.workspaceId}`;

/** The console: the percent, the notes, the unseen variants by operation with their howTo, the verdict. */
export function coverageConsoleReport(run: CoverageRun): string {
  const { coverage } = run;
  const lines = [`Coverage of ${workspaceName(coverage)}, ${run.source}: ${summaryLine(run)}`];
  for (const note of run.notes) lines.push(`  note: ${note}`);
  const unseen = coverage.variants.filter((v) => !v.seen);
  const groups = byOperation(unseen);
  if (unseen.length > 0)
    lines.push(`Never received: ${plural(unseen.length, "variant")} of ${plural(groups.size, "operation")}`);
  for (const [operationId, variants] of groups) {
    const all = coverage.variants.filter((v) => v.operationId === operationId).length;
    const place = placeOf(operationId);
    lines.push(`  ${operationId}${place ? `  ${place}` : ""}  (${all - variants.length} of ${all} received)`);
    const width = Math.max(...variants.map((v) => label(v).length));
    for (const v of variants) lines.push(`    ✗ ${label(v).padEnd(width)}  ${v.howTo}`);
  }
  if (unseen.length === 0 && coverage.variants.length > 0) lines.push("Every variant was received.");
  lines.push(verdictLine(run));
  return lines.join("\n");
}

/** JUnit XML: a testsuite per operation, a testcase per variant; unseen is a <failure>, not judged is <skipped>. */
export function coverageJunitReport(run: CoverageRun): string {
  const { coverage } = run;
  const properties: [string, string][] = [
    ["workspaceId", coverage.workspaceId],
    ["percent", String(coverage.percent)],
    ["failUnder", String(run.failUnder)],
    ["verdict", passes(run) ? "pass" : "fail"],
    ["source", run.source],
  ];
  const groups = byOperation<CoverageVariant | NotJudged>([...coverage.variants, ...run.notJudged]);
  const count = (list: (CoverageVariant | NotJudged)[]) => {
    const failures = list.filter((v) => "seen" in v && !v.seen).length;
    const skipped = list.filter((v) => !("seen" in v)).length;
    return `tests="${list.length}" failures="${failures}" errors="0" skipped="${skipped}"`;
  };
  const all = [...groups.values()].flat();
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`coverage of ${workspaceName(coverage)}: ${summaryLine(run)}`)}" ${count(all)} time="${(run.durationMs / 1000).toFixed(3)}" timestamp="${xmlAttr(run.startedAt)}">`,
  ];
  let id = 0;
  for (const [operationId, variants] of groups) {
    out.push(
      `  <testsuite name="${xmlAttr(operationId)}" id="${id++}" ${count(variants)} time="0.000" timestamp="${xmlAttr(run.startedAt)}">`,
      "    <properties>",
      ...properties.map(([n, v]) => `      <property name="${xmlAttr(n)}" value="${xmlAttr(v)}"/>`),
      "    </properties>",
    );
    for (const v of variants) {
      const open = `    <testcase classname="${xmlAttr(`coverage.${operationId}`)}" name="${xmlAttr(label(v))}" time="0.000"`;
      if (!("seen" in v)) {
        out.push(`${open}>`, `      <skipped message="${xmlAttr(`not judged: ${v.reason}`)}"/>`, "    </testcase>");
      } else if (v.seen) {
        out.push(`${open}/>`);
      } else {
        const recipe = (v.recipe ?? []).map((r, i) => `  ${i + 1}. ${recipeLine(r)}`);
        const text = [
          `${operationId} ${placeOf(operationId)}: ${label(v)} was never received.`,
          `how to: ${v.howTo}`,
          ...(recipe.length > 0 ? ["recipe:", ...recipe] : []),
        ].join("\n");
        out.push(
          `${open}>`,
          `      <failure message="${xmlAttr(`not received: ${v.howTo}`)}" type="unseen">${xmlText(text)}</failure>`,
          "    </testcase>",
        );
      }
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return `${out.join("\n")}\n`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d232a}
h1{font-size:1.4rem;margin:0 0 .3rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}
.muted{color:#5b6570}.verdict{display:inline-block;padding:.15rem .6rem;border-radius:.3rem;font-weight:600;color:#fff}
.pass{background:#1f7a3a}.fail{background:#b3261e}.bar{height:.8rem;background:#e4e7eb;border-radius:.4rem;overflow:hidden;margin:.6rem 0 1rem;max-width:40rem}
.bar div{height:100%;background:#1f7a3a}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{font-weight:600;background:#f4f6f8}code{font:12px/1.4 ui-monospace,monospace}pre{font:12px/1.4 ui-monospace,monospace;background:#f4f6f8;padding:.4rem .6rem;margin:.3rem 0 0;white-space:pre-wrap}
.seen{color:#1f7a3a}.unseen{color:#b3261e}ul.notes{padding-left:1.2rem}`;

/** One self-contained page: the percent, notes, a table per operation, unseen variants with howTo and recipe. */
export function coverageHtmlReport(run: CoverageRun): string {
  const { coverage } = run;
  const pass = passes(run);
  const groups = byOperation(coverage.variants);
  const totals = [...groups].map(([operationId, variants]) => {
    const seen = variants.filter((v) => v.seen).length;
    return `<tr><td><a href="#op-${e(operationId)}"><code>${e(operationId)}</code></a></td><td><code>${e(placeOf(operationId))}</code></td><td>${seen} of ${variants.length}</td></tr>`;
  });
  const sections = [...groups].map(([operationId, variants]) => {
    const rows = variants.map((v) => {
      const recipe = v.recipe && v.recipe.length > 0 ? `<pre>${e(v.recipe.map(recipeLine).join("\n"))}</pre>` : "";
      return v.seen
        ? `<tr><td class="seen">✓</td><td><code>${e(label(v))}</code></td><td class="muted">received</td></tr>`
        : `<tr><td class="unseen">✗</td><td><code>${e(label(v))}</code></td><td>${e(v.howTo)}${recipe}</td></tr>`;
    });
    return `<h3 id="op-${e(operationId)}"><code>${e(operationId)}</code> <span class="muted">${e(placeOf(operationId))}</span></h3>
<table><thead><tr><th></th><th>variant</th><th>how to provoke it</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
  });
  const notJudged =
    run.notJudged.length > 0
      ? `<h2>Not judged</h2><table><thead><tr><th>variant</th><th>why</th></tr></thead><tbody>${run.notJudged
          .map((v) => `<tr><td><code>${e(`${v.operationId} ${label(v)}`)}</code></td><td>${e(v.reason)}</td></tr>`)
          .join("\n")}</tbody></table>`
      : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(`Response coverage ${coverage.percent} % - ${workspaceName(coverage)}`)}</title><style>${STYLE}</style></head>
<body>
<h1>Response coverage of ${e(workspaceName(coverage))}</h1>
<p class="muted">${e(run.source)}, ${e(run.startedAt)}</p>
<p><span class="verdict ${pass ? "pass" : "fail"}">${pass ? "PASS" : "FAIL"}</span> ${e(summaryLine(run))}; --fail-under ${e(run.failUnder)}</p>
<div class="bar" title="${e(coverage.percent)} %"><div style="width:${Math.max(0, Math.min(100, coverage.percent))}%"></div></div>
${run.notes.length > 0 ? `<ul class="notes">${run.notes.map((n) => `<li>${e(n)}</li>`).join("")}</ul>` : ""}
<h2>By operation</h2>
<table><thead><tr><th>operation</th><th></th><th>received</th></tr></thead><tbody>${totals.join("\n")}</tbody></table>
<h2>Variants</h2>
${sections.join("\n")}
${notJudged}
</body></html>
`;
}

/** The offline JSON: the endpoint's shape (workspaceId, percent, variants), plus where it comes from and what was not judged. */
export function coverageJsonReport(run: CoverageRun): string {
  return `${JSON.stringify({ ...run.coverage, source: run.source, notes: run.notes, notJudged: run.notJudged }, null, 2)}\n`;
}
