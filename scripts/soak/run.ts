/**
 * runSoak: the mock in a child process, webhook receivers on loopback, seeded workspaces, then
 * autocannon at N connections for D seconds over every operation, while a monitor samples memory, the
 * journal and the outbox. The workspaces go back to their baseline every few seconds, so stored
 * records stay bounded and memory growth shows leaks, not data.
 */
import autocannon from "autocannon";
import { prepareWorkspace, restoreBaseline, type SoakWorkspace } from "./fixtures.js";
import { spawnMock } from "./mock-process.js";
import { medianRss, startMonitor } from "./monitor.js";
import { startCountingReceiver } from "./receiver.js";
import { newFailures, requestsFor } from "./workload.js";

export interface SoakOptions {
  durationSec: number;
  connections: number;
  warmupSec: number;
  journalSize: number;
  outboxSize: number;
  /** Seconds between baseline restores; 0: never (stored records then grow with every write). */
  resetEverySec: number;
  workspaces: number;
  /** Virtual seconds per second: batch runs, calls and webhook retries move on within the run. */
  clockSpeed: number;
}

/**
 * Warm-up 20 s: with webhook retries (x60 clock: about 5 s of backoff per failing delivery) and
 * restores every 5 s, RSS reaches its plateau after about 15 s (see scripts/RELIABILITY.md).
 */
export const DEFAULT_SOAK: SoakOptions = {
  durationSec: 60,
  connections: 64,
  warmupSec: 20,
  journalSize: 500,
  outboxSize: 1000,
  resetEverySec: 5,
  workspaces: 4,
  clockSpeed: 60,
};

export interface SoakResult {
  options: SoakOptions;
  requests: number;
  durationSec: number;
  /** Connection errors and timeouts (autocannon), non-2xx answers, failed control-plane reads. */
  errors: { connection: number; timeouts: number; non2xx: number; control: number; total: number };
  failureSamples: string[];
  failuresByRequest: Record<string, number>;
  statusCodes: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
  rss: { warmBytes: number; endBytes: number; peakBytes: number; growth: number; everyFiveSeconds: number[] };
  journal: { cap: number; max: number };
  outbox: { cap: number; max: number };
  deliveries: { ok: number; fail: number };
  resets: number;
  exitCode: number | null;
  mockOutput: string[];
}

export async function runSoak(
  options: SoakOptions,
  progress: (line: string) => void = () => undefined,
): Promise<SoakResult> {
  const receiver = await startCountingReceiver();
  const mock = await spawnMock([
    "--journal-size",
    String(options.journalSize),
    "--outbox-size",
    String(options.outboxSize),
    "--clock-speed",
    String(options.clockSpeed),
  ]);
  let exitCode: number | null = null;
  try {
    const workspaces: SoakWorkspace[] = [];
    for (let i = 0; i < options.workspaces; i++) workspaces.push(await prepareWorkspace(mock.url, 100 + i, receiver));
    progress(
      `mock pid ${mock.pid} at ${mock.url}; ${options.connections} connections over ${workspaces.length} workspaces for ${options.durationSec} s`,
    );

    const monitor = startMonitor(mock);
    let resets = 0;
    let resetErrors = 0;
    const resetTimer =
      options.resetEverySec > 0
        ? setInterval(() => {
            void Promise.all(workspaces.map((ws) => restoreBaseline(mock.url, ws))).then(
              () => void resets++,
              () => void resetErrors++,
            );
          }, options.resetEverySec * 1000)
        : undefined;

    const failures = newFailures();
    let next = 0;
    const run = autocannon({
      url: mock.url,
      connections: options.connections,
      duration: options.durationSec,
      timeout: 10,
      requests: requestsFor(workspaces[0], 0, failures),
      setupClient: (client) => {
        const conn = next++;
        client.setRequests(requestsFor(workspaces[conn % workspaces.length], conn, failures));
      },
    });
    const result = await run;
    clearInterval(resetTimer);
    await monitor.stop();
    const { samples } = monitor;

    const warmBytes = medianRss(samples, Math.max(0, options.warmupSec - 3) * 1000, options.warmupSec * 1000 + 500);
    const endBytes = medianRss(samples, (options.durationSec - 5) * 1000, Infinity);
    const control = samples.controlErrors.length + resetErrors;
    exitCode = await mock.stop();
    return {
      options,
      requests: result.requests.total,
      durationSec: result.duration,
      errors: {
        connection: result.errors - result.timeouts,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        control,
        total: result.errors + result.non2xx + control,
      },
      failureSamples: [...failures.samples, ...samples.controlErrors.slice(0, 3)],
      failuresByRequest: Object.fromEntries(failures.byRequest),
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      rss: {
        warmBytes,
        endBytes,
        peakBytes: Math.max(...samples.rss.map((s) => s.bytes)),
        growth: (endBytes - warmBytes) / warmBytes,
        everyFiveSeconds: samples.rss.filter((_, i) => i % 5 === 4).map((s) => s.bytes),
      },
      journal: { cap: options.journalSize, max: Math.max(0, ...samples.journal) },
      outbox: { cap: options.outboxSize, max: Math.max(0, ...samples.outbox) },
      deliveries: { ...receiver.counts },
      resets,
      exitCode,
      mockOutput: mock.output.slice(-20),
    };
  } finally {
    if (exitCode === null) await mock.stop();
    await receiver.close();
  }
}
