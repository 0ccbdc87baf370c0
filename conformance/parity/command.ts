/**
 * agent-platform-conformance parity --base-url A --api-key KA --against B --against-api-key KB [options]
 *
 * Runs the suite against both targets (the same options, each through its own transport) and parity's
 * probes (probes.ts), then lists where the two differ: rule outcomes, and what the probes observed.
 * Both targets are checked first (reachable, the keys accepted), so a typo in B's address costs one
 * request, not a whole run of A. The two targets then run side by side.
 * Exit 0: no difference. 1: differences. 2: cannot run (one line on stderr saying what to fix).
 */
import { writeFileSync } from "node:fs";
import { send, TargetUnreachable, type Target } from "../lib/http.js";
import { RunCannotStart, runSuite, setupProblem, type RunOptions, type RunResult } from "../lib/runner.js";
import { Inconclusive, Transport } from "../transport/transport.js";
import { compareObservations, compareOutcomes, sortDifferences } from "./compare.js";
import { parityConsoleReport } from "./console-report.js";
import { parityHtmlReport } from "./html-report.js";
import { parityJsonReport } from "./json-report.js";
import { probeTarget } from "./observe.js";
import { PARITY_USAGE, parseParityArgs, type ParityOptions, type SideOptions } from "./options.js";
import type { ParityResult, SideResult } from "./types.js";

export { PARITY_USAGE };

export interface ParityIo {
  out(text: string): void;
  err(text: string): void;
}

const PREFIX = "conformance parity";

/** A target that cannot be compared: the one line exit 2 prints. */
class CannotRun extends Error {}

/** The suite's setup problem in B's option names: --against, --against-api-key, --against-second-api-key. */
function asOptionsOfB(problem: string): string {
  const names: Record<string, string> = {
    "base-url": "--against",
    "api-key": "--against-api-key",
    "second-api-key": "--against-second-api-key",
  };
  return problem.replace(/--(second-api-key|api-key|base-url)\b/g, (_m, name: string) => names[name]);
}

/** One request with the side's key before anything else: unreachable, refused or no answer is a setup mistake. */
async function preflight(side: SideOptions, target: Target): Promise<void> {
  const where = `${side.name} ${side.baseUrl}`;
  const problem = setupProblem({ baseUrl: side.baseUrl, apiKey: side.apiKey, secondApiKey: side.secondApiKey });
  if (problem) throw new CannotRun(`${where}: ${side.name === "A" ? problem : asOptionsOfB(problem)}`);
  try {
    const ex = await send(target, { method: "GET", path: "/v1/agents", query: { page: 0, size: 1 } });
    if (ex.status === 401 || ex.status === 403)
      throw new CannotRun(`${where} refuses ${side.keyOption} (GET /v1/agents answered ${ex.status}): check the key`);
  } catch (error) {
    if (error instanceof TargetUnreachable) throw new CannotRun(`${where} cannot be reached (${error.message})`);
    if (error instanceof Inconclusive)
      throw new CannotRun(`${where} gave no real answer through the environment (${error.message})`);
    throw error;
  }
}

function counts(run: RunResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of run.results) out[r.outcome] = (out[r.outcome] ?? 0) + 1;
  return out;
}

/** The suite, then the probes, on one target. */
async function runSide(
  side: SideOptions,
  options: ParityOptions,
  transport: Transport,
  extra: Partial<RunOptions>,
  signal: AbortSignal,
  io: ParityIo,
): Promise<{ run: RunResult; side: SideResult }> {
  const started = Date.now();
  let run: RunResult;
  try {
    run = await runSuite({
      ...options.run,
      ...extra,
      baseUrl: side.baseUrl,
      apiKey: side.apiKey,
      secondApiKey: side.secondApiKey,
      level: options.level,
      readOnly: options.readOnly,
      only: options.only,
      signal,
      onStart: options.quiet ? undefined : (lines) => io.out(lines.map((l) => `${side.name}: ${l}`).join("\n")),
    });
  } catch (error) {
    if (error instanceof RunCannotStart) throw new CannotRun(`${side.name} ${side.baseUrl}: ${error.message}`);
    throw error;
  }
  const probed = await probeTarget({
    target: { baseUrl: side.baseUrl, tls: options.run.tls, transport, apiKey: side.apiKey },
    secondApiKey: side.secondApiKey,
    readOnly: options.readOnly,
    runId: run.runId,
    retries: transport.retries,
    signal,
  });
  const probes = transport.report([]);
  const sum = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);
  return {
    run,
    side: {
      baseUrl: side.baseUrl,
      target: `${run.target.kind === "mock" ? "the kit's mock" : "a foreign deployment"} (${run.target.reason})`,
      ruleCounts: counts(run),
      inconclusive: run.results.filter((r) => r.outcome === "inconclusive").map((r) => r.id),
      probes: probed.probes,
      observations: probed.observations,
      left: probed.left,
      environment: {
        requests: run.environment.requests + probes.requests,
        rateLimited: run.environment.rateLimited + probes.rateLimited,
        gatewayErrors: sum(run.environment.gatewayErrors) + sum(probes.gatewayErrors),
        waitedSeconds: Math.round((run.environment.waitedSeconds + probes.waitedSeconds) * 10) / 10,
      },
      durationMs: Date.now() - started,
      ...(run.interrupted ? { interrupted: run.interrupted } : {}),
    },
  };
}

