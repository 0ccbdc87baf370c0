/**
 * spec:diff --html: one self-contained page (inline CSS, no script, no external asset) a person reads
 * at a glance: the verdict, the breaking changes recorded traffic hits (count, consumers, one example),
 * those it does not touch, the non-breaking ones, and what the traffic held. Everything that comes from
 * the spec or the traffic is escaped; the examples were redacted when the report was built.
 */
import { escapeHtml as e } from "../../conformance/report/html.js";
import { type BlastReport, exampleLine, type ReportChange } from "./traffic-report.js";

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** Where a change is met (with its message, in lists), then, muted, the other places of its group and its component. */
function places(c: ReportChange, message?: string): string {
  const also = c.alsoAt.length
    ? `<div class="muted">also at ${c.alsoAt.map((w) => `<code>${e(w)}</code>`).join(", ")}</div>`
    : "";
  const origin = c.origin ? `<div class="muted">defined at <code>${e(c.origin)}</code></div>` : "";
  return `<code>${e(c.where)}</code>${message === undefined ? "" : `: ${e(message)}`}${also}${origin}`;
}

function hitRow(c: ReportChange): string {
  const h = c.hits!;
  const consumers = h.consumers.map((x) => `${e(x.name)} <span class="muted">(${x.count})</span>`).join("<br>");
  const example = h.example
    ? `<code>${e(exampleLine(h.example))}</code>${h.example.operationId ? ` <span class="muted">${e(h.example.operationId)}</span>` : ""}<div class="muted">${e(h.example.file)}</div>`
    : "";
  return `<tr><td>${places(c)}</td><td>${e(c.message)}</td><td class="n">${h.count}</td><td>${consumers}</td><td>${example}</td></tr>`;
}

function verdict(report: BlastReport): { word: string; cls: string; note: string } {
  const s = report.summary;
  if (!report.traffic)
    return s.breaking
      ? { word: "BREAKING", cls: "fail", note: `${plural(s.breaking, "breaking change")}` }
      : { word: "SAFE", cls: "pass", note: "no breaking change" };
  if (s.hitting)
    return {
      word: "BREAKS TRAFFIC",
      cls: "fail",
      note: `${plural(s.hitting ?? 0, "breaking change")} hit recorded traffic; ${s.untouched} more ${s.untouched === 1 ? "touches" : "touch"} none`,
    };
  return {
    word: "SAFE FOR THIS TRAFFIC",
    cls: s.breaking ? "warn" : "pass",
    note: s.breaking ? `${plural(s.breaking, "breaking change")}, none hit by recorded traffic` : "no breaking change",
  };
}

export function renderHtml(report: BlastReport): string {
  const v = verdict(report);
  const t = report.traffic;
  const parts: string[] = [];
  const hit = report.changes.filter((c) => c.breaking && c.hits?.count);
  if (t) {
    parts.push(
      `<section id="hit"><h2>Breaking changes hit by recorded traffic (${hit.length})</h2>${
        hit.length
          ? `<table><thead><tr><th>Where</th><th>Change</th><th>Exchanges</th><th>Consumers</th><th>Example</th></tr></thead><tbody>${hit.map(hitRow).join("")}</tbody></table>`
          : "<p>None.</p>"
      }</section>`,
    );
    const untouched = report.changes.filter((c) => c.breaking && !c.hits?.count);
    parts.push(
      `<section id="untouched"><h2>Breaking changes no recorded exchange touches (${untouched.length})</h2>${
        untouched.length
          ? `<ul>${untouched.map((c) => `<li>${places(c, c.message)}${c.hits?.undecided ? ` <span class="muted">(${plural(c.hits.undecided, "exchange")} recorded without the bodies or headers to tell)</span>` : ""}</li>`).join("")}</ul>`
          : "<p>None.</p>"
      }</section>`,
    );
  } else {
    const breaking = report.changes.filter((c) => c.breaking);
    parts.push(
      `<section id="breaking"><h2>Breaking (${breaking.length})</h2>${breaking.length ? `<ul>${breaking.map((c) => `<li>${places(c, c.message)}</li>`).join("")}</ul>` : "<p>None.</p>"}</section>`,
    );
  }
  const other = report.changes.filter((c) => !c.breaking);
  parts.push(
    `<section id="non-breaking"><h2>Non-breaking (${other.length})</h2>${other.length ? `<ul>${other.map((c) => `<li>${places(c, c.message)}</li>`).join("")}</ul>` : "<p>None.</p>"}</section>`,
  );
  if (t) {
    const files = t.files
      .map((f) => `<li><code>${e(f.path)}</code>: ${e(f.format)}, ${plural(f.entries, "entry", "entries")}</li>`)
      .join("");
    const unmatched = t.unmatched.examples
      .map((u) => `<li><code>${e(`${u.method} ${u.path}`)}</code> (${u.count})</li>`)
      .join("");
    parts.push(
      `<section id="traffic"><h2>Traffic</h2><p>${plural(t.exchanges, "entry", "entries")} read, ${t.matched} matched to an operation of the base spec, ${t.unmatched.count} unmatched, ${t.ignored} ignored (other hosts, the control plane, CORS preflights).</p><ul>${files}</ul>${
        t.unmatched.count ? `<h3>Unmatched (the base spec has no such operation)</h3><ul>${unmatched}</ul>` : ""
      }${t.withoutBodies ? `<p class="muted">${plural(t.withoutBodies, "exchange")} come from the journal's JSON (no headers, no bodies): only removed operations, security, status codes and query or path parameters were checked against them.</p>` : ""}</section>`,
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spec:diff ${e(report.base)} → ${e(report.head)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="verdict ${v.cls}"><div class="word">${e(v.word)}</div><div class="note">${e(v.note)}</div></header>
<dl class="meta"><dt>Spec</dt><dd><code>${e(report.spec)}</code></dd><dt>Compared</dt><dd><code>${e(report.base)}</code> → <code>${e(report.head)}</code></dd>
<dt>Changes</dt><dd>${plural(report.summary.breaking, "breaking change")}, ${report.summary.nonBreaking} non-breaking, ${plural(report.summary.documentation, "documentation edit")}</dd></dl>
<main>
${parts.join("\n")}
</main>
<footer>Generated by npm run spec:diff (scripts/spec-diff.ts). Secrets in URLs, credential headers and secret fields are redacted.</footer>
</body>
</html>
`;
}

const CSS = `
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--fg)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere}
header.verdict{display:flex;align-items:center;gap:24px;padding:20px 32px;color:#fff}
header.pass{background:var(--pass)}header.fail{background:var(--fail)}header.warn{background:var(--warn)}
.word{font-size:40px;font-weight:800;letter-spacing:.03em}.note{font-size:18px;font-weight:600}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0;padding:12px 32px;background:var(--soft);border-bottom:1px solid var(--line)}
dl.meta dt{font-weight:600;color:var(--muted)}dl.meta dd{margin:0}
main{padding:0 32px 24px;max-width:1500px}section{margin-top:24px}
h2{font-size:19px;margin:0 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}h3{font-size:15px}
table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--soft)}td.n{text-align:right;font-weight:700}
.muted{color:var(--muted)}li{margin:3px 0}
footer{padding:12px 32px;color:var(--muted);border-top:1px solid var(--line)}
`;
