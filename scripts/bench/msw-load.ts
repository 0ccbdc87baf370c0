/**
 * What the two MSW children of part 2 share (msw-door.ts, the mock's handlers; msw-bare.ts, bare msw
 * handlers answering the same bytes): the load loop and the IPC protocol msw.ts drives them with, so
 * that both are measured the same way. `connections` concurrent loops of `fetch` in the child's own
 * process, each reading the whole body; latencies from performance.now() around each request.
 *
 * Protocol: once ready a child sends { ready, scenarios: names }; then each { op: "run", scenario,
 * options, measured } is answered with the run's figures, and the door's { op: "capture" } with the
 * answers the bare handlers are to repeat.
 */
import { percentile, type BenchRequest, type LoadOptions } from "./load.js";
import type { MswAnswer, MswMessage, MswRun } from "./msw.js";

async function runLoad(url: string, request: BenchRequest, options: LoadOptions, seconds: number): Promise<MswRun> {
  const init: RequestInit = {
    method: request.method,
    headers: request.headers,
    body: request.body && new Uint8Array(request.body),
  };
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const more = () => (options.amount ? issued++ < options.amount : performance.now() < deadline);
  const loop = async () => {
    while (more()) {
      const t = performance.now();
      let ok = false;
      try {
        const res = await fetch(url, init);
        await res.arrayBuffer();
        ok = res.status === request.expect;
      } catch {
        ok = false;
      }
      latencies.push(performance.now() - t);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: sorted.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
    requests: sorted.length,
  };
}

/** One answer of the handlers to `request`, as the bare handlers are to give it again. */
async function capture(baseUrl: string, scenario: string, request: BenchRequest): Promise<MswAnswer> {
  const res = await fetch(baseUrl + request.path, { method: request.method, headers: request.headers });
  const body = Buffer.from(await res.arrayBuffer());
  const headers: [string, string][] = [];
  res.headers.forEach((value, name) => void headers.push([name, value]));
  return {
    scenario,
    request: { ...request, body: undefined },
    status: res.status,
    headers,
    bodyBase64: body.toString("base64"),
  };
}

/** Answers msw.ts's messages with `scenarios` run against `baseUrl`; `stop` on SIGTERM or a lost parent. */
export function serveLoad(baseUrl: string, scenarios: Map<string, BenchRequest>, stop: () => void): void {
  process.on("message", (message: MswMessage) => {
    const request = scenarios.get(message.scenario);
    if (!request) return void process.send!({ error: `no scenario ${message.scenario}` });
    const work =
      message.op === "capture"
        ? capture(baseUrl, message.scenario, request)
        : runLoad(
            baseUrl + request.path,
            request,
            message.options,
            message.measured ? message.options.durationSec : message.options.warmupSec,
          );
    work.then(
      (answer) => process.send!(answer),
      (error) => process.send!({ error: (error as Error).stack ?? String(error) }),
    );
  });
  process.on("SIGTERM", stop);
  // Never outlive the bench.
  process.on("disconnect", stop);
  process.send!({ ready: true, scenarios: [...scenarios.keys()] });
}