/** Both runs compared. */
export function compareSides(
  a: { run: RunResult; side: SideResult },
  b: { run: RunResult; side: SideResult },
  level: string,
  durationMs: number,
): ParityResult {
  const outcomes = compareOutcomes(a.run.results, b.run.results);
  const observed = compareObservations(a.side.observations, b.side.observations);
  return {
    a: a.side,
    b: b.side,
    level,
    differences: sortDifferences([...outcomes.differences, ...observed.differences]),
    notCompared: {
      inconclusive: { a: a.side.inconclusive.length, b: b.side.inconclusive.length },
      skippedOnOneSide: outcomes.skippedOnOneSide,
      unobserved: observed.unobserved,
    },
    rulesCompared: outcomes.compared,
    observationsCompared: observed.compared,
    durationMs,
  };
}

export async function parityMain(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: ParityIo,
  extra: Partial<RunOptions> = {},
): Promise<{ code: number; result?: ParityResult }> {
  const started = Date.now();
  const parsed = parseParityArgs(argv, env);
  if ("help" in parsed) return (io.out(PARITY_USAGE), { code: 0 });
  const cannotRun = (line: string) => (io.err(`${PREFIX}: cannot run: ${line.replace(/\s*\n\s*/g, " ")}`), { code: 2 });
  if ("problem" in parsed)
    return parsed.problem.startsWith("bad options")
      ? (io.err(`${PREFIX}: ${parsed.problem}\n${PARITY_USAGE}`), { code: 2 })
      : cannotRun(parsed.problem);
  const { options } = parsed;
  // One side that cannot run stops the other: its result would be compared with nothing.
  const controller = new AbortController();
  const stop = () => controller.abort(extra.signal?.reason ?? new Error("stopped"));
  if (extra.signal?.aborted) stop();
  extra.signal?.addEventListener("abort", stop, { once: true });
  // The probes' own transports (the suite makes one per run): each target paced and retried on its own.
  const transports = options.sides.map(() => new Transport({ ...options.run, ...extra }));
  try {
    await Promise.all(
      options.sides.map((side, i) =>
        preflight(side, { baseUrl: side.baseUrl, tls: options.run.tls, transport: transports[i], apiKey: side.apiKey }),
      ),
    );
    // Both settle before anything is reported: a side stopped by the other's failure ends its requests first.
    const settled = await Promise.allSettled(
      options.sides.map((side, i) =>
        runSide(side, options, transports[i], extra, controller.signal, io).catch((error) => {
          controller.abort(error);
          throw error;
        }),
      ),
    );
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    const failure = rejected.find((s) => s.reason instanceof CannotRun) ?? rejected[0];
    if (failure) throw failure.reason;
    const [a, b] = settled.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof runSide>>>).value);
    const result = compareSides(a, b, options.level, Date.now() - started);
    io.out(parityConsoleReport(result));
    if (options.json) writeFileSync(options.json, parityJsonReport(result));
    if (options.html) writeFileSync(options.html, parityHtmlReport(result));
    return { code: result.differences.length > 0 ? 1 : 0, result };
  } catch (error) {
    if (error instanceof CannotRun) return cannotRun(error.message);
    throw error;
  } finally {
    extra.signal?.removeEventListener("abort", stop);
  }
}
