/**
 * Catch rate of the suite over the fault table, each fault played alone against a fresh mock run:
 *   npx tsx conformance/test/faults/measure.ts [--scope full|only] [--level documented|assumed|both] [--filter TEXT]
 * `full` runs the whole suite per fault (what a QA engineer would run); `only` the rules the table names.
 */
import { parseArgs } from "node:util";
import { startMock } from "../../../mock-server/server.js";
import { runThrough } from "./run-fault.js";
import { faults } from "./table.js";

const { values } = parseArgs({
  options: {
    scope: { type: "string", default: "full" },
    level: { type: "string", default: "both" },
    filter: { type: "string" },
  },
});
const levels = values.level === "both" ? ["documented", "assumed"] : [values.level!];
const mock = await startMock({ port: 0, log: () => undefined });
const caught: Record<string, number> = {};
const missed: Record<string, string[]> = {};
const started = performance.now();
const selected = faults.filter((f) => !values.filter || f.id.includes(values.filter));
for (const fault of selected) {
  const cells: string[] = [];
  for (const level of levels) {
    const argv = ["--level", level, ...(values.scope === "only" ? ["--only", fault.only] : [])];
    const { code, failed } = await runThrough(mock, fault.hooks(), argv);
    const hit = code === 1 && failed.length > 0;
    if (hit) caught[level] = (caught[level] ?? 0) + 1;
    else (missed[level] ??= []).push(fault.id);
    cells.push(
      `${level}: ${hit ? `caught by ${failed.length} rule(s), e.g. ${failed[0].slice(0, 140)}` : `MISSED (exit ${code})`}`,
    );
  }
  console.log(`${fault.id} [expected at ${fault.level}]\n  ${cells.join("\n  ")}`);
}
await mock.close();
console.log(
  `\n${selected.length} faults, scope ${values.scope}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
for (const level of levels)
  console.log(
    `${level}: caught ${caught[level] ?? 0}/${selected.length}; missed: ${(missed[level] ?? []).join(", ") || "none"}`,
  );
