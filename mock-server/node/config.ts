/**
 * Options of `npm start`, from flags first, then environment variables, then defaults.
 * `--help` lists them all.
 */
import { parseArgs } from "node:util";
import { isScenario, SCENARIOS, type Scenario } from "../store/workspace.js";

export interface Option {
  flag: string;
  env: string;
  fallback: string;
  help: string;
  /** A switch: `--flag` alone, or its variable set to 1/true (then its value is "1" or ""). */
  boolean?: true;
  /** A value that may be left out: `--flag` alone means this value. */
  bare?: string;
}

export const OPTIONS: Option[] = [
  { flag: "port", env: "PORT", fallback: "4010", help: "port to listen on" },
  {
    flag: "spec",
    env: "MOCK_SPEC",
    fallback: "",
    help: "serve another OpenAPI 3.0/3.1 document (YAML or JSON file) with the generic layer alone, under its first server URL's path",
  },
  { flag: "host", env: "HOST", fallback: "127.0.0.1", help: "interface to bind" },
  { flag: "api-key", env: "MOCK_API_KEY", fallback: "mock-api-key", help: "API key of the default workspace" },
  { flag: "seed", env: "MOCK_SEED", fallback: "1", help: "faker seed of the default workspace" },
  {
    flag: "scenario",
    env: "MOCK_SCENARIO",
    fallback: "",
    help: `seed the default workspace with this scenario instead of the usual world: ${SCENARIOS.join(", ")}`,
  },
  {
    flag: "clock",
    env: "MOCK_CLOCK",
    fallback: "real",
    help: "real (wall clock) or virtual (moves only on POST /__mock/clock/advance)",
  },
  {
    flag: "clock-speed",
    env: "MOCK_CLOCK_SPEED",
    fallback: "1",
    help: "real clock: virtual seconds per wall-clock second",
  },
  {
    flag: "clock-start",
    env: "MOCK_CLOCK_START",
    fallback: "",
    help: "ISO 8601 start time (default: now, or 2026-11-01T12:00:00Z when virtual)",
  },
  {
    flag: "validate-responses",
    env: "MOCK_VALIDATE_RESPONSES",
    fallback: "",
    help: "on|off: check every response against the spec (default on, off when NODE_ENV=production)",
  },
  {
    flag: "log-format",
    env: "MOCK_LOG_FORMAT",
    fallback: "pretty",
    help: "pretty|json|off: one line per request on stdout",
  },
  { flag: "journal-size", env: "MOCK_JOURNAL_SIZE", fallback: "500", help: "requests kept by GET /__mock/requests" },
  {
    flag: "outbox-size",
    env: "MOCK_OUTBOX_SIZE",
    fallback: "1000",
    help: "webhook deliveries kept by GET /__mock/webhook-deliveries",
  },
  {
    flag: "state-file",
    env: "MOCK_STATE_FILE",
    fallback: "",
    help: "persist state to this file (saved on exit and every --save-interval seconds)",
  },
  {
    flag: "save-interval",
    env: "MOCK_SAVE_INTERVAL",
    fallback: "10",
    help: "seconds between state saves with --state-file",
  },
  {
    flag: "request-timeout",
    env: "MOCK_REQUEST_TIMEOUT",
    fallback: "120",
    help: "seconds a client has to send a whole request (408 after)",
  },
  {
    flag: "shutdown-grace",
    env: "MOCK_SHUTDOWN_GRACE",
    fallback: "10",
    help: "seconds requests in flight may take to finish on SIGTERM/SIGINT",
  },
  {
    flag: "webhook-timeout",
    env: "MOCK_WEBHOOK_TIMEOUT",
    fallback: "5",
    help: "seconds a webhook receiver has to answer one delivery attempt",
  },
  {
    flag: "webhook-attempts",
    env: "MOCK_WEBHOOK_ATTEMPTS",
    fallback: "6",
    help: "delivery attempts in all before a delivery is marked failed",
  },
  {
    flag: "webhook-backoff",
    env: "MOCK_WEBHOOK_BACKOFF",
    fallback: "10",
    help: "seconds (clock time) before the first retry; doubled for each next one",
  },
  {
    flag: "store",
    env: "MOCK_STORE",
    fallback: "",
    help: "redis://HOST:PORT[/DB]: keep all state in Redis, shared by every mock started with it",
  },
  {
    flag: "workers",
    env: "MOCK_WORKERS",
    fallback: "1",
    help: "processes serving the one port (node:cluster); more than 1 needs --store",
  },
  {
    flag: "upstream",
    env: "MOCK_UPSTREAM",
    fallback: "",
    help: "stand in front of this deployment (base URL): /v1 requests go there, checked for drift (GET /__mock/drift)",
  },
  {
    flag: "upstream-api-key",
    env: "MOCK_UPSTREAM_API_KEY",
    fallback: "",
    help: "X-API-Key sent to the upstream in place of the client's (never printed)",
  },
  {
    flag: "upstream-ca",
    env: "MOCK_UPSTREAM_CA",
    fallback: "",
    help: "PEM file of the CA that signs the upstream's certificate",
  },
  {
    flag: "upstream-timeout",
    env: "MOCK_UPSTREAM_TIMEOUT",
    fallback: "30",
    help: "seconds the upstream may take to start answering or pause (504 after)",
  },
  {
    flag: "route",
    env: "MOCK_ROUTE",
    fallback: "",
    help: "with --upstream: OP=mock|upstream|fallback,... (*=MODE sets the default) or a JSON file of the same",
  },
  {
    flag: "record",
    env: "MOCK_RECORD",
    fallback: "",
    bare: "recorded",
    help: "with --upstream: keep every record the upstream returns in this workspace (default name: recorded)",
  },
  {
    flag: "control-token",
    env: "MOCK_CONTROL_TOKEN",
    fallback: "",
    help: "the /__mock control plane then needs Authorization: Bearer <token> (or a workspace's X-API-Key for that workspace); never printed",
  },
  {
    flag: "insecure-control",
    env: "MOCK_INSECURE_CONTROL",
    fallback: "",
    boolean: true,
    help: "listen on a non-loopback --host without a control token (anyone who reaches it controls every workspace)",
  },
  {
    flag: "watch",
    env: "MOCK_WATCH",
    fallback: "",
    boolean: true,
    help: "regenerate and reload on a change under spec/, keeping the state that still fits (kit repository only)",
  },
];

