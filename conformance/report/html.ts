/**
 * One self-contained HTML page a person reads at a glance: the verdict, the operation x rule matrix,
 * status coverage, failures grouped by cause (the console's grouping, report/group.ts) with a repro line
 * each, response times, the environment (rate limits, waits, retries, latency), inconclusive rules,
 * the ledger. Inline CSS, no script, no external asset: it opens from a CI artifact or a mail
 * attachment as it is. Everything that comes from the target is escaped.
 */
import type { RuleResult, RunResult } from "../lib/runner.js";
import type { Failure } from "../lib/rule.js";
import { coverageRows } from "./coverage.js";
import { environmentRows } from "./environment.js";
import {
  countingFailures,
  countOutcomes,
  crashLines,
  groupFailures,
  groupInconclusive,
  groupSkipped,
  ledgerAlarms,
  levelLabel,
  notCoveredBeyondSkips,
  operationRows,
  runFails,
  sortLedger,
  timingRows,
  type FailureGroup,
  type VerdictOptions,
} from "./group.js";

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
const e = escapeHtml;

const MARK: Record<RuleResult["outcome"] | "known", string> = {
  passed: "✓",
  failed: "✗",
  errored: "!",
  skipped: "–",
  inconclusive: "?",
  known: "K",
};

function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function duration(msTotal: number): string {
  const s = msTotal / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function outcomeClass(r: RuleResult): string {
  return r.outcome === "failed" && r.known ? "known" : r.outcome;
}

function ruleTitle(r: RuleResult): string {
  const what =
    r.outcome === "failed"
      ? r.known
        ? "known failure (baseline)"
        : `failed: ${r.failures.length} finding${r.failures.length === 1 ? "" : "s"}, first: ${r.failures[0]?.message ?? ""}`
      : r.outcome === "errored"
        ? `crashed: ${crashLines(r.error)[0]}`
        : r.outcome === "skipped"
          ? `skipped: ${r.reason ?? ""}`
          : r.outcome === "inconclusive"
            ? `inconclusive: ${r.reason ?? ""}`
            : "passed";
  return `${r.id} [${r.level}] - ${what}\n${r.description}`;
}

function finding(f: Failure): string {
  return `<tr><td><code>${e(f.rule)}</code></td><td><span class="lvl ${e(f.level)}">${e(f.level)}</span></td><td><code>${e(f.pointer || "(body)")}</code></td><td class="val">${e(f.expected)}</td><td class="val">${e(f.actual)}</td></tr>${f.curl ? `<tr class="repro-row"><td colspan="5"><pre class="repro">${e(f.curl)}</pre></td></tr>` : ""}`;
}

function cause(g: FailureGroup, index: number): string {
  const x = g.example;
  const rules = g.rules.map((id) => `<code>${e(id)}</code>`).join(" ");
  return `<article class="cause" id="${e(g.anchor)}">
<h3><span class="num">${index + 1}</span><span class="count">${g.count}×</span><span class="lvl ${e(g.level)}">${e(levelLabel(g))}</span> <code class="ptr">${e(g.pointer || "(body)")}</code> ${e(g.title)}</h3>
<p class="rules">${g.rules.length === 1 ? "Rule" : `${g.rules.length} rules`}: ${rules}</p>
${g.title !== x.message ? `<p class="eg">e.g. ${e(x.message)} <span class="muted">(rule <code>${e(x.rule)}</code>, level ${e(x.level)}, at <code>${e(x.pointer || "(body)")}</code>)</span></p>` : ""}
<div class="ea"><div><div class="lab">expected</div><div class="val">${e(x.expected)}</div></div><div><div class="lab">actual</div><div class="val">${e(x.actual)}</div></div></div>
${x.curl ? `<pre class="repro" title="Reproduce: API_KEY from your environment">${e(x.curl)}</pre>` : `<p class="muted">No request to reproduce: the finding is about the run itself.</p>`}
${g.count > 1 ? `<details><summary>All ${g.count} findings</summary><table class="findings"><thead><tr><th>rule</th><th>level</th><th>pointer</th><th>expected</th><th>actual</th></tr></thead><tbody>${g.findings.map(finding).join("\n")}</tbody></table></details>` : ""}
</article>`;
}

function section(id: string, title: string, body: string, note = ""): string {
  return `<section id="${id}"><h2>${title}</h2>${note ? `<p class="note">${note}</p>` : ""}${body}</section>`;
}

/** The page; `options.failOnInconclusive` (--fail-on-inconclusive) makes an inconclusive rule turn the verdict to FAIL, as it does the exit code. */
export function htmlReport(run: RunResult, options: VerdictOptions = {}): string {
  const c = countOutcomes(run.results);
  const fails = runFails(run, options);
  const kind = run.target?.kind ?? (run.isMock ? "mock" : "foreign");
  const groups = groupFailures(countingFailures(run));
  const firstCause = new Map<string, string>();
  for (const g of groups) for (const id of g.rules) if (!firstCause.has(id)) firstCause.set(id, g.anchor);
  const verdict = fails ? "FAIL" : "PASS";
  const inconclusiveNote = c.inconclusive > 0 ? `${c.inconclusive} inconclusive` : "";
  const verdictNote = fails
    ? [
        c.failed - c.known > 0 ? `${c.failed - c.known} rule${c.failed - c.known === 1 ? "" : "s"} failed` : "",
        c.errored > 0 ? `${c.errored} crashed` : "",
        inconclusiveNote,
      ]
        .filter(Boolean)
        .join(", ")
    : [
        c.known > 0
          ? `nothing failed beyond ${c.known} known failure${c.known === 1 ? "" : "s"} (baseline)`
          : "nothing failed",
        inconclusiveNote ? `${inconclusiveNote} (no real answer through the environment)` : "",
      ]
        .filter(Boolean)
        .join("; ");

  const ops = operationRows(run);
  // The inconclusive column only when a rule was: a run that met no trouble reads as before.
  const withInc = c.inconclusive > 0;
  const opTable = `<table class="ops"><thead><tr><th>operation</th><th>request</th><th title="hand-written: the suite's own rules of this API (operations/); generic: rules derived from the document">rules</th><th class="n">passed</th><th class="n">failed</th><th class="n">errored</th>${withInc ? `<th class="n">inconclusive</th>` : ""}<th class="n">skipped</th><th>rules (one mark each, hover for the rule)</th></tr></thead><tbody>
${ops
  .map((r) => {
    const marks = r.rules
      .map((rule) => {
        const cls = outcomeClass(rule);
        const anchor =
          rule.outcome === "failed" || rule.outcome === "errored"
            ? rule.outcome === "errored"
              ? "#crashes"
              : rule.known
                ? "#known"
                : `#${firstCause.get(rule.id) ?? "causes"}`
            : rule.outcome === "inconclusive"
              ? "#inconclusive"
              : undefined;
        const inner = MARK[cls as keyof typeof MARK];
        return anchor
          ? `<a class="m ${cls}" href="${anchor}" title="${e(ruleTitle(rule))}">${inner}</a>`
          : `<span class="m ${cls}" title="${e(ruleTitle(rule))}">${inner}</span>`;
      })
      .join("");
    const bad = r.counts.failed - r.counts.known + r.counts.errored > 0;
    return `<tr class="${bad ? "bad" : r.rules.length === 0 ? "none" : ""}"><td><code>${e(r.operationId)}</code></td><td class="req">${r.method ? `${e(r.method)} ${e(r.path)}` : ""}</td><td class="kind ${r.rulesKind ?? ""}">${r.rulesKind ?? ""}</td><td class="n">${r.counts.passed || ""}</td><td class="n ${r.counts.failed ? "f" : ""}">${r.counts.failed ? `${r.counts.failed}${r.counts.known ? ` <span class="muted">(${r.counts.known} known)</span>` : ""}` : ""}</td><td class="n ${r.counts.errored ? "x" : ""}">${r.counts.errored || ""}</td>${withInc ? `<td class="n ${r.counts.inconclusive ? "i" : ""}">${r.counts.inconclusive || ""}</td>` : ""}<td class="n">${r.counts.skipped || ""}</td><td class="marks">${marks || `<span class="muted">no rule ran</span>`}</td></tr>`;
  })
  .join("\n")}
