/**
 * Parity as one self-contained page: the verdict, both targets, the differences by operation (kind,
 * what was probed or the rule, A and B side by side), what was not compared and why, the records the
 * probes left. Inline CSS, no script, no external asset; everything that came from a target is escaped.
 */
import { escapeHtml as e } from "../report/html.js";
import { countByKind } from "./compare.js";
import {
  byOperation,
  differencesLine,
  environmentLine,
  plural,
  sideLine,
  sideText,
  subject,
  unobservedReasons,
} from "./describe.js";
import type { ParityResult } from "./types.js";

function differencesSection(result: ParityResult): string {
  if (result.differences.length === 0) return `<p class="none">No differences in what was compared.</p>`;
  return byOperation(result.differences)
    .map(
      ([
        operationId,
        differences,
      ]) => `<section><h2><code>${e(operationId)}</code> <span class="sub">${e(plural(differences.length, "difference"))}</span></h2>
<table class="diffs"><colgroup><col class="k"><col class="p"><col><col></colgroup><thead><tr><th>kind</th><th>probe or rule</th><th>A</th><th>B</th></tr></thead><tbody>
${differences
  .map(
    (d) =>
      `<tr><td><span class="kind ${e(d.kind)}">${e(d.kind)}</span></td><td><code>${e(subject(d))}</code></td><td class="val">${e(sideText(d, "a"))}</td><td class="val">${e(sideText(d, "b"))}</td></tr>`,
  )
  .join("\n")}
</tbody></table></section>`,
    )
    .join("\n");
}

function notComparedSection(result: ParityResult): string {
  const n = result.notCompared;
  const items: string[] = [
    `${e(plural(n.inconclusive.a, "rule"))} inconclusive on A, ${e(plural(n.inconclusive.b, "rule"))} inconclusive on B (no real answer through the environment)${
      result.a.inconclusive.length + result.b.inconclusive.length > 0
        ? `: ${[...result.a.inconclusive.map((r) => `A ${r}`), ...result.b.inconclusive.map((r) => `B ${r}`)].map((r) => `<code>${e(r)}</code>`).join(" ")}`
        : ""
    }`,
  ];
  if (n.skippedOnOneSide.length > 0)
    items.push(
      `${e(plural(n.skippedOnOneSide.length, "rule"))} skipped on one target only: ${n.skippedOnOneSide.map((r) => `<code>${e(r)}</code>`).join(" ")}`,
    );
  for (const [name, mine, theirs] of [
    ["A", result.a, result.b],
    ["B", result.b, result.a],
  ] as const)
    for (const [reason, count] of unobservedReasons(mine.observations, theirs.observations))
      items.push(`${e(plural(count, "probe"))} on ${name} showed nothing to compare: ${e(reason)}`);
  return `<ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul>`;
}

function leftSection(result: ParityResult): string {
  const rows = (["a", "b"] as const).flatMap((s) =>
    result[s].left.map(
      (r) =>
        `<tr><td>${s.toUpperCase()}</td><td>${e(r.kind)}</td><td><code>${e(r.id)}</code></td><td>${e(r.note)}</td></tr>`,
    ),
  );
  return rows.length === 0
    ? `<p class="muted">The probes left nothing on either target.</p>`
    : `<table><thead><tr><th>target</th><th>kind</th><th>id</th><th>why</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export function parityHtmlReport(result: ParityResult): string {
  const same = result.differences.length === 0;
  const counts = countByKind(result.differences);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Parity: ${e(result.a.baseUrl)} and ${e(result.b.baseUrl)}</title>
<style>${CSS}</style></head><body>
<header class="verdict ${same ? "same" : "differ"}"><div class="word">${same ? "ALIKE" : "DIFFER"}</div>
<div><div class="note">${e(differencesLine(result))}</div>
<div class="counts">${Object.entries(counts)
    .map(([k, n]) => `<span class="k${n > 0 ? " some" : ""}">${e(k)} ${n}</span>`)
    .join("")}</div></div></header>
<dl class="meta">
<dt>A</dt><dd><code>${e(result.a.baseUrl)}</code>, ${e(result.a.target)}<br>${e(sideLine(result.a))}; ${e(environmentLine(result.a))}</dd>
<dt>B</dt><dd><code>${e(result.b.baseUrl)}</code>, ${e(result.b.target)}<br>${e(sideLine(result.b))}; ${e(environmentLine(result.b))}</dd>
<dt>Level</dt><dd>${e(result.level)}</dd>
<dt>Compared</dt><dd>${e(plural(result.rulesCompared, "rule"))}, ${e(plural(result.observationsCompared, "observation"))}, in ${e((result.durationMs / 1000).toFixed(1))} s</dd>
</dl>
<main>
${differencesSection(result)}
<section><h2>Not compared</h2>${notComparedSection(result)}</section>
<section><h2>Left on the targets by the probes</h2>${leftSection(result)}</section>
</main>
<footer>agent-platform-conformance parity: values are normalised (ids, texts and counts taken out), so targets holding different data but behaving alike show no difference.</footer>
</body></html>
`;
}

const CSS = `
:root{--same:#1a7f37;--differ:#cf222e;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--fg)}
code,.val{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
header.verdict{display:flex;align-items:center;gap:28px;padding:22px 32px;color:#fff}
header.verdict.same{background:var(--same)}header.verdict.differ{background:var(--differ)}
.word{font-size:56px;font-weight:800;letter-spacing:.04em;line-height:1}
.note{font-size:18px;font-weight:600}
.counts{margin-top:8px;display:flex;gap:8px;flex-wrap:wrap}
.counts .k{background:rgba(255,255,255,.85);color:var(--muted);border-radius:12px;padding:2px 10px;font-weight:600}
.counts .k.some{background:#fff;color:var(--differ)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0;padding:14px 32px;background:var(--soft);border-bottom:1px solid var(--line)}
dl.meta dt{font-weight:600;color:var(--muted)}dl.meta dd{margin:0}
main{padding:0 32px 24px;max-width:1500px}
section{margin-top:24px}
h2{font-size:18px;margin:0 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h2 .sub{font-size:13px;font-weight:400;color:var(--muted);margin-left:8px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--line)}
thead th{background:var(--soft);font-size:12.5px}
td.val{white-space:pre-wrap;overflow-wrap:anywhere}
table.diffs{table-layout:fixed}table.diffs col.k{width:110px}table.diffs col.p{width:30%}
table.diffs td code{overflow-wrap:anywhere}
.kind{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid var(--line);background:var(--soft)}
.kind.outcome{color:var(--differ);border-color:var(--differ)}
p.none{font-size:16px;color:var(--same);font-weight:600;margin-top:24px}
.muted{color:var(--muted)}
footer{padding:16px 32px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}
`;
