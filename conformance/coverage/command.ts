/**
 * agent-platform-mock coverage --url URL | --from FILE [options]   (see COVERAGE_USAGE)
 * Which documented response variants a consumer (a workspace) has received: read from the mock
 * (GET {URL}/__mock/coverage) or computed here from saved traffic (a HAR, or the journal's JSON) with the
 * same catalogue the mock uses (mock-server/core/coverage/). Prints the percent and every variant never
 * received with how to provoke it, writes the reports, and exits 0 at or above --fail-under, 1 below,
 * 2 when it cannot run (one line on stderr, and with --junit a file holding that one error).
 */
import { readFileSync } from "node:fs";
import generatedDocument from "../../generated/openapi-document.js";
import { variantCatalogue, type VariantDef } from "../../mock-server/core/coverage/catalogue.js";
import { observedVariants } from "../../mock-server/core/coverage/observe.js";
import { coverageSummary } from "../../mock-server/core/coverage/summary.js";
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
import { readCoverage } from "./answer.js";
import {
  coverageConsoleReport,
  coverageHtmlReport,
  coverageJsonReport,
  coverageJunitReport,
  passes,
  type CoverageRun,
  type NotJudged,
} from "./coverage-report.js";
import { readTraffic, type Traffic } from "./traffic.js";

export const COVERAGE_USAGE = `usage: agent-platform-mock coverage --url URL [options]
       agent-platform-mock coverage --from FILE [options]
  Which documented response variants a consumer (one workspace: one test suite, one app) has received:
  every operation with every documented status, the page shapes of the lists (empty, first, middle,
  last), every enum value and both sides (null, set) of every nullable field in the answers of the
  reading operations, and the webhook deliveries of each event kind. Prints the percent, then every
  variant never received, by operation, with how to provoke it.

  --url URL                the mock's base URL, e.g. http://127.0.0.1:4010 (not .../v1, not .../__mock):
                           reads GET {URL}/__mock/coverage
  --from FILE              offline, from saved traffic: a HAR 1.2 (GET /__mock/requests.har, or a
                           browser's devtools) or the journal's JSON array (GET /__mock/requests). A
                           journal holds no bodies, so only statuses are judged from it; webhook
                           deliveries are never in the file and are left out of the percent
  --workspace ID           the consumer's workspace (default: the mock's default workspace; offline:
                           every entry of the file, or only those of ID)
  --host HOST[:PORT]       offline: only entries sent to this host (a browser's HAR holds many)
  --fail-under PCT         fail (exit 1) below this percent (default 0)
  --junit FILE             JUnit XML: one testcase per variant, a <failure> with its howTo when never
                           received (written on exit 2 too, with the one error)
  --html FILE              one self-contained page: the percent, each operation's variants, how to
                           provoke each one missing
  --json FILE              with --url, exactly what the endpoint returned; offline, the same shape
                           (workspaceId "*" for every workspace) plus source, notes and notJudged
  --control-token T        Authorization: Bearer T, for a mock started with --control-token
                           (default: MOCK_CONTROL_TOKEN)
  --api-key KEY            X-API-Key of the workspace: its coverage, without the token
  --help                   this text

  Exit 0: at or above --fail-under. 1: below. 2: cannot run (bad flags, the mock unreachable, not the
  kit's mock, the control plane refused, a file that is not a HAR or a journal).
  e.g. agent-platform-mock coverage --url http://127.0.0.1:4010 --workspace ws_1 --fail-under 80 --html coverage.html`;

export type CoverageIo = CommandIo;

const OPTIONS = {
  url: { type: "string" },
  from: { type: "string" },
  workspace: { type: "string" },
  host: { type: "string" },
  "fail-under": { type: "string" },
  junit: { type: "string" },
  html: { type: "string" },
  json: { type: "string" },
  "control-token": { type: "string" },
  "api-key": { type: "string" },
  help: { type: "boolean" },
} as const;

const PREFIX = "agent-platform-mock coverage";

/** --fail-under as a number from 0 to 100. */
function failUnderOf(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < 0 || value > 100)
    throw new CannotRun(`--fail-under must be a percent from 0 to 100, not ${JSON.stringify(raw)}`);
  return value;
}

/** GET {base}/__mock/coverage for the workspace: the coverage and the answer's text, or CannotRun. */
async function fetchCoverage(base: string, values: Values, env: NodeJS.ProcessEnv) {
  const url = new URL(`${base}/__mock/coverage`);
  if (values.workspace) url.searchParams.set("workspaceId", values.workspace as string);
  const asked = `GET ${url.pathname}${url.search}`;
  const answer = await getFromMock(base, url, values, env, {
    refused: "pass --control-token T (or MOCK_CONTROL_TOKEN), or --api-key KEY of the workspace",
  });
  const read = readCoverage(answer.json);
  if ("problem" in read)
    throw new CannotRun(
      `${base} is not the kit's mock, or not a version this command reads: ${asked}: ${read.problem}`,
    );
  return { coverage: read.coverage, text: answer.text, source: `${base} (${asked})` };
}

const NOT_IN_FILES = "webhook deliveries are in no HAR or journal: GET /__mock/coverage judges them";
const NO_BODIES = "the journal holds no bodies: a HAR (GET /__mock/requests.har) shows them";