</tbody><tfoot><tr><td colspan="3">all operations</td><td class="n">${c.passed}</td><td class="n">${c.failed}</td><td class="n">${c.errored}</td>${withInc ? `<td class="n">${c.inconclusive}</td>` : ""}<td class="n">${c.skipped}</td><td>${c.total} rules</td></tr></tfoot></table>
<p class="legend"><span class="m passed">${MARK.passed}</span> passed <span class="m failed">${MARK.failed}</span> failed <span class="m known">${MARK.known}</span> known failure (baseline) <span class="m errored">${MARK.errored}</span> crashed <span class="m inconclusive">${MARK.inconclusive}</span> inconclusive (no real answer through the environment) <span class="m skipped">${MARK.skipped}</span> skipped</p>`;

  const coverage = coverageRows(run);
  const statuses = [...new Set(coverage.flatMap((r) => r.statuses.map((s) => s.status)))].sort();
  const covTable = `<table class="cov"><thead><tr><th>operation</th>${statuses.map((s) => `<th class="n">${e(s)}</th>`).join("")}<th class="n">covered</th></tr></thead><tbody>
${coverage
  .map((r) => {
    const by = new Map(r.statuses.map((s) => [s.status, s]));
    const documented = r.statuses.filter((s) => s.documented);
    const covered = documented.filter((s) => s.exercised > 0).length;
    return `<tr><td><code>${e(r.operationId)}</code></td>${statuses
      .map((status) => {
        const s = by.get(status);
        if (!s) return `<td class="c absent"></td>`;
        if (!s.documented)
          return `<td class="c undoc" title="${e(`${status} is not documented for ${r.operationId}; seen ${s.exercised} time(s)`)}">! ${s.exercised}</td>`;
        return s.exercised > 0
          ? `<td class="c hit" title="${e(`${status} documented, seen ${s.exercised} time(s)`)}">${s.exercised}</td>`
          : `<td class="c miss" title="${e(`${status} documented, never seen`)}">·</td>`;
      })
      .join("")}<td class="n">${covered}/${documented.length}</td></tr>`;
  })
  .join("\n")}
