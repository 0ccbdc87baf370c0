/**
 * The shell the mock's report commands share (`agent-platform-mock drift`, `agent-platform-mock coverage`):
 * their flags read strictly, one line and exit 2 for what stops a run (with a JUnit file saying why when
 * one was asked for), the mock's base URL, one GET of its control plane with the credentials given, and
 * the report files written. Each command brings its own flags, endpoint and reports.
 */
import { writeFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { detectTarget } from "./fixtures/control.js";
import { fetchAnswer, TargetUnreachable } from "./lib/http.js";
import { junitCannotStart } from "./report/junit.js";

/** What stops a run: the command answers it with exit 2 and this one line. */
export class CannotRun extends Error {}

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const defaultIo: CommandIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

export type Values = Record<string, string | boolean | undefined>;

/** The command's name (its lines start with it), its usage, and its flags (`help` among them). */
export interface MockCommand {
  prefix: string;
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
}

/** Reads the flags, answers --help, and turns a CannotRun of `run` into exit 2 with its one line. */
export async function runMockCommand(
  command: MockCommand,
  argv: string[],
  io: CommandIo,
  run: (values: Values) => Promise<number>,
): Promise<number> {
  let values: Values;
  try {
    values = parseArgs({ args: argv, strict: true, allowPositionals: false, options: command.options })
      .values as Values;
  } catch (error) {
    io.err(`${command.prefix}: bad flags: ${(error as Error).message.replace(/\s+/g, " ")} (see --help)`);
    return 2;
  }
  if (values.help) return (io.out(command.usage), 0);
  try {
    return await run(values);
  } catch (error) {
    if (!(error instanceof CannotRun)) throw error;
    const line = error.message.replace(/\s*\n\s*/g, " ");
    io.err(`${command.prefix}: cannot run: ${line}`);
    if (typeof values.junit === "string")
      try {
        writeFileSync(values.junit, junitCannotStart(line, { baseUrl: values.url as string | undefined }));
      } catch {
        // The one line above says what went wrong; a JUnit file that cannot be written adds nothing.
      }
    return 2;
  }
}

/** Writes each report asked for (--junit, --html, --json); a file that cannot be written stops the run. */
export function writeReports(values: Values, reports: Partial<Record<"junit" | "html" | "json", () => string>>): void {
  for (const [flag, content] of Object.entries(reports)) {
    const target = values[flag];
    if (typeof target !== "string") continue;
    try {
      writeFileSync(target, content());
    } catch (error) {
      throw new CannotRun(
        `--${flag} ${target} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
}

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

/**
 * GET of the mock's control plane (`url`: under `base`), with --control-token (or MOCK_CONTROL_TOKEN) and
 * --api-key; its 200 answer, or CannotRun saying whether the mock refused, answered an error, or is no mock.
 * `refusedHint` says which credential to pass; `errorHint` adds to the mock's own error, when there is one.
 */
export async function getFromMock(
  base: string,
  url: URL,
  values: Values,
  env: NodeJS.ProcessEnv,
  hints: { refused: string; error?: (status: number) => string },
): Promise<{ status: number; text: string; json: unknown }> {
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
  const asked = `GET ${url.pathname}${url.search}`;
  if (answer.status === 401 || answer.status === 403)
    throw new CannotRun(`the mock refused ${asked} with ${answer.status} (${answerMessage(answer)}): ${hints.refused}`);
  if (answer.status !== 200) {
    // From the kit's mock an error is about the request (an unknown workspace); from anything else, about the target.
    let detection;
    try {
      detection = await detectTarget(connection, undefined);
    } catch {
      detection = undefined;
    }
    if (detection?.kind !== "mock")
      throw new CannotRun(
        `${base} is not the kit's mock: ${asked} answered ${answer.status}${detection ? `, and ${detection.reason.replace(/; pass --target mock to override$/, "")}` : ""}`,
      );
    throw new CannotRun(
      `the mock answered ${asked} with ${answer.status}: ${answerMessage(answer)}${hints.error?.(answer.status) ?? ""}`,
    );
  }
  return answer;
}
