/**
 * agent-platform-mock drift --url URL [options]   (see DRIFT_USAGE)
 * Reads the drift findings of the mock's upstream door (GET {URL}/__mock/drift), prints them one line
 * per kind, writes the suite's reports, and exits 0: nothing counts at the chosen level, 1: findings
 * count, 2: it cannot run (bad flags, the mock unreachable, not the kit's mock; one line on stderr, and
 * with --junit a file holding that one error).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { detectTarget } from "../fixtures/control.js";
import { fetchAnswer, TargetUnreachable } from "../lib/http.js";
import type { Level } from "../lib/schemas.js";
import { runFails } from "../report/group.js";
import { htmlReport } from "../report/html.js";
import { junitCannotStart, junitReport } from "../report/junit.js";
import { readFindings, type FailOn } from "./finding.js";
import { driftConsoleReport, driftJsonReport, driftRunResult, type DriftRun } from "./findings-report.js";

export const DRIFT_USAGE = `usage: agent-platform-mock drift --url URL [options]
  Reports the drift findings of a mock running in front of a real deployment (agent-platform-mock
  --upstream URL): what the upstream answered, or was sent, that the spec does not allow. Reads
  GET {URL}/__mock/drift, prints one line per kind of finding (operation, side, rule) with its count
  and one example, and writes the conformance suite's reports, one testcase per kind.

  --url URL                the mock's base URL, e.g. http://127.0.0.1:4010 (not .../v1, not .../__mock)
  --fail-on documented|assumed
                           what fails the run (default documented): documented findings only, or
                           both levels; response findings only unless --include-requests
  --include-requests       request findings (what clients sent the upstream) count too
  --junit FILE             JUnit XML: one testcase per kind, a <failure> per counted kind, the others
                           <skipped> (written on exit 2 too, with the one error)
  --html FILE              one self-contained page: findings by cause, the exchange as a curl line
  --json FILE              the suite's JSON report, plus "drift" (the kinds) and "findings" (all of them)
  --workspace ID           only findings of this workspace (the endpoint's workspaceId filter)
  --operation ID           only findings of this operation (the endpoint's operationId filter)
  --control-token T        Authorization: Bearer T, for a mock started with --control-token
                           (default: MOCK_CONTROL_TOKEN)
  --api-key KEY            X-API-Key of one workspace: that workspace's findings, without the token
  --help                   this text

  Exit 0: no finding counts. 1: findings count. 2: cannot run (bad flags, the mock unreachable, not the
  kit's mock, the control plane refused).
  e.g. agent-platform-mock drift --url http://127.0.0.1:4010 --junit drift.xml --html drift.html`;

export interface DriftIo {
  out(text: string): void;
  err(text: string): void;
}

const defaultIo: DriftIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

const OPTIONS = {
  url: { type: "string" },
  junit: { type: "string" },
  html: { type: "string" },
  json: { type: "string" },
  "fail-on": { type: "string" },
  "include-requests": { type: "boolean" },
  workspace: { type: "string" },
  operation: { type: "string" },
  "control-token": { type: "string" },
  "api-key": { type: "string" },
  help: { type: "boolean" },
} as const;

const PREFIX = "agent-platform-mock drift";

class CannotRun extends Error {}

/** The mock's base URL from --url, or why it is not one. */
export function mockBaseUrl(raw: string | undefined): string {
  if (!raw) throw new CannotRun("no --url (the mock's base URL, e.g. http://127.0.0.1:4010)");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CannotRun(`--url ${raw} is not a URL (e.g. http://127.0.0.1:4010)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CannotRun(`--url ${raw} is not an http(s) URL`);
  const path = url.pathname.replace(/\/+$/, "");
  const extra = /(\/v1|\/__mock(\/.*)?)$/.exec(path);
  if (extra)
    throw new CannotRun(
      `--url ${raw} names the mock's ${extra[1].startsWith("/v1") ? "API (/v1)" : "control plane (/__mock)"}; give its base URL: ${url.origin}${path.slice(0, extra.index)}`,
    );
  return `${url.origin}${path}`;
}

/** The 2.2 error body's message, or the start of the text. */
function answerMessage(answer: { text: string; json: unknown }): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return (typeof message === "string" ? message : answer.text.slice(0, 160)).replace(/\s+/g, " ").trim();
}

