/**
 * The options of `agent-platform-conformance parity`, read and checked before any request: two
 * targets with their keys, the suite's selection and level, and the gateway options the suite takes
 * (the same for both targets), checked by the same code as the suite's (run-options.ts).
 */
import { parseArgs } from "node:util";
import type { RunOptions } from "../lib/runner.js";
import type { Level } from "../lib/schemas.js";
import { gatewayOptions, tlsOf, tlsProblem, type OptionValues } from "../run-options.js";

export const PARITY_USAGE = `usage: agent-platform-conformance parity --base-url A --api-key KA --against B --against-api-key KB [options]
  Runs the suite and parity's probes against both targets and lists where they differ: rule outcomes, the
  status for each kind of invalid input, 403 or 404 across workspaces, defaults echoed, list order, the
  shape of error messages, fields present. Data the two hold is normalised away: alike targets differ in nothing.
  --second-api-key K --against-second-api-key K   keys of another workspace on A and on B: the isolation probes
  --level documented|assumed   the rules compared (default assumed: every rule, on both targets)
  --only PATTERN               the suite's rules whose group/id contains PATTERN, or matches /regex/ (probes all run)
  --read-only                  only requests that change nothing, on both targets
  --json FILE --html FILE      { differences: [{ operationId, kind, a, b, rule? }], a, b, summary } | one self-contained page
  --insecure | --ca FILE       accept any certificate | trust this CA (PEM) as well, on both targets
  --rate-limit --concurrency --retries --timeout --max-wait   as for the suite, each target paced on its own
  --quiet                      no progress lines, the differences only
  Exit 0: no difference. 1: differences. 2: cannot run (bad options, a target unreachable, a key refused).
environment: CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY, CONFORMANCE_SECOND_API_KEY, CONFORMANCE_AGAINST_URL,
  CONFORMANCE_AGAINST_API_KEY, CONFORMANCE_AGAINST_SECOND_API_KEY`;

const OPTIONS = {
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "second-api-key": { type: "string" },
  against: { type: "string" },
  "against-api-key": { type: "string" },
  "against-second-api-key": { type: "string" },
  level: { type: "string" },
  only: { type: "string" },
  "read-only": { type: "boolean" },
  json: { type: "string" },
  html: { type: "string" },
  insecure: { type: "boolean" },
  ca: { type: "string" },
  "rate-limit": { type: "string" },
  concurrency: { type: "string" },
  retries: { type: "string" },
  timeout: { type: "string" },
  "max-wait": { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean" },
} as const;

/** One of the two targets. */
export interface SideOptions {
  /** "A" or "B", as every report names them. */
  name: "A" | "B";
  baseUrl: string;
  apiKey: string;
  secondApiKey?: string;
  /** The option that gave the key, for a refusal's one line. */
  keyOption: string;
}

export interface ParityOptions {
  sides: [SideOptions, SideOptions];
  level: Level;
  only?: string;
  readOnly: boolean;
  json?: string;
  html?: string;
  quiet: boolean;
  /** TLS and the gateway options, the same for both targets. */
  run: Pick<RunOptions, "tls" | "rateLimit" | "concurrency" | "retries" | "timeoutMs" | "maxWaitMs">;
}

export type Parsed = { help: true } | { options: ParityOptions } | { problem: string };

type Values = OptionValues;

/** The options, or the first problem with them (one line, no secret in it). */
export function parseParityArgs(argv: string[], env: NodeJS.ProcessEnv): Parsed {
  let values: Values;
  try {
    values = parseArgs({ args: argv, strict: true, options: OPTIONS }).values;
  } catch (error) {
    return { problem: `bad options: ${(error as Error).message}` };
  }
  if (values.help) return { help: true };
  const str = (name: string, envName: string) => (values[name] as string | undefined) ?? env[envName];
  // Never BASE_URL: vitest sets that one for its own purposes.
  const a = { url: str("base-url", "CONFORMANCE_BASE_URL"), key: str("api-key", "CONFORMANCE_API_KEY") };
  const b = {
    url: str("against", "CONFORMANCE_AGAINST_URL"),
    key: str("against-api-key", "CONFORMANCE_AGAINST_API_KEY"),
  };
  if (!a.url) return { problem: "no --base-url A (or CONFORMANCE_BASE_URL)" };
  if (!b.url) return { problem: "no --against B (or CONFORMANCE_AGAINST_URL): the target to compare A with" };
  for (const [option, url] of [
    ["--base-url", a.url],
    ["--against", b.url],
  ])
    if (!/^https?:\/\/[^/]+/.test(url)) return { problem: `${option} ${url} is not an http(s) URL` };
  if (!a.key) return { problem: "no --api-key (or CONFORMANCE_API_KEY): the key of A" };
  if (!b.key) return { problem: "no --against-api-key (or CONFORMANCE_AGAINST_API_KEY): the key of B" };
  const level = (values.level as string | undefined) ?? "assumed";
  if (level !== "documented" && level !== "assumed")
    return { problem: `--level must be documented or assumed, not ${level}` };
  const tls = tlsProblem(values);
  if (tls) return { problem: tls };
  const gateway = gatewayOptions(values);
  if ("problem" in gateway) return gateway;
  return {
    options: {
      sides: [
        {
          name: "A",
          baseUrl: a.url.replace(/\/+$/, ""),
          apiKey: a.key,
          secondApiKey: str("second-api-key", "CONFORMANCE_SECOND_API_KEY"),
          keyOption: "--api-key",
        },
        {
          name: "B",
          baseUrl: b.url.replace(/\/+$/, ""),
          apiKey: b.key,
          secondApiKey: str("against-second-api-key", "CONFORMANCE_AGAINST_SECOND_API_KEY"),
          keyOption: "--against-api-key",
        },
      ],
      level,
      only: values.only as string | undefined,
      readOnly: Boolean(values["read-only"]),
      json: values.json as string | undefined,
      html: values.html as string | undefined,
      quiet: Boolean(values.quiet),
      run: { tls: tlsOf(values), ...gateway.options },
    },
  };
}
