/**
 * The report of spec:diff with --traffic, as data first (what --json writes; shape documented in
 * scripts/README.md), then as the "Blast radius" section of the text and Markdown reports. Changes are
 * grouped as report.ts groups them (one shared component, one entry), their hits added up over the
 * places the group lists. Examples are redacted here, the one place a recorded value leaves the tool:
 * URL queries, credential headers and fields holding secrets (mock-server/upstream/redact.ts).
 */
import { Redactor } from "../../mock-server/upstream/redact.js";
import type { Radius } from "./blast-radius.js";
import type { Change, DiffResult } from "./model.js";
import { group, type Title } from "./report.js";
import type { TrafficMatch } from "./traffic-match.js";
import type { Exchange, TrafficFile } from "../../conformance/recorded/traffic-file.js";

export interface Example {
  file: string;
  consumer: string;
  method: string;
  url: string;
  status: number | null;
  operationId?: string;
  pointer?: string;
  /** JSON of the offending value, redacted, at most 120 characters. */
  value?: string;
}

export interface Hits {
  /** Distinct recorded exchanges the change breaks. */
  count: number;
  consumers: { name: string; count: number }[];
  /** The places of the group that traffic reaches, with their own counts. */
  at: { where: string; count: number }[];
  example?: Example;
  /** Exchanges of the operation whose file did not record what the change is about (the journal's bodies...). */
  undecided: number;
}

export interface ReportChange {
  where: string;
  alsoAt: string[];
  origin?: string;
  message: string;
  breaking: boolean;
  /** Breaking changes, with --traffic. */
  hits?: Hits;
}

export interface BlastReport {
  base: string;
  head: string;
  spec: string;
  summary: { breaking: number; hitting?: number; untouched?: number; nonBreaking: number; documentation: number };
  changes: ReportChange[];
  untouched?: { where: string; message: string; origin?: string; undecided: number }[];
  traffic?: {
    files: TrafficFile[];
    /** Every entry read. */
    exchanges: number;
    /** Entries matched to an operation of the base spec. */
    matched: number;
    unmatched: { count: number; examples: { method: string; path: string; count: number }[] };
    /** A browser's other requests, the mock's control plane, CORS preflights. */
    ignored: number;
    /** Matched entries from journal files: only operation, status, query and path checks apply to them. */
    withoutBodies: number;
  };
}

export interface TrafficInput {
  radius: Map<Change, Radius>;
  match: TrafficMatch;
  files: TrafficFile[];
}

const MAX_VALUE = 120;
const MAX_UNMATCHED = 10;

function example(hit: Radius["hits"][number]): Example {
  const redactor = new Redactor();
  const ex = hit.exchange;
  let value: string | undefined;
  if (hit.value) {
    const { of, name } = hit.value;
    const clean =
      name === undefined
        ? redactor.json(of)
        : typeof of === "string" && redactor.headers({ [name]: of })[name] !== of
          ? "[redacted]"
          : redactor.json({ [name]: of })[name];
    const text = JSON.stringify(clean) ?? String(clean);
    value = text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
  }
  return {
    file: ex.file,
    consumer: ex.consumer,
    method: ex.method,
    url: redactor.url(ex.url),
    status: ex.status,
    ...(hit.operationId ? { operationId: hit.operationId } : {}),
    ...(hit.pointer ? { pointer: hit.pointer } : {}),
    ...(value !== undefined ? { value } : {}),
  };
}

function hitsOf(members: Change[], radius: Map<Change, Radius>): Hits {
  const seen = new Map<Exchange, Radius["hits"][number]>();
  const undecided = new Set<Exchange>();
  const at: Hits["at"] = [];
  for (const c of members) {
    const r = radius.get(c);
    if (!r) continue;
    const here = new Set(r.hits.map((h) => h.exchange));
    if (here.size) at.push({ where: c.where, count: here.size });
    for (const h of r.hits) if (!seen.has(h.exchange)) seen.set(h.exchange, h);
    for (const e of r.undecided) undecided.add(e);
  }
  for (const e of seen.keys()) undecided.delete(e);
  const consumers = new Map<string, number>();
  for (const e of seen.keys()) consumers.set(e.consumer, (consumers.get(e.consumer) ?? 0) + 1);
  const first = [...seen.values()][0];
  return {
    count: seen.size,
    consumers: [...consumers].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count),
    at,
    ...(first ? { example: example(first) } : {}),
    undecided: undecided.size,
  };
}

