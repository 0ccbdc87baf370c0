/**
 * npm run conformance -- --base-url URL --api-key KEY [--level documented|assumed] [--read-only]
 *   [--junit FILE] [--json FILE] [--only PATTERN] [--fuzz N] [--large-uploads] [ids...]
 * Exit 0: nothing failed at the chosen level. 1: a rule failed. 2: the run could not start.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { fuzzRules } from "./fuzz/fuzz-rules.js";
import { RunCannotStart, runSuite, type RunOptions, type RunResult } from "./lib/runner.js";
import { consoleReport } from "./report/console.js";
import { jsonReport } from "./report/json.js";
import { junitReport } from "./report/junit.js";

const USAGE = `usage: npm run conformance -- --base-url URL --api-key KEY [--level documented|assumed] [--read-only]
  [--junit FILE] [--json FILE] [--only PATTERN] [--fuzz N] [--large-uploads]
  [--agent-id ID] [--test-case-id ID] [--qa-rule-id ID] [--qa-rule-id-to-delete ID] [--phone-number E164] [--batch-id ID]
environment: CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const defaultIo: CliIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CliIo = defaultIo, extra: Partial<RunOptions> = {}): Promise<{ code: number; run?: RunResult }> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        "base-url": { type: "string" }, "api-key": { type: "string" }, level: { type: "string" }, "read-only": { type: "boolean" },
        junit: { type: "string" }, json: { type: "string" }, only: { type: "string" }, fuzz: { type: "string" }, "large-uploads": { type: "boolean" },
        "agent-id": { type: "string" }, "test-case-id": { type: "string" }, "qa-rule-id": { type: "string" }, "qa-rule-id-to-delete": { type: "string" },
        "phone-number": { type: "string" }, "batch-id": { type: "string" }, quiet: { type: "boolean" }, help: { type: "boolean" },
      },
    }).values;
  } catch (error) {
    io.err(`conformance: bad options: ${(error as Error).message}\n${USAGE}`);
    return { code: 2 };
  }
  if (values.help) return io.out(USAGE), { code: 0 };
  // Never BASE_URL: vitest sets that one for its own purposes.
  const baseUrl = (values["base-url"] as string | undefined) ?? env.CONFORMANCE_BASE_URL;
  const apiKey = (values["api-key"] as string | undefined) ?? env.CONFORMANCE_API_KEY;
  const level = values.level as string | undefined;
  const fuzz = values.fuzz === undefined ? 0 : Number(values.fuzz);
  const problem = !baseUrl ? "no --base-url (or CONFORMANCE_BASE_URL)"
    : !/^https?:\/\/[^/]+/.test(baseUrl) ? `--base-url ${baseUrl} is not an http(s) URL`
    : !apiKey ? "no --api-key (or CONFORMANCE_API_KEY)"
    : level !== undefined && level !== "documented" && level !== "assumed" ? `--level must be documented or assumed, not ${level}`
    : !Number.isInteger(fuzz) || fuzz < 0 ? `--fuzz must be a whole number, not ${values.fuzz}` : undefined;
  if (problem) {
    io.err(`conformance: cannot start: ${problem}\n${USAGE}`);
    return { code: 2 };
  }
  let run: RunResult;
  try {
    run = await runSuite({
      baseUrl: baseUrl!, apiKey: apiKey!, level: level as RunOptions["level"], readOnly: Boolean(values["read-only"]), only: values.only as string | undefined,
      largeUploads: Boolean(values["large-uploads"]), agentId: values["agent-id"] as string | undefined, testCaseId: values["test-case-id"] as string | undefined,
      qaRuleId: values["qa-rule-id"] as string | undefined, qaRuleIdToDelete: values["qa-rule-id-to-delete"] as string | undefined,
      phoneNumber: values["phone-number"] as string | undefined, batchId: values["batch-id"] as string | undefined,
      extraRules: fuzz > 0 ? fuzzRules(fuzz) : [],
      ...extra,
    });
  } catch (error) {
    if (error instanceof RunCannotStart) {
      io.err(`conformance: cannot start: ${error.message}`);
      return { code: 2 };
    }
    throw error;
  }
  if (!values.quiet) io.out(consoleReport(run));
  if (values.junit) writeFileSync(values.junit as string, junitReport(run));
  if (values.json) writeFileSync(values.json as string, jsonReport(run));
  const failed = run.results.some((r) => r.outcome === "failed");
  return { code: failed ? 1 : 0, run };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    ({ code }) => process.exit(code),
    (error) => {
      process.stderr.write(`conformance: cannot start: ${(error as Error).stack ?? error}\n`);
      process.exit(2);
    },
  );
}