</tbody></table>
<p class="legend"><span class="c hit">n</span> documented status seen n times <span class="c miss">·</span> documented, not exercised <span class="c undoc">! n</span> undocumented status seen <span class="c absent">&nbsp;&nbsp;</span> not documented</p>`;

  const timings = timingRows(run);
  const timeTable =
    timings.length === 0
      ? `<p class="muted">No response was timed.</p>`
      : `<table class="times"><thead><tr><th>operation</th><th class="n">responses</th><th class="n">p50 (ms)</th><th class="n">p95 (ms)</th><th class="n">max (ms)</th></tr></thead><tbody>
${timings.map((t) => `<tr><td><code>${e(t.operationId)}</code></td><td class="n">${t.count}</td><td class="n">${ms(t.p50)}</td><td class="n">${ms(t.p95)}</td><td class="n">${ms(t.max)}</td></tr>`).join("\n")}
</tbody></table>`;

  const crashed = run.results.filter((r) => r.outcome === "errored");
  const known = run.results.filter((r) => r.outcome === "failed" && r.known);
  const skipped = groupSkipped(run.results);
  const inconclusive = groupInconclusive(run.results);
  const ledger = sortLedger(run.ledger);
  const { notRestored, uncertain } = ledgerAlarms(ledger);
  const ledgerAlarm = [
    notRestored > 0
      ? `<p class="alarm">${notRestored} change${notRestored === 1 ? "" : "s"} could NOT be put back: the target keeps ${notRestored === 1 ? "it" : "them"}. Fix by hand.</p>`
      : "",
    uncertain > 0
      ? `<p class="alarm">${uncertain} write${uncertain === 1 ? "" : "s"} the run could not confirm (the environment swallowed the answer): the target MAY keep ${uncertain === 1 ? "it" : "them"}. Check by hand.</p>`
      : "",
  ].join("");
  const ledgerFile = run.ledgerFile
    ? `<p>Ledger file: <code>${e(run.ledgerFile)}</code> <span class="muted">(<code>agent-platform-conformance cleanup --ledger ${e(run.ledgerFile)}</code> undoes what is left)</span></p>`
    : "";
  const env = run.environment;
  const envBody = env
    ? `<p class="env-summary">${e(env.summary)}</p><table class="env"><tbody>${environmentRows(env)
        .map(([label, value]) => `<tr><th>${e(label)}</th><td>${e(value)}</td></tr>`)
        .join("\n")}</tbody></table>`
    : "";
  const notCovered = notCoveredBeyondSkips(run);
  const findings = groups.reduce((s, g) => s + g.count, 0);

  const parts = [
    section("operations", "By operation", opTable),
    groups.length > 0
      ? section(
          "causes",
          `Failures by cause <span class="sub">${groups.length} cause${groups.length === 1 ? "" : "s"}, ${findings} finding${findings === 1 ? "" : "s"}</span>`,
          groups.map(cause).join("\n"),
          "Findings with the same message and pointer (array indexes, ids and counts aside) are one cause, shown once with one example. The level says what a finding rests on: <b>documented</b> the reference states it, <b>assumed</b> a decision of the kit.",
        )
      : "",
    crashed.length > 0
      ? section(
          "crashes",
          `Crashed rules <span class="sub">${crashed.length}</span>`,
          crashed
            .map(
              (r) =>
                `<article class="crash"><h3><code>${e(r.id)}</code> ${e(crashLines(r.error)[0])}</h3><pre class="stack">${e(r.error ?? "(no stack)")}</pre></article>`,
            )
            .join("\n"),
          "The rule itself could not finish (often an answer it could not read): not a finding about the target, but the run fails.",
        )
      : "",
    known.length > 0
      ? section(
          "known",
          `Known failures (baseline) <span class="sub">${known.length}</span>`,
          `<ul>${known.map((r) => `<li><code>${e(r.id)}</code> ${r.failures.length} finding${r.failures.length === 1 ? "" : "s"} at ${[...new Set(r.failures.map((f) => f.pointer || "(body)"))].map((p) => `<code>${e(p)}</code>`).join(" ")}: ${e(r.failures[0]?.message ?? "")}</li>`).join("")}</ul>`,
          "Reported, not failing the run.",
        )
      : "",
    run.staleBaseline && run.staleBaseline.length > 0
      ? section(
          "stale",
          `Stale baseline entries <span class="sub">${run.staleBaseline.length}</span>`,
          `<ul>${run.staleBaseline.map((s) => `<li>${e(s)}</li>`).join("")}</ul>`,
          "They no longer fail: remove them from the baseline.",
        )
      : "",
    section("coverage", "Status coverage", covTable),
    section(
      "times",
      "Response times",
      timeTable,
      "Every response of the run, per operation (nearest-rank percentiles).",
    ),
    env
      ? section(
          "environment",
          "Environment",
          envBody,
          "What stood between the suite and the API: rate limits and the waits they cost, the pace the run settled on, requests sent again and why, gateway pages, network failures, answers that changed when asked again, and the API's own response times.",
        )
      : "",
    inconclusive.length > 0
      ? section(
          "inconclusive",
          `Inconclusive <span class="sub">${c.inconclusive}</span>`,
          `<table class="skips inc"><tbody>${inconclusive.map((s) => `<tr><td class="n">${s.rules.length}</td><td>${e(s.reason)}<div class="rules">${s.rules.map((id) => `<code>${e(id)}</code>`).join(" ")}</div></td></tr>`).join("\n")}</tbody></table>`,
          `No real answer came through the environment after retries (rate limits, gateway pages, resets): neither passed nor failed, ${options.failOnInconclusive ? "and they fail the run (--fail-on-inconclusive)" : "and they do not fail the run"}.`,
        )
      : "",
    skipped.length > 0
      ? section(
          "skipped",
          `Skipped <span class="sub">${c.skipped}</span>`,
          `<table class="skips"><tbody>${skipped.map((s) => `<tr><td class="n">${s.rules.length}</td><td>${e(s.reason)}<div class="rules">${s.rules.map((id) => `<code>${e(id)}</code>`).join(" ")}</div></td></tr>`).join("\n")}</tbody></table>`,
        )
      : "",
    section(
      "ledger",
      `Ledger <span class="sub">${ledger.length}</span>`,
      ledgerFile +
        (ledger.length === 0
          ? `<p class="muted">The run left nothing on the target.</p>`
          : `${ledgerAlarm}<table class="ledger"><thead><tr><th>state</th><th>kind</th><th>id</th><th>note</th></tr></thead><tbody>${ledger.map((l) => `<tr class="${e(l.state)}"><td><span class="state ${e(l.state)}">${e(l.state)}</span></td><td>${e(l.kind)}</td><td><code>${e(l.id)}</code></td><td>${e(l.note)}</td></tr>`).join("\n")}</tbody></table>`),
      "What the run did to the target that outlives it.",
    ),
    notCovered.length > 0
      ? section(
          "not-covered",
          `Not covered <span class="sub">${notCovered.length}</span>`,
          `<ul>${notCovered.map((n) => `<li>${e(n)}</li>`).join("")}</ul>`,
        )
      : "",
  ].filter(Boolean);

  const nav = [
    ["operations", "operations"],
    ["causes", "failures"],
    ["crashes", "crashes"],
    ["known", "known"],
    ["stale", "stale"],
    ["coverage", "coverage"],
    ["times", "response times"],
    ["environment", "environment"],
    ["inconclusive", "inconclusive"],
    ["skipped", "skipped"],
    ["ledger", "ledger"],
    ["not-covered", "not covered"],
  ]
    .filter(([id]) => parts.some((p) => p.startsWith(`<section id="${id}"`)))
    .map(([id, label]) => `<a href="#${id}">${label}</a>`)
    .join(" ");

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${verdict}: conformance of ${e(run.baseUrl)} (${e(run.level)})</title>
<style>${CSS}</style>
</head>
<body>
<header class="verdict ${fails ? "fail" : "pass"}">
<div class="word" data-verdict="${verdict}">${verdict}</div>
<div class="what"><div class="note">${e(verdictNote)}</div>
<div class="counts"><span class="k passed">${c.passed} passed</span><span class="k failed">${c.failed} failed${c.known ? ` (${c.known} known)` : ""}</span><span class="k errored">${c.errored} errored</span>${c.inconclusive > 0 ? `<span class="k inconclusive">${c.inconclusive} inconclusive</span>` : ""}<span class="k skipped">${c.skipped} skipped</span></div></div>
</header>
${run.interrupted ? `<p class="alarm interrupted">INTERRUPTED (${e(run.interrupted)}): the run stopped before its last rule; ${c.total} rule${c.total === 1 ? "" : "s"} reported, the rest did not run.</p>` : ""}
<dl class="meta">
<dt>Target</dt><dd><code>${e(run.baseUrl)}</code>: ${kind === "mock" ? "the kit's mock" : "a foreign deployment"} <span class="muted">(${e(run.target?.reason ?? "")})</span></dd>
<dt>Level</dt><dd><b>${e(run.level)}</b>${run.readOnly ? ", read-only (GET requests only)" : ""}</dd>${
    run.document && !run.document.handWritten
      ? `
