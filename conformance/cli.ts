#!/usr/bin/env node
/**
 * agent-platform-conformance --base-url URL --api-key KEY [options]   (see USAGE)
 * In the kit's repository: npm run conformance -- --base-url URL --api-key KEY [options]
 * Exit 0: nothing failed at the chosen level. 1: a rule failed or crashed. 2: the run could not start
 * (one line on stderr saying what to fix; with --junit, a file holding that one error).
 */
import { realpathSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { cleanup, CleanupCannotStart } from "./cleanup.js";
import { fuzzRules } from "./fuzz/fuzz-rules.js";
import { loadSuiteDocument } from "./generic/spec-option.js";
import type { SuiteDocument } from "./lib/document.js";
import { RunCannotStart, runSuite, selectRules, type RunOptions, type RunResult } from "./lib/runner.js";
import { parityMain } from "./parity/command.js";
import { applyBaseline, loadBaseline, type Baseline } from "./report/baseline.js";
import { consoleReport } from "./report/console.js";
import { runFails } from "./report/group.js";
import { htmlReport } from "./report/html.js";
import { jsonReport } from "./report/json.js";
import { junitCannotStart, junitReport } from "./report/junit.js";
import { gatewayOptions, tlsOf, tlsProblem } from "./run-options.js";

const USAGE = `usage: agent-platform-conformance --base-url URL --api-key KEY [options]   (npm run conformance -- ... in the kit's repo)
  --spec FILE                  check a deployment of another OpenAPI document (3.0/3.1, YAML/JSON) with generic rules
                               (--api-key goes where its security scheme says; user:password for http basic)
  --level documented|assumed   what may fail the run (default: documented on a foreign target, assumed on the kit's mock)
  --target mock|foreign        skip detection (default: the kit's mock only when GET /__mock/health proves it)
  --read-only                  only requests that change nothing
  --only PATTERN               rules whose group/id contains PATTERN, or matches /regex/
  --list                       print every rule with its level and whether it is read-only, and exit
  --second-api-key KEY         a key of another workspace or account on the same target: isolation rules
  --insecure | --ca FILE       accept any certificate | trust this CA (PEM) as well
  --junit FILE --json FILE     reports for CI (--junit is written on exit 2 too, with the one error)
  --html FILE                  one self-contained page: verdict, matrix, coverage, causes with repro, timings
  --baseline FILE              known failures (JSON: {"knownFailures":[{"rule","pointer"?}]} or a --json report):
                               reported, not failing; entries that no longer fail are listed as stale
  --fuzz N --large-uploads     generated requests per operation | send the 25 MB upload to a foreign target
  --agent-id ID --test-case-id ID --qa-rule-id ID --qa-rule-id-to-delete ID --phone-number E164 --batch-id ID
Through gateways (Retry-After on 429 and 503 is always honoured; nothing the environment answers is judged):
  --rate-limit auto|N/s|N/m    pace: auto (default) learns the limit from 429s; N/s or N/m fixes it
  --concurrency N              requests in flight at most; read-only rules run N at a time (default 1)
  --retries N                  resend a request after a transient failure up to N times (default 3)
  --timeout S                  per request (default 30)        --max-wait S  total waiting on limits and backoff (default 300)
  --fail-on-inconclusive       exit 1 when a rule got no real answer through the environment
  --control-token T            the mock's control token, for a mock started with --control-token (or MOCK_CONTROL_TOKEN)
  --ledger FILE                the ledger file on a foreign target (default: in the OS temp dir, named by run id)
agent-platform-conformance cleanup --ledger FILE --base-url URL --api-key KEY   put back what a killed run left
agent-platform-conformance parity --base-url A --api-key KA --against B --against-api-key KB [--json F] [--html F]
                               where two targets differ (parity --help for its options)
environment: CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY, CONFORMANCE_SECOND_API_KEY, MOCK_CONTROL_TOKEN`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const defaultIo: CliIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

const OPTIONS = {
  spec: { type: "string" },
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "control-token": { type: "string" },
  level: { type: "string" },
  "read-only": { type: "boolean" },
  target: { type: "string" },
  "second-api-key": { type: "string" },
  insecure: { type: "boolean" },
  ca: { type: "string" },
  junit: { type: "string" },
  json: { type: "string" },
  html: { type: "string" },
  baseline: { type: "string" },
  only: { type: "string" },
  list: { type: "boolean" },
  fuzz: { type: "string" },
  "large-uploads": { type: "boolean" },
  "agent-id": { type: "string" },
  "test-case-id": { type: "string" },
  "qa-rule-id": { type: "string" },
  "qa-rule-id-to-delete": { type: "string" },
  "phone-number": { type: "string" },
  "batch-id": { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean" },
  "rate-limit": { type: "string" },
  concurrency: { type: "string" },
  retries: { type: "string" },
  timeout: { type: "string" },
  "max-wait": { type: "string" },
  "fail-on-inconclusive": { type: "boolean" },
  ledger: { type: "string" },
} as const;

/** The gateway options, read and checked: numbers where numbers belong. */
/** The gateway options, and the ledger a run on a foreign target writes as it goes. */
function transportOptions(values: Values): { options: Partial<RunOptions> } | { problem: string } {
  const gateway = gatewayOptions(values);
  if ("problem" in gateway) return gateway;
  return { options: { ...gateway.options, ledgerPath: values.ledger as string | undefined } };
}

type Values = Record<string, string | boolean | undefined>;

/** --list: every rule, its level, and whether it only reads. */
function ruleList(only: string | undefined, fuzz: number, document: SuiteDocument | undefined): string {
  const rules = selectRules({ only, extraRules: fuzz > 0 ? fuzzRules(fuzz) : [], document });
  const width = Math.max(...rules.map((r) => r.id.length));
  return [
    ...rules.map(
      (r) =>
        `${r.id.padEnd(width)}  ${r.level.padEnd(10)}  ${r.readOnly ? "read-only" : "writes   "}  ${r.description}`,
    ),
    `${rules.length} rules (${rules.filter((r) => r.level === "documented").length} documented, ${rules.filter((r) => r.readOnly).length} read-only)`,
  ].join("\n");
}

/** The first problem with the options themselves, found before any request. */
function optionProblem(values: Values, baseUrl: string | undefined, apiKey: string | undefined): string | undefined {
  const fuzz = values.fuzz === undefined ? 0 : Number(values.fuzz);
  const level = values.level;
  if (!baseUrl) return "no --base-url (or CONFORMANCE_BASE_URL)";
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) return `--base-url ${baseUrl} is not an http(s) URL`;
  if (!apiKey) return "no --api-key (or CONFORMANCE_API_KEY)";
  if (level !== undefined && level !== "documented" && level !== "assumed")
    return `--level must be documented or assumed, not ${level}`;
  if (values.target !== undefined && values.target !== "mock" && values.target !== "foreign")
    return `--target must be mock or foreign, not ${values.target}`;
  if (!Number.isInteger(fuzz) || fuzz < 0) return `--fuzz must be a whole number, not ${values.fuzz}`;
  if (values.spec !== undefined && fuzz > 0)
    return "--fuzz generates requests of this API's spec: with --spec the generic rules' invalid-input cases do the like";
  return tlsProblem(values);
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CliIo = defaultIo,
  extra: Partial<RunOptions> = {},
): Promise<{ code: number; run?: RunResult }> {
  if (argv[0] === "cleanup") return cleanupMain(argv.slice(1), env, io, extra);
  if (argv[0] === "parity") return parityMain(argv.slice(1), env, io, extra);
  let values: Values;
  try {
    values = parseArgs({ args: argv, strict: true, options: OPTIONS }).values;
  } catch (error) {
    io.err(`conformance: bad options: ${(error as Error).message}\n${USAGE}`);
    return { code: 2 };
  }
  if (values.help) return (io.out(USAGE), { code: 0 });
  const fuzz = values.fuzz === undefined ? 0 : Number(values.fuzz);
  let document: SuiteDocument | undefined;
  if (typeof values.spec === "string") {
    try {
      document = await loadSuiteDocument(values.spec);
    } catch (error) {
      const line = (error as Error).message.replace(/\s*\n\s*/g, " ");
      io.err(`conformance: cannot start: ${line}`);
      if (typeof values.junit === "string")
        writeFileSync(values.junit, junitCannotStart(line, { level: values.level as string | undefined }));
      return { code: 2 };
    }
  }
  if (values.list) {
    if (!Number.isInteger(fuzz) || fuzz < 0)
      return (io.err(`conformance: cannot start: --fuzz must be a whole number, not ${values.fuzz}`), { code: 2 });
    return (io.out(ruleList(values.only as string | undefined, fuzz, document)), { code: 0 });
  }
  // Never BASE_URL: vitest sets that one for its own purposes.
  const baseUrl = (values["base-url"] as string | undefined) ?? env.CONFORMANCE_BASE_URL;
  const apiKey = (values["api-key"] as string | undefined) ?? env.CONFORMANCE_API_KEY;
  const cannotStart = (message: string) => {
    const line = message.replace(/\s*\n\s*/g, " ");
    io.err(`conformance: cannot start: ${line}`);
    // CI reads the JUnit file: it says why there are no results rather than going missing.
    if (typeof values.junit === "string")
      writeFileSync(values.junit, junitCannotStart(line, { baseUrl, level: values.level as string | undefined }));
    return { code: 2 };
  };
  const problem = optionProblem(values, baseUrl, apiKey);
  if (problem) return cannotStart(problem);
  const transport = transportOptions(values);
  if ("problem" in transport) return cannotStart(transport.problem);
  let baseline: Baseline | undefined;
  try {
    baseline = typeof values.baseline === "string" ? loadBaseline(values.baseline) : undefined;
  } catch (error) {
    return cannotStart((error as Error).message);
  }
  let run: RunResult;
  try {
    run = await runSuite({
      baseUrl: baseUrl!,
      apiKey: apiKey!,
      controlToken: (values["control-token"] as string | undefined) ?? env.MOCK_CONTROL_TOKEN,
      level: values.level as RunOptions["level"],
      readOnly: Boolean(values["read-only"]),
      only: values.only as string | undefined,
      target: values.target as RunOptions["target"],
      secondApiKey: (values["second-api-key"] as string | undefined) ?? env.CONFORMANCE_SECOND_API_KEY,
      tls: tlsOf(values),
      largeUploads: Boolean(values["large-uploads"]),
      agentId: values["agent-id"] as string | undefined,
      testCaseId: values["test-case-id"] as string | undefined,
      qaRuleId: values["qa-rule-id"] as string | undefined,
      qaRuleIdToDelete: values["qa-rule-id-to-delete"] as string | undefined,
      phoneNumber: values["phone-number"] as string | undefined,
      batchId: values["batch-id"] as string | undefined,
      extraRules: fuzz > 0 ? fuzzRules(fuzz) : [],
      document,
      onStart: values.quiet ? undefined : (lines) => io.out(lines.join("\n")),
      ...transport.options,
      ...extra,
    });
  } catch (error) {
    if (error instanceof RunCannotStart) return cannotStart(error.message);
    throw error;
  }
  if (baseline) applyBaseline(run, baseline);
  if (!values.quiet) io.out(consoleReport(run));
  const verdict = { failOnInconclusive: Boolean(values["fail-on-inconclusive"]) };
  if (values.junit) writeFileSync(values.junit as string, junitReport(run));
  if (values.json) writeFileSync(values.json as string, jsonReport(run, verdict));
  if (values.html) writeFileSync(values.html as string, htmlReport(run, verdict));
  return { code: runFails(run, verdict) ? 1 : 0, run };
}

const CLEANUP_USAGE =
  "usage: agent-platform-conformance cleanup --ledger FILE --base-url URL --api-key KEY [--insecure | --ca FILE] [--retries N] [--timeout S]";

/** `cleanup`: puts back what a killed run left (cleanup.ts). */
async function cleanupMain(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CliIo,
  extra: Partial<RunOptions>,
): Promise<{ code: number }> {
  let values: Values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        ledger: OPTIONS.ledger,
        "base-url": OPTIONS["base-url"],
        "api-key": OPTIONS["api-key"],
        insecure: OPTIONS.insecure,
        ca: OPTIONS.ca,
        retries: OPTIONS.retries,
        timeout: OPTIONS.timeout,
        "rate-limit": OPTIONS["rate-limit"],
        help: OPTIONS.help,
      },
    }).values;
  } catch (error) {
    return (io.err(`conformance cleanup: bad options: ${(error as Error).message}\n${CLEANUP_USAGE}`), { code: 2 });
  }
  if (values.help) return (io.out(CLEANUP_USAGE), { code: 0 });
  const baseUrl = (values["base-url"] as string | undefined) ?? env.CONFORMANCE_BASE_URL;
  const apiKey = (values["api-key"] as string | undefined) ?? env.CONFORMANCE_API_KEY;
  const cannotStart = (line: string) => (io.err(`conformance cleanup: cannot start: ${line}`), { code: 2 });
  if (typeof values.ledger !== "string")
    return cannotStart("no --ledger FILE (the run printed its path in its first lines)");
  const problem = optionProblem(values, baseUrl, apiKey);
  if (problem) return cannotStart(problem);
  const transport = transportOptions(values);
  if ("problem" in transport) return cannotStart(transport.problem);
  try {
    const result = await cleanup(
      {
        ledgerPath: values.ledger,
        baseUrl: baseUrl!,
        apiKey: apiKey!,
        ...transport.options,
        ...extra,
        tls: tlsOf(values),
      },
      io.out,
    );
    return { code: result.code };
  } catch (error) {
    if (error instanceof CleanupCannotStart) return cannotStart(error.message);
    throw error;
  }
}

/** SIGINT and SIGTERM: the rule running puts back what it changed, reports are written, then exit 128 + signal. */
function interruptible(): { signal: AbortSignal; exitCode(): number | undefined } {
  const controller = new AbortController();
  let code: number | undefined;
  for (const [name, number] of [
    ["SIGINT", 2],
    ["SIGTERM", 15],
  ] as const) {
    process.on(name, () => {
      if (code !== undefined) process.exit(code);
      code = 128 + number;
      process.stderr.write(
        `conformance: ${name}: putting back what the current rule changed, then stopping (again to stop at once; the ledger file lists what is left)\n`,
      );
      controller.abort(new Error(name));
    });
  }
  return { signal: controller.signal, exitCode: () => code };
}

/** Run as a program: directly, or through an installed bin, which is a symlink to this file. */
function invokedDirectly(): boolean {
  try {
    return Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1]!)).href;
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  const interruption = interruptible();
  main(process.argv.slice(2), process.env, defaultIo, { signal: interruption.signal }).then(
    ({ code }) => process.exit(interruption.exitCode() ?? code),
    (error) => {
      process.stderr.write(`conformance: cannot start: ${(error as Error).stack ?? error}\n`);
      process.exit(2);
    },
  );
}
