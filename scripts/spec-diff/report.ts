/**
 * Renders a DiffResult as plain text (the terminal) or Markdown (a pull request comment).
 * One change to a shared component shows up in every operation that uses it; those are grouped
 * into one entry (same component, same message, same severity) listing where clients meet it.
 */
import type { Change, DiffResult, Severity } from "./model.js";

export interface Group {
  severity: Severity;
  message: string;
  where: string[];
  origin?: string;
}

export interface Title {
  base: string;
  head: string;
  spec: string;
}

export function group(changes: Change[]): Group[] {
  const groups = new Map<string, Group>();
  for (const c of changes) {
    const key = `${c.severity}\0${c.origin ?? c.where}\0${c.message}`;
    const found = groups.get(key);
    if (found) {
      if (!found.where.includes(c.where)) found.where.push(c.where);
    } else
      groups.set(key, {
        severity: c.severity,
        message: c.message,
        where: [c.where],
        ...(c.origin ? { origin: c.origin } : {}),
      });
  }
  return [...groups.values()];
}

export const breakingCount = (result: DiffResult): number =>
  group(result.changes).filter((g) => g.severity === "breaking").length;

function counts(result: DiffResult): { breaking: Group[]; other: Group[]; docs: number } {
  const all = group(result.changes);
  return {
    breaking: all.filter((g) => g.severity === "breaking"),
    other: all.filter((g) => g.severity === "non-breaking"),
    docs: result.documentation.reduce((n, d) => n + d.count, 0),
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
const MORE = 3;

function alsoAt(g: Group): string[] {
  const rest = g.where.slice(1);
  const shown = rest.slice(0, MORE);
  return rest.length > MORE ? [...shown, `and ${rest.length - MORE} more`] : shown;
}

export function renderText(result: DiffResult, title: Title): string {
  const { breaking, other, docs } = counts(result);
  const out = [
    `spec:diff ${title.spec}: ${title.base} -> ${title.head}`,
    `${plural(breaking.length, "breaking change")}, ${other.length} non-breaking, ${plural(docs, "documentation edit")}`,
  ];
  for (const [heading, groups] of [
    ["Breaking", breaking],
    ["Non-breaking", other],
  ] as const) {
    if (!groups.length) continue;
    out.push("", `${heading} (${groups.length}):`);
    for (const g of groups) {
      out.push(`  - ${g.where[0]}: ${g.message}`);
      const also = alsoAt(g);
      if (also.length) out.push(`      also at ${also.join("; ")}`);
      if (g.origin) out.push(`      defined at ${g.origin}`);
    }
  }
  if (result.documentation.length) {
    out.push("", `Documentation (${plural(docs, "edit")}):`);
    for (const d of result.documentation) out.push(`  - ${d.owner}: ${d.count} (${d.keys.join(", ")})`);
  }
  return `${out.join("\n")}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

function table(groups: Group[]): string[] {
  const rows = ["| Where | Change | Defined at |", "|---|---|---|"];
  for (const g of groups) {
    const also = alsoAt(g).map((w) => (w.startsWith("and ") ? w : code(w)));
    const where = [code(g.where[0]), ...(also.length ? [`also ${also.join(", ")}`] : [])].join("<br>");
    rows.push(`| ${cell(where)} | ${cell(g.message)} | ${g.origin ? cell(code(g.origin)) : ""} |`);
  }
  return rows;
}

export function renderMarkdown(result: DiffResult, title: Title): string {
  const { breaking, other, docs } = counts(result);
  const out = [
    `## API spec diff: ${code(title.base)} → ${title.head === "working tree" ? "working tree" : code(title.head)}`,
    "",
    `${code(title.spec)}: **${plural(breaking.length, "breaking change")}**, ${other.length} non-breaking, ${plural(docs, "documentation edit")}.`,
  ];
  out.push("", "### Breaking", "", ...(breaking.length ? table(breaking) : ["None."]));
  out.push("", "### Non-breaking", "", ...(other.length ? table(other) : ["None."]));
  if (result.documentation.length) {
    out.push("", "### Documentation", "", "| Where | Edits | Keywords |", "|---|---|---|");
    for (const d of result.documentation)
      out.push(`| ${cell(code(d.owner))} | ${d.count} | ${cell(d.keys.join(", "))} |`);
  }
  return `${out.join("\n")}\n`;
}
