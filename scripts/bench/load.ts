/**
 * Load and latency measurement. autocannon drives the load; its own latency histogram holds whole
 * milliseconds, too coarse for sub-millisecond servers, so latencies are taken from its per-response
 * event (a float, in ms) and the percentiles computed here. Errors count connection errors, timeouts
 * and every answer whose status is not the expected one.
 */
import http from "node:http";
import autocannon from "autocannon";
import { cpuMsOf } from "./children.js";

export interface BenchRequest {
  method: "GET" | "POST" | "PATCH";
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  expect: number;
}

export interface LoadResult {
  rps: number;
  /** CPU time the server process spent per request answered, in microseconds (when known). */
  cpuUs?: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Unexpected statuses answered, status -> count (absent when every answer was the expected one). */
  unexpected?: Record<string, number>;
}

export interface LoadOptions {
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Smoke runs: this many requests per measurement instead of a duration. */
  amount?: number;
  /** Smoke runs: all targets of a request at once (autocannon never finishes in under a second). */
  parallel?: boolean;
  /**
   * Smoke runs: autocannon's sample interval in ms (its `sampleInt`, 1,000 by default). A run ends at the
   * first sample after its last answer, so at the default a run of `amount` requests lasts at least a
   * second however few they are; the full bench leaves it unset.
   */
  sampleMs?: number;
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function cannon(
  url: string,
  r: BenchRequest,
  o: LoadOptions,
  durationSec: number,
  onLatency?: (ms: number, status: number) => void,
) {
  const length = o.amount ? { amount: o.amount } : { duration: durationSec };
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: url + r.path,
        method: r.method,
        headers: r.headers,
        body: r.body,
        connections: o.connections,
        ...length,
        ...(o.sampleMs && { sampleInt: o.sampleMs }),
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (onLatency) instance.on("response", (_client, statusCode, _bytes, ms) => onLatency(ms, statusCode));
  });
}

/**
 * Read right before and right after the measured run (not the warm-up): the CPU time of other
 * processes, a server's own counters. `stop` gets the number of responses measured.
 */
export interface Meter {
  start(): void | Promise<void>;
  stop(requests: number): void | Promise<void>;
}

/** A warm-up (not counted), then the measured run; `pid` is the server's, for its CPU time. */
export async function measureLoad(
  url: string,
  r: BenchRequest,
  o: LoadOptions,
  pid?: number,
  meters: Meter[] = [],
): Promise<LoadResult> {
  if (o.warmupSec > 0) await cannon(url, r, o, o.warmupSec);
  for (const meter of meters) await meter.start();
  const cpuBefore = cpuMsOf(pid);
  const latencies: number[] = [];
  let unexpected = 0;
  const statuses: Record<string, number> = {};
  const result = await cannon(url, r, o, o.durationSec, (ms, status) => {
    latencies.push(ms);
    if (status === r.expect) return;
    unexpected++;
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const cpuAfter = cpuMsOf(pid);
  for (const meter of meters) await meter.stop(latencies.length);
  const sorted = Float64Array.from(latencies).sort();
  return {
    cpuUs:
      cpuBefore === undefined || cpuAfter === undefined || sorted.length === 0
        ? undefined
        : ((cpuAfter - cpuBefore) * 1000) / sorted.length,
    rps: sorted.length / ((result.finish.getTime() - result.start.getTime()) / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: result.errors + result.timeouts + unexpected,
    requests: sorted.length,
    ...(unexpected > 0 && { unexpected: statuses }),
  };
}

/**
 * Latency of one request at a time on one kept-alive connection: what a page costs the server plus
 * a constant for the loopback round trip, without queueing behind other requests.
 */
export async function sequentialLatency(
  url: string,
  r: BenchRequest,
  samples: number,
  warmup = 100,
): Promise<{ p50: number; p99: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<{ ms: number; ok: boolean }>((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.request(url + r.path, { method: r.method, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, ok: res.statusCode === r.expect }),
        );
      });
      req.on("error", () => resolve({ ms: Number.NaN, ok: false }));
      req.end(r.body);
    });
  for (let i = 0; i < warmup; i++) await once();
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < samples; i++) {
    const { ms, ok } = await once();
    if (ok) times.push(ms);
    else errors++;
  }
  agent.destroy();
  const sorted = Float64Array.from(times).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors };
}

/** One request, its status, content type and body bytes (to capture a constant answer). */
export function exchange(url: string, r: BenchRequest): Promise<{ status: number; contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url + r.path, { method: r.method, headers: r.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on("error", reject);
    req.end(r.body);
  });
}

export interface RateResult {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

/**
 * `pace.rate` requests per second over `pace.connections` (autocannon's overallRate: each connection
 * sends its share of a second back to back, one request at a time, then waits for the next second), for
 * `pace.durationSec` (or the options' amount): latency without queueing, per response.
 */
export function atFixedRate(
  url: string,
  r: BenchRequest,
  o: LoadOptions,
  pace: { rate: number; connections: number; durationSec: number },
): Promise<RateResult> {
  const latencies: number[] = [];
  let unexpected = 0;
  // overallRate is autocannon's (lib/run.js); scripts/lib/autocannon.d.ts does not list it.
  const options = {
    url: url + r.path,
    method: r.method,
    headers: r.headers,
    body: r.body,
    connections: pace.connections,
    overallRate: pace.rate,
    ...(o.amount ? { amount: o.amount } : { duration: pace.durationSec }),
    ...(o.sampleMs && { sampleInt: o.sampleMs }),
    timeout: 10,
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      const sorted = Float64Array.from(latencies).sort();
      resolve({
        rate: sorted.length / ((result.finish.getTime() - result.start.getTime()) / 1000),
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        errors: result.errors + result.timeouts + unexpected,
        requests: sorted.length,
      });
    });
    instance.on("response", (_client, status, _bytes, ms) => {
      latencies.push(ms);
      if (status !== r.expect) unexpected++;
    });
  });
}