/** What a file's traffic shows, computed with the mock's own catalogue; the notes say what it could not tell. */
function fileCoverage(file: string, values: Values): Omit<CoverageRun, "failUnder" | "startedAt" | "durationMs"> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CannotRun(
      `--from ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const catalogue = variantCatalogue(generatedDocument);
  const workspace = values.workspace as string | undefined;
  const read = readTraffic(text, catalogue, { workspace, host: values.host as string | undefined }, file);
  if ("problem" in read) throw new CannotRun(`--from ${file} is not traffic this command reads: ${read.problem}`);
  const seen = new Set<string>();
  for (const answer of read.answers) for (const key of observedVariants(catalogue, answer)) seen.add(key);
  const judged = (v: VariantDef) => v.kind !== "webhook" && (read.format === "har" || v.kind === "status");
  const workspaceId =
    workspace ?? (read.workspaces.length === 1 && read.withoutWorkspace === 0 ? read.workspaces[0] : "*");
  const notJudged: NotJudged[] = catalogue.variants
    .filter((v) => !judged(v))
    .map((v) => ({
      operationId: v.operationId,
      kind: v.kind,
      value: v.value,
      howTo: v.howTo,
      reason: v.kind === "webhook" ? NOT_IN_FILES : NO_BODIES,
    }));
  return {
    source: `${file} (${read.format === "har" ? "HAR" : "the journal's JSON"}, ${read.answers.length} of ${read.entries} entries are answers of the API)`,
    coverage: coverageSummary(catalogue, workspaceId, seen, judged),
    notes: fileNotes(read, workspace, values.host as string | undefined, notJudged),
    notJudged,
  };
}

function fileNotes(read: Traffic, workspace: string | undefined, host: string | undefined, notJudged: NotJudged[]) {
  const notes: string[] = [];
  const webhooks = notJudged.filter((v) => v.kind === "webhook").length;
  if (read.format === "journal")
    notes.push(
      `the journal holds no bodies: only status variants are judged; ${notJudged.length - webhooks} page, enum and nullable variants are left out of the percent (a HAR, GET /__mock/requests.har, has them)`,
    );
  if (webhooks > 0)
    notes.push(`webhook deliveries cannot be judged offline: ${webhooks} webhook variants are left out of the percent`);
  if (read.format === "har" && read.withoutBody > 0)
    notes.push(
      `${read.withoutBody} answers have no JSON body in the file (cut, binary or not saved): only their status counts`,
    );
  const { notApi, otherHost, otherWorkspace, noAnswer } = read.left;
  const left = [
    notApi > 0 ? `${notApi} not requests to the API's operations` : "",
    otherHost > 0 ? `${otherHost} sent to another host than ${host}` : "",
    otherWorkspace > 0 ? `${otherWorkspace} of another workspace than ${workspace}` : "",
    noAnswer > 0 ? `${noAnswer} that got no answer` : "",
  ].filter(Boolean);
  if (left.length > 0) notes.push(`left out: ${left.join(", ")}`);
  if (!host && read.hosts.length > 1)
    notes.push(`answers from ${read.hosts.length} hosts are counted (${read.hosts.join(", ")}): --host keeps one`);
  if (workspace !== undefined && read.answers.length === 0 && read.withoutWorkspace > 0)
    notes.push(
      `${read.withoutWorkspace} entries name no workspace (a browser's HAR does not): without --workspace they count`,
    );
  if (read.answers.length === 0) notes.push("the file holds no answer of the API");
  return notes;
}

export async function coverageMain(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CoverageIo = defaultIo,
): Promise<number> {
  return runMockCommand({ prefix: PREFIX, usage: COVERAGE_USAGE, options: OPTIONS }, argv, io, async (values) => {
    const failUnder = failUnderOf(values["fail-under"] as string | undefined);
    const file = values.from as string | undefined;
    if (file !== undefined && values.url !== undefined) throw new CannotRun("give --url or --from, not both");
    if (file === undefined && values.url === undefined)
      throw new CannotRun(
        "no --url (the mock's base URL, e.g. http://127.0.0.1:4010) and no --from FILE (a HAR or the journal's JSON)",
      );
    if (file === undefined && values.host !== undefined)
      throw new CannotRun("--host reads a file's entries: it goes with --from");
    const started = Date.now();
    let run: CoverageRun;
    let served: string | undefined;
    if (file !== undefined) {
      run = { ...fileCoverage(file, values), failUnder, startedAt: new Date(started).toISOString(), durationMs: 0 };
    } else {
      const fetched = await fetchCoverage(mockBaseUrl(values.url as string), values, env);
      served = fetched.text;
      run = {
        source: fetched.source,
        coverage: fetched.coverage,
        failUnder,
        notes: [],
        notJudged: [],
        startedAt: new Date(started).toISOString(),
        durationMs: 0,
      };
    }
    run.durationMs = Date.now() - started;
    writeReports(values, {
      junit: () => coverageJunitReport(run),
      html: () => coverageHtmlReport(run),
      json: () => served ?? coverageJsonReport(run),
    });
    io.out(coverageConsoleReport(run));
    return passes(run) ? 0 : 1;
  });
}
