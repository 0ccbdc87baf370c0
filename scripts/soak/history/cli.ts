/**
 * npm run soak -- --replicas N --ops K [--cluster] [--kill] [--seed S] [--clients C] [--mock-root DIR] [--json FILE]
 *                  [--shrink-seconds S] [--save]
 * The history checker's command line (scripts/soak.ts hands over when --replicas is given).
 * Exit 0: no anomaly; 1: anomalies; 2: the run could not start.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { saveHistoryRun } from "../../bench/history-runs.js";
import { figuresOf, printAnomalies, printFigures, rerunCommand } from "./report.js";
import { runChecker } from "./run.js";

export async function historyMain(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        replicas: { type: "string" },
        ops: { type: "string" },
        clients: { type: "string" },
        seed: { type: "string" },
        cluster: { type: "boolean" },
        kill: { type: "boolean" },
        "mock-root": { type: "string" },
        json: { type: "string" },
        "shrink-seconds": { type: "string" },
        save: { type: "boolean" },
      },
    }).values;
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const int = (name: string, fallback: number, min: number) => {
    const raw = values[name];
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got "${raw}"`);
    return n;
  };
  let options: import("./run.js").CheckerOptions;
  try {
    options = {
      replicas: int("replicas", 3, 1),
      ops: int("ops", 2000, 1),
      clients: int("clients", 6, 1),
      seed: int("seed", Math.floor(Math.random() * 2 ** 31), 0),
      cluster: values.cluster === true,
      kill: values.kill === true,
      mockRoot: resolve(String(values["mock-root"] ?? fileURLToPath(new URL("../../..", import.meta.url)))),
      shrinkMs: int("shrink-seconds", 120, 0) * 1000,
      log: (line: string) => console.log(line),
    };
    if (options.kill && options.replicas < 2) throw new Error("--kill needs --replicas 2 or more");
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  console.log(`seed: ${options.seed}`);
  console.log(
    `history checker: ${options.replicas} replicas, ${options.ops} ops, ${options.clients} clients${options.cluster ? ", cluster" : ""}${options.kill ? ", kills" : ""}; mock from ${options.mockRoot}`,
  );
  const loadAverage = os.loadavg();
  let result;
  try {
    result = await runChecker(options);
  } catch (error) {
    console.error(`cannot run: ${(error as Error).message.split("\n")[0]}`);
    return 2;
  }
  const { first, smallest, shrinkRuns } = result;
  if (smallest) {
    console.log(`\nANOMALIES in the first run: ${first.history.anomalies.length}; shrink runs: ${shrinkRuns}`);
    console.log(printAnomalies(smallest, options));
    if (smallest !== first) {
      console.log("\nfirst run's anomalies:");
      for (const a of first.history.anomalies.slice(0, 12)) console.log(`  [${a.kind}] ${a.message}`);
    }
  }
  console.log(`\nfigures of the first run:\n${printFigures(first)}`);
  if (typeof values.json === "string")
    writeFileSync(
      values.json,
      `${JSON.stringify({ seed: options.seed, options: { ...options, log: undefined }, figures: figuresOf(first), anomalies: first.history.anomalies, smallest: smallest ? { anomalies: smallest.history.anomalies, requests: smallest.history.entries.length } : null }, null, 2)}\n`,
    );
  if (values.save) await saveRun(options, loadAverage, figuresOf(first));
  const bad = first.history.anomalies.length;
  console.log(bad === 0 ? "PASSED: no anomaly" : `FAILED: ${bad} anomalies (seed ${options.seed})`);
  return bad === 0 ? 0 : 1;
}

const bench = (file: string) => fileURLToPath(new URL(`../../bench/${file}`, import.meta.url));

/**
 * --save: the run's figures become its configuration's row in RESULTS.md's section on the history
 * checker (kept in history-runs.json), and RESULTS.md is written again from the bench's saved figures.
 */
async function saveRun(
  options: import("./run.js").CheckerOptions,
  loadAverage: number[],
  figures: ReturnType<typeof figuresOf>,
): Promise<void> {
  saveHistoryRun(bench("history-runs.json"), {
    date: new Date().toISOString(),
    command: rerunCommand(options),
    commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(),
    seed: options.seed,
    replicas: options.replicas,
    cluster: options.cluster,
    kill: options.kill,
    clients: options.clients,
    loadAverage,
    figures,
  });
  // Loaded only here: the bench's parts are not what a soak needs to start.
  const { renderMarkdown } = await import("../../bench/run.js");
  if (existsSync(bench("results.json")))
    writeFileSync(bench("RESULTS.md"), renderMarkdown(JSON.parse(readFileSync(bench("results.json"), "utf8"))));
  console.log("saved in scripts/bench/history-runs.json and RESULTS.md");
}