<dt>Spec</dt><dd><code>${e(run.document.source)}</code> (generic rules only)</dd>`
      : ""
  }
<dt>Run</dt><dd><code>${e(run.runId)}</code>, started <time datetime="${e(run.startedAt)}">${e(
    run.startedAt
      .replace("T", " ")
      .replace(/\.\d+Z$/, " UTC")
      .replace(/Z$/, " UTC"),
  )}</time>, took ${duration(run.durationMs)}, ${c.total} rules</dd>
${env ? `<dt>Environment</dt><dd>${e(env.summary)} <a href="#environment">details</a></dd>` : ""}
</dl>
<nav>${nav}</nav>
<main>
${parts.join("\n")}
</main>
<footer>Generated by the conformance suite (conformance/report/html.ts). The repro lines read the key from <code>$API_KEY</code>.</footer>
</body>
</html>
`;
}

const CSS = `
:root{--pass:#1a7f37;--fail:#cf222e;--err:#8250df;--skip:#8c959f;--known:#9a6700;--inc:#0e7490;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.val{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
header.verdict{display:flex;align-items:center;gap:28px;padding:22px 32px;color:#fff}
header.verdict.pass{background:var(--pass)}
header.verdict.fail{background:var(--fail)}
.word{font-size:64px;font-weight:800;letter-spacing:.04em;line-height:1}
.what .note{font-size:20px;font-weight:600}
.counts{margin-top:8px;display:flex;gap:8px;flex-wrap:wrap}
.counts .k{background:rgba(255,255,255,.92);color:var(--fg);border-radius:12px;padding:2px 10px;font-weight:600}
.counts .k.passed{color:var(--pass)}.counts .k.failed{color:var(--fail)}.counts .k.errored{color:var(--err)}.counts .k.skipped{color:var(--muted)}.counts .k.inconclusive{color:var(--inc)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0;padding:14px 32px;background:var(--soft);border-bottom:1px solid var(--line)}
dl.meta dt{font-weight:600;color:var(--muted)}dl.meta dd{margin:0}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:8px 32px}
nav a{margin-right:14px;color:#0969da;text-decoration:none}nav a:hover{text-decoration:underline}
main{padding:0 32px 24px;max-width:1500px}
section{margin-top:28px}
h2{font-size:20px;margin:0 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h2 .sub{font-size:14px;font-weight:400;color:var(--muted);margin-left:8px}
p.note{color:var(--muted);margin:4px 0 10px}
.muted{color:var(--muted)}
table{border-collapse:collapse}
th,td{text-align:left;vertical-align:middle;padding:4px 8px;border-bottom:1px solid var(--line)}
thead th{background:var(--soft);font-weight:600;font-size:12.5px;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tfoot td{font-weight:600;border-top:2px solid var(--line)}
table.ops td.req{color:var(--muted);font-family:ui-monospace,monospace;font-size:12px;white-space:nowrap}
table.ops td.kind{font-size:12px;white-space:nowrap;color:var(--muted)}
table.ops td.kind.generic{font-weight:600;color:inherit}
table.ops tr.bad td:first-child{box-shadow:inset 4px 0 var(--fail)}
table.ops tr.none td{color:var(--muted)}
td.f{color:var(--fail);font-weight:700}td.x{color:var(--err);font-weight:700}td.i{color:var(--inc);font-weight:700}
.marks{line-height:22px}
.m{display:inline-block;width:20px;height:20px;margin:1px;border-radius:4px;text-align:center;font-size:12px;line-height:20px;font-weight:700;color:#fff;text-decoration:none;vertical-align:middle}
.m.passed{background:var(--pass)}.m.failed{background:var(--fail)}.m.errored{background:var(--err)}.m.skipped{background:#d8dee4;color:#57606a}.m.known{background:var(--known)}.m.inconclusive{background:var(--inc)}
a.m:hover{outline:2px solid #0969da}
.legend{color:var(--muted);font-size:12.5px}.legend .m,.legend .c{margin-left:10px}
table.cov td.c{text-align:center;min-width:42px;font-variant-numeric:tabular-nums}
td.c.hit,span.c.hit{background:#dafbe1;color:#116329}
td.c.miss,span.c.miss{background:#f6f8fa;color:#8c959f}
td.c.undoc,span.c.undoc{background:#ffebe9;color:var(--fail);font-weight:700}
span.c{display:inline-block;padding:0 6px;border:1px solid var(--line);border-radius:3px}
article.cause{border:1px solid var(--line);border-left:5px solid var(--fail);border-radius:6px;padding:8px 14px;margin:10px 0;background:#fff}
article.cause h3{margin:0 0 6px;font-size:15px;display:flex;flex-wrap:wrap;align-items:center;gap:8px}
article.cause .num{color:var(--muted);font-weight:400}
article.cause .count{background:var(--fail);color:#fff;border-radius:10px;padding:0 8px;font-size:13px}
code.ptr{background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:0 5px}
.lvl{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid}
.lvl.documented{color:#0550ae;border-color:#0550ae;background:#ddf4ff}.lvl.assumed{color:#8a4600;border-color:#bc4c00;background:#fff1e5}
p.rules{margin:2px 0 4px;font-size:12px;color:var(--muted)}p.rules code,div.rules code{background:var(--soft);border-radius:3px;padding:0 4px;margin-right:2px;display:inline-block}
p.eg{margin:2px 0 6px;font-size:13px}
.ea{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:6px 0}
.ea>div{border:1px solid var(--line);border-radius:4px;padding:4px 8px;min-width:0}
.ea>div:first-child{background:#f0fff4}.ea>div:last-child{background:#fff5f5}
.ea .lab{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
.val{white-space:pre-wrap;overflow-wrap:anywhere}
pre{margin:4px 0;padding:8px 10px;background:#0d1117;color:#e6edf3;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
pre.stack{background:#fff8f8;color:var(--fg);border:1px solid #ffcecb}
details{margin-top:4px}summary{cursor:pointer;color:#0969da}
table.findings{width:100%;margin-top:6px;font-size:12.5px}
table.findings tr.repro-row td{border-bottom:1px solid var(--line);padding-top:0}
table.findings td.val{max-width:420px}
table.skips td{border-bottom:1px solid var(--line)}div.rules{margin-top:2px;font-size:12px}
table.ledger tr.not-restored td{background:#ffebe9}
table.ledger tr.maybe-left td,table.ledger tr.maybe-removed td,table.ledger tr.changing td{background:#fff8c5}
.state{font-weight:600;font-size:12px}.state.not-restored{color:var(--fail);text-transform:uppercase}
.state.maybe-left,.state.maybe-removed,.state.changing{color:#9a3412;text-transform:uppercase}.state.left{color:var(--known)}.state.removed{color:var(--muted)}.state.restored{color:var(--pass)}
p.alarm{background:var(--fail);color:#fff;font-weight:700;padding:8px 12px;border-radius:6px}
p.alarm.interrupted{margin:0;border-radius:0;padding:10px 32px;font-size:16px}
p.env-summary{font-weight:600;margin:4px 0 8px}
table.env th{background:none;color:var(--muted);font-size:13px;padding-right:16px}
table.skips.inc td.n{color:var(--inc);font-weight:700}
footer{padding:16px 32px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}
`;