/** GET {base}/__mock/drift, with the filters and credentials given; the answer's findings or CannotRun. */
async function fetchFindings(base: string, values: Values, env: NodeJS.ProcessEnv) {
  const url = new URL(`${base}/__mock/drift`);
  if (values.workspace) url.searchParams.set("workspaceId", values.workspace as string);
  if (values.operation) url.searchParams.set("operationId", values.operation as string);
  const token = (values["control-token"] as string | undefined) ?? env.MOCK_CONTROL_TOKEN;
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (values["api-key"]) headers["X-API-Key"] = values["api-key"] as string;
  const connection = { baseUrl: base };
  let answer;
  try {
    answer = await fetchAnswer(connection, url.toString(), { headers });
  } catch (error) {
    if (error instanceof TargetUnreachable) throw new CannotRun(`the mock is unreachable: ${error.message}`);
    throw error;
  }
  if (answer.status === 401 || answer.status === 403)
    throw new CannotRun(
      `the mock refused GET /__mock/drift with ${answer.status} (${answerMessage(answer)}): pass --control-token T (or MOCK_CONTROL_TOKEN), or --api-key KEY for one workspace's findings`,
    );
  if (answer.status !== 200) {
    // A 404 from the kit's mock is about the request (an unknown workspace, a kit without the door); from anything else, about the target.
    let detection;
    try {
      detection = await detectTarget(connection, undefined);
    } catch {
      detection = undefined;
    }
    if (detection?.kind !== "mock")
      throw new CannotRun(
        `${base} is not the kit's mock: GET /__mock/drift answered ${answer.status}${detection ? `, and ${detection.reason.replace(/; pass --target mock to override$/, "")}` : ""}`,
      );
    throw new CannotRun(
      `the mock answered GET ${url.pathname}${url.search} with ${answer.status}: ${answerMessage(answer)}${answer.status === 404 && !values.workspace && !values.operation ? " (a kit without the upstream door?)" : ""}`,
    );
  }
  const read = readFindings(answer.json);
  if ("problem" in read)
    throw new CannotRun(
      `${base} is not the kit's mock, or not a version this command reads: GET /__mock/drift: ${read.problem}`,
    );
  return { findings: read.findings, served: answer.json as unknown[] };
}

type Values = Record<string, string | boolean | undefined>;

export async function driftMain(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: DriftIo = defaultIo,
): Promise<number> {
  let values: Values;
  try {
    values = parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS }).values;
  } catch (error) {
    io.err(`${PREFIX}: bad flags: ${(error as Error).message.replace(/\s+/g, " ")} (see --help)`);
    return 2;
  }
  if (values.help) return (io.out(DRIFT_USAGE), 0);
  const cannotRun = (message: string) => {
    const line = message.replace(/\s*\n\s*/g, " ");
    io.err(`${PREFIX}: cannot run: ${line}`);
    if (typeof values.junit === "string")
      try {
        writeFileSync(values.junit, junitCannotStart(line, { baseUrl: values.url as string | undefined }));
      } catch {
        // The one line above says what went wrong; a JUnit file that cannot be written adds nothing.
      }
    return 2;
  };
  try {
    const failOnLevel = (values["fail-on"] as string | undefined) ?? "documented";
    if (failOnLevel !== "documented" && failOnLevel !== "assumed")
      throw new CannotRun(`--fail-on must be documented or assumed, not ${failOnLevel}`);
    const baseUrl = mockBaseUrl(values.url as string | undefined);
    const failOn: FailOn = { level: failOnLevel as Level, includeRequests: Boolean(values["include-requests"]) };
    const started = Date.now();
    const { findings, served } = await fetchFindings(baseUrl, values, env);
    const drift: DriftRun = {
      baseUrl,
      failOn,
      findings,
      served,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
    const run = driftRunResult(drift);
    const write = (flag: "junit" | "html" | "json", content: () => string) => {
      const file = values[flag];
      if (typeof file !== "string") return;
      try {
        writeFileSync(file, content());
      } catch (error) {
        throw new CannotRun(
          `--${flag} ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        );
      }
    };
    write("junit", () => junitReport(run));
    write("html", () => htmlReport(run));
    write("json", () => driftJsonReport(drift, run));
    io.out(driftConsoleReport(drift));
    return runFails(run) ? 1 : 0;
  } catch (error) {
    if (error instanceof CannotRun) return cannotRun(error.message);
    throw error;
  }
}
