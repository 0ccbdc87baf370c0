/**
 * agent-platform-mock drift --url URL [options]   (see DRIFT_USAGE)
 * Reads the drift findings of the mock's upstream door (GET {URL}/__mock/drift), prints them one line
 * per kind, writes the suite's reports, and exits 0: nothing counts at the chosen level, 1: findings
 * count, 2: it cannot run (bad flags, the mock unreachable, not the kit's mock; one line on stderr, and
 * with --junit a file holding that one error).
 */
import {
  CannotRun,
  type CommandIo,
  defaultIo,
  getFromMock,
  mockBaseUrl,
  runMockCommand,
  type Values,
  writeReports,
} from "../mock-command.js";
import type { Level } from "../lib/schemas.js";
import { runFails } from "../report/group.js";
import { htmlReport } from "../report/html.js";
import { junitReport } from "../report/junit.js";
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

export type DriftIo = CommandIo;

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

/** GET {base}/__mock/drift, with the filters and credentials given; the answer's findings or CannotRun. */
async function fetchFindings(base: string, values: Values, env: NodeJS.ProcessEnv) {
  const url = new URL(`${base}/__mock/drift`);
  if (values.workspace) url.searchParams.set("workspaceId", values.workspace as string);
  if (values.operation) url.searchParams.set("operationId", values.operation as string);
  const answer = await getFromMock(base, url, values, env, {
    refused: "pass --control-token T (or MOCK_CONTROL_TOKEN), or --api-key KEY for one workspace's findings",
    error: (status) =>
      status === 404 && !values.workspace && !values.operation ? " (a kit without the upstream door?)" : "",
  });
  const read = readFindings(answer.json);
  if ("problem" in read)
    throw new CannotRun(
      `${base} is not the kit's mock, or not a version this command reads: GET /__mock/drift: ${read.problem}`,
    );
  return { findings: read.findings, served: answer.json as unknown[] };
}

export async function driftMain(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: DriftIo = defaultIo,
): Promise<number> {
  return runMockCommand({ prefix: PREFIX, usage: DRIFT_USAGE, options: OPTIONS }, argv, io, async (values) => {
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
    writeReports(values, {
      junit: () => junitReport(run),
      html: () => htmlReport(run),
      json: () => driftJsonReport(drift, run),
    });
    io.out(driftConsoleReport(drift));
    return runFails(run) ? 1 : 0;
  });
}
