/** What the bench's parts write their RESULTS.md sections with: numbers, and Markdown tables. */

export const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "n/a");
export const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "n/a");

export const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
