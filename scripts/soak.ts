/**
 * npm run soak [-- --duration 60 --connections 64 --warmup 10 --journal-size 500 --outbox-size 1000
 *                  --reset-every 5 --workspaces 4 --clock-speed 60]
 * Mixed reads and writes over every operation against the mock in a child process; prints the
 * figures and exits 1 unless there were no errors, RSS grew by at most 20 % after warm-up, and the
 * journal and the webhook outbox stayed within their caps.
 */
import { parseArgs } from "node:util";
import { historyMain } from "./soak/history/cli.js";
import { soakReport, verdict } from "./soak/report.js";
import { DEFAULT_SOAK, runSoak, type SoakOptions } from "./soak/run.js";

const FLAGS: Record<string, keyof SoakOptions> = {
  duration: "durationSec",
  connections: "connections",
  warmup: "warmupSec",
  "journal-size": "journalSize",
  "outbox-size": "outboxSize",
  "reset-every": "resetEverySec",
  workspaces: "workspaces",
  "clock-speed": "clockSpeed",
};

// With --replicas: the seeded, model-based history checker of the shared Redis store (scripts/soak/history/).
if (process.argv.slice(2).some((a) => a === "--replicas" || a.startsWith("--replicas="))) {
  process.exit(await historyMain(process.argv.slice(2)));
}

const { values } = parseArgs({
  options: {
    help: { type: "boolean" },
    ...Object.fromEntries(Object.keys(FLAGS).map((f) => [f, { type: "string" as const }])),
  },
});
if (values.help) {
  console.log(
    `Usage: npm run soak -- ${Object.keys(FLAGS)
      .map((f) => `[--${f} N]`)
      .join(" ")}\nDefaults: ${JSON.stringify(DEFAULT_SOAK)}`,
  );
  process.exit(0);
}
const options: SoakOptions = { ...DEFAULT_SOAK };
for (const [flag, key] of Object.entries(FLAGS)) {
  const given = (values as Record<string, string | undefined>)[flag];
  if (given === undefined) continue;
  const n = Number(given);
  if (!Number.isFinite(n) || n < 0 || (key !== "resetEverySec" && n === 0)) {
    console.error(`--${flag} must be a positive number, got "${given}"`);
    process.exit(2);
  }
  options[key] = n;
}
if (options.warmupSec >= options.durationSec) {
  console.error("--warmup must be shorter than --duration");
  process.exit(2);
}

console.log(`soak: ${JSON.stringify(options)}`);
const result = await runSoak(options, (line) => console.log(line));
console.log(soakReport(result));
const problems = verdict(result);
if (problems.length > 0) {
  console.log(`FAILED: ${problems.join("; ")}`);
  if (result.errors.total > 0) console.log(`mock output (last lines):\n${result.mockOutput.join("\n")}`);
  process.exit(1);
}
console.log("PASSED: no errors, RSS growth within 20 %, journal and outbox within their caps");
