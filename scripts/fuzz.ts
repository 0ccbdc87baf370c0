/**
 * npm run fuzz [-- --runs N] [--seed S] [--path P]: fast-check over every operation of the spec,
 * valid and hostile requests against an in-process mock. Prints the seed first, a table at the end,
 * and the shrunk counterexample with the command that replays it on failure (exit status 1).
 */
import { parseArgs } from "node:util";
import { failureReport, runFuzz } from "./fuzz/run.js";

const { values } = parseArgs({
  options: { runs: { type: "string" }, seed: { type: "string" }, path: { type: "string" }, help: { type: "boolean" } },
});
if (values.help) {
  console.log(
    "Usage: npm run fuzz -- [--runs N (default 10000)] [--seed S (default random)] [--path P (replay a counterexample)]",
  );
  process.exit(0);
}
const runs = Number(values.runs ?? 10_000);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error("--runs must be a positive integer and --seed an integer");
  process.exit(2);
}

console.log(`fuzz: seed ${seed}, ${runs} runs (replay with: npm run fuzz -- --seed ${seed} --runs ${runs})`);
const result = await runFuzz({ runs, seed, path: values.path, progress: (line) => console.log(line) });
console.log(`\n${result.stats.table()}\n`);
console.log(`${result.stats.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s (seed ${seed})`);
const gaps = result.stats.gaps();
if (gaps.length > 0) console.log(`operations never answered 2xx: ${gaps.join(", ")}`);
if (result.failure) {
  console.log(`\nFAILED\n${failureReport(result.failure)}`);
  process.exit(1);
}
console.log("no 5xx, every error in the 2.2 shape, no store changed by a rejected request, no prototype polluted");