export function helpText(): string {
  const rows = OPTIONS.map(
    (o) => `  --${o.flag.padEnd(20)} ${o.env.padEnd(24)} ${o.help}${o.fallback ? ` (default ${o.fallback})` : ""}`,
  );
  return [
    "Usage: agent-platform-mock [options]   (npm start -- [options] in the kit's repo)",
    "",
    "  flag                   environment",
    ...rows,
    "  --help                 this text",
    "",
  ].join("\n");
}

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): { help: boolean; values: Record<string, string> } {
  const { values } = parseArgs({
    args: withBareValues(argv),
    options: {
      help: { type: "boolean" },
      ...Object.fromEntries(
        OPTIONS.map((o) => [o.flag, { type: o.boolean ? ("boolean" as const) : ("string" as const) }]),
      ),
    },
    strict: true,
  });
  const resolved: Record<string, string> = {};
  const given = values as Record<string, string | boolean | undefined>;
  for (const o of OPTIONS) {
    if (o.boolean) resolved[o.flag] = given[o.flag] === true || switchOn(o, env[o.env]) ? "1" : "";
    else resolved[o.flag] = (given[o.flag] as string | undefined) ?? env[o.env] ?? o.fallback;
  }
  return { help: Boolean(values.help), values: resolved };
}

/** `--record` alone (last, or before another flag) is `--record=recorded`: parseArgs wants a value. */
function withBareValues(argv: string[]): string[] {
  return argv.map((arg, i) => {
    const option = OPTIONS.find((o) => o.bare !== undefined && arg === `--${o.flag}`);
    const next = argv[i + 1];
    return option && (next === undefined || next.startsWith("-")) ? `--${option.flag}=${option.bare}` : arg;
  });
}

function switchOn(option: Option, value: string | undefined): boolean {
  if (value === undefined || /^(|0|false|off|no)$/i.test(value)) return false;
  if (/^(1|true|on|yes)$/i.test(value)) return true;
  throw new Error(`${option.env} must be 1 or 0, got "${value}"`);
}

export function integerOption(values: Record<string, string>, flag: string, min: number, max: number): number {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${flag} must be an integer from ${min} to ${max}, got "${values[flag]}"`);
  return n;
}

/** A number of seconds, fractions allowed. */
export function secondsOption(values: Record<string, string>, flag: string, min: number, max: number): number {
  const n = Number(values[flag]);
  if (values[flag] === "" || !Number.isFinite(n) || n < min || n > max)
    throw new Error(`--${flag} must be a number of seconds from ${min} to ${max}, got "${values[flag]}"`);
  return n;
}

/** One of a fixed set of words. */
export function choiceOption<T extends string>(values: Record<string, string>, flag: string, choices: readonly T[]): T {
  const value = values[flag] as T;
  if (!choices.includes(value))
    throw new Error(`--${flag} must be ${choices.join(", ").replace(/, (?=[^,]*$)/, " or ")}, got "${values[flag]}"`);
  return value;
}

/** --scenario: absent when not given; a name the mock does not know is refused with the known ones. */
export function scenarioOption(values: Record<string, string>): Scenario | undefined {
  const name = values.scenario;
  if (name === "") return undefined;
  if (!isScenario(name)) throw new Error(`--scenario must be one of ${SCENARIOS.join(", ")}, got "${name}"`);
  return name;
}
