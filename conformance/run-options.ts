/**
 * Options the suite and the commands built on it (parity) read alike: the gateway's pace, retries and
 * timeouts, and the TLS trust. One place, so a bad value gets the same one line from each command.
 */
import { readFileSync } from "node:fs";
import type { RunOptions } from "./lib/runner.js";
import { parseRateLimit } from "./transport/retry-after.js";

export type OptionValues = Record<string, string | boolean | undefined>;

export type GatewayOptions = Pick<RunOptions, "rateLimit" | "concurrency" | "retries" | "timeoutMs" | "maxWaitMs">;

/** --rate-limit, --concurrency, --retries, --timeout (s), --max-wait (s); or the first problem with them. */
export function gatewayOptions(values: OptionValues): { options: GatewayOptions } | { problem: string } {
  const rateLimit = parseRateLimit(String(values["rate-limit"] ?? "auto"));
  if (!rateLimit)
    return { problem: `--rate-limit must be auto, N/s or N/m (e.g. 20/s, 600/m), not ${values["rate-limit"]}` };
  const number = (name: string, min: number, integer: boolean): number | undefined | string => {
    if (values[name] === undefined) return undefined;
    const n = Number(values[name]);
    return Number.isFinite(n) && n >= min && (!integer || Number.isInteger(n))
      ? n
      : `--${name} must be ${integer ? "a whole number" : "a number"} of at least ${min}, not ${values[name]}`;
  };
  const concurrency = number("concurrency", 1, true);
  const retries = number("retries", 0, true);
  const timeout = number("timeout", 0.001, false);
  const maxWait = number("max-wait", 0, false);
  const problem = [concurrency, retries, timeout, maxWait].find((v) => typeof v === "string");
  if (typeof problem === "string") return { problem };
  return {
    options: {
      rateLimit,
      concurrency: concurrency as number | undefined,
      retries: retries as number | undefined,
      timeoutMs: timeout === undefined ? undefined : (timeout as number) * 1000,
      maxWaitMs: maxWait === undefined ? undefined : (maxWait as number) * 1000,
    },
  };
}

/** --insecure or --ca FILE (a readable PEM), never both: the problem, if any. */
export function tlsProblem(values: OptionValues): string | undefined {
  if (values.insecure && values.ca)
    return "--insecure and --ca exclude each other: --ca trusts one CA, --insecure trusts any certificate";
  if (typeof values.ca !== "string") return undefined;
  try {
    return readFileSync(values.ca, "utf8").includes("-----BEGIN CERTIFICATE-----")
      ? undefined
      : `--ca ${values.ca} holds no PEM certificate`;
  } catch (error) {
    return `--ca ${values.ca} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

/** The TLS trust the options ask for; undefined for the platform's default. */
export function tlsOf(values: OptionValues): RunOptions["tls"] {
  return values.insecure || values.ca
    ? { insecure: Boolean(values.insecure), caFile: values.ca as string | undefined }
    : undefined;
}