export function buildReport(result: DiffResult, title: Title, traffic?: TrafficInput): BlastReport {
  const groups = group(result.changes);
  const changes: ReportChange[] = groups.map((g) => {
    const members = result.changes.filter(
      (c) => c.severity === g.severity && c.message === g.message && (c.origin ?? c.where) === (g.origin ?? g.where[0]),
    );
    const breaking = g.severity === "breaking";
    return {
      where: g.where[0],
      alsoAt: g.where.slice(1),
      ...(g.origin ? { origin: g.origin } : {}),
      message: g.message,
      breaking,
      ...(traffic && breaking ? { hits: hitsOf(members, traffic.radius) } : {}),
    };
  });
  const breaking = changes.filter((c) => c.breaking);
  const report: BlastReport = {
    ...title,
    summary: {
      breaking: breaking.length,
      nonBreaking: changes.length - breaking.length,
      documentation: result.documentation.reduce((n, d) => n + d.count, 0),
    },
    changes,
  };
  if (!traffic) return report;
  const untouched = breaking.filter((c) => !c.hits?.count);
  report.summary.hitting = breaking.length - untouched.length;
  report.summary.untouched = untouched.length;
  report.untouched = untouched.map((c) => ({
    where: c.where,
    message: c.message,
    ...(c.origin ? { origin: c.origin } : {}),
    undecided: c.hits?.undecided ?? 0,
  }));
  const { match, files } = traffic;
  const unmatched = new Map<string, { method: string; path: string; count: number }>();
  for (const e of match.unmatched) {
    const key = `${e.method} ${e.path}`;
    const found = unmatched.get(key) ?? { method: e.method, path: e.path, count: 0 };
    found.count += 1;
    unmatched.set(key, found);
  }
  report.traffic = {
    files,
    exchanges: files.reduce((n, f) => n + f.entries, 0),
    matched: match.matched.length,
    unmatched: {
      count: match.unmatched.length,
      examples: [...unmatched.values()].sort((a, b) => b.count - a.count).slice(0, MAX_UNMATCHED),
    },
    ignored: match.ignored.length,
    withoutBodies: match.matched.filter((m) => m.exchange.format === "journal").length,
  };
  return report;
}

/** Whether recorded traffic meets a breaking change: what --traffic's exit status says. */
export const hitting = (report: BlastReport): number => report.summary.hitting ?? 0;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

export function exampleLine(x: Example): string {
  const at = x.pointer ? `, ${x.pointer}${x.value !== undefined ? ` = ${x.value}` : ""}` : "";
  return `${x.method} ${x.url} -> ${x.status ?? "no answer"}${at}`;
}

const undecided = (n: number): string =>
  n ? ` (${plural(n, "exchange")} of it recorded without the bodies or headers to tell)` : "";

const journalNote = (n: number): string =>
  `Note: ${plural(n, "exchange")} come from the journal's JSON, which keeps no headers or bodies:` +
  " only removed operations, security, status codes and query or path parameters were checked against them.";

const consumerList = (h: Hits): string => h.consumers.map((c) => `${c.name} (${c.count})`).join(", ");

/** The "Blast radius" section appended to the text report. */
export function renderBlastText(report: BlastReport): string {
  const t = report.traffic;
  if (!t) return "";
  const out = [
    "",
    `Blast radius: ${plural(t.matched, "recorded exchange")} of the base spec's operations, from ${plural(t.files.length, "file")}` +
      ` (${t.unmatched.count} unmatched, ${t.ignored} ignored)`,
  ];
  const hit = report.changes.filter((c) => c.breaking && c.hits?.count);
  out.push("", `Breaking changes hit by recorded traffic (${hit.length}):`);
  for (const c of hit) {
    const h = c.hits!;
    out.push(`  - ${c.where}: ${c.message}`);
    out.push(`      ${plural(h.count, "exchange")}; consumers: ${consumerList(h)}`);
    const more = h.at.filter((a) => a.where !== c.where);
    if (more.length) out.push(`      also hit at ${more.map((a) => `${a.where} (${a.count})`).join("; ")}`);
    if (h.example)
      out.push(`      e.g. ${exampleLine(h.example)}${h.example.operationId ? ` [${h.example.operationId}]` : ""}`);
  }
  if (report.untouched?.length) {
    out.push("", `Breaking changes no recorded exchange touches (${report.untouched.length}):`);
    for (const u of report.untouched) out.push(`  - ${u.where}: ${u.message}${undecided(u.undecided)}`);
  }
  if (t.unmatched.count) {
    out.push("", `Unmatched: ${plural(t.unmatched.count, "exchange")} the base spec has no operation for:`);
    for (const u of t.unmatched.examples) out.push(`  - ${u.method} ${u.path} (${u.count})`);
    if (t.unmatched.examples.length < t.unmatched.count) out.push("  - ...");
  }
  if (t.withoutBodies) out.push("", journalNote(t.withoutBodies));
  return `${out.join("\n")}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

/** The same section for the Markdown report (a pull request comment). */
export function renderBlastMarkdown(report: BlastReport): string {
  const t = report.traffic;
  if (!t) return "";
  const out = [
    "",
    "### Blast radius",
    "",
    `${plural(t.matched, "recorded exchange")} from ${plural(t.files.length, "file")} (${t.unmatched.count} unmatched, ${t.ignored} ignored).`,
    "",
  ];
  const hit = report.changes.filter((c) => c.breaking && c.hits?.count);
  if (!hit.length) out.push("No breaking change hits recorded traffic.");
  else {
    out.push("| Where | Change | Exchanges | Consumers | Example |", "|---|---|---|---|---|");
    for (const c of hit) {
      const h = c.hits!;
      out.push(
        `| ${cell(code(c.where))} | ${cell(c.message)} | ${h.count} | ${cell(consumerList(h))} | ${h.example ? cell(code(exampleLine(h.example))) : ""} |`,
      );
    }
  }
  if (report.untouched?.length) {
    out.push("", "Untouched by recorded traffic:", "");
    for (const u of report.untouched) out.push(`- ${code(u.where)}: ${cell(u.message)}${undecided(u.undecided)}`);
  }
  if (t.withoutBodies) out.push("", journalNote(t.withoutBodies));
  return `${out.join("\n")}\n`;
}
