/**
 * The MSW door under load, run as a forked child with an IPC channel (msw.ts starts it):
 *   node --import tsx scripts/bench/msw-door.ts [KIT]
 * createMockHandlers() (real clock, response validation on, as `npm start`) behind msw's
 * setupServer in Node; `connections` concurrent loops of `fetch` against the handlers' base URL, where
 * nothing listens (an unhandled request is an error, so no request leaves the process). Client,
 * interception and core share this one process and its one JavaScript thread.
 *
 * Protocol: once ready it sends { ready, scenarios: names }; then each { op: "run", scenario,
 * options, measured } is answered with the run's figures (latencies from performance.now() around
 * each fetch and the reading of its body). The parent reads this process's CPU time from /proc
 * around measured runs, as for the other targets.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setupServer } from "msw/node";
import type * as Handlers from "../../mock-server/msw/handlers.js";
import { percentile, type BenchRequest, type LoadOptions } from "./load.js";
import { MSW_BASE_URL, MSW_SCENARIOS, type MswMessage, type MswRun } from "./msw.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY } from "./targets.js";

// --against passes the root of a built kit (this tree's or REV's worktree): both then run their dist/.
const kit = process.argv[2];
const { createMockHandlers }: typeof Handlers = kit
  ? await import(pathToFileURL(path.join(kit, "dist/mock-server/msw/handlers.js")).href)
  : await import("../../mock-server/msw/handlers.js");

const { handlers, mock } = createMockHandlers({
  baseUrl: MSW_BASE_URL,
  apiKey: MOCK_API_KEY,
  clock: "real",
  validateResponses: true,
  log: (line) => console.error(line),
});
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: "error" });

// The same requests and ids as the socket targets get, read through the door itself.
const scenarios = new Map(
  (await buildScenarios(MSW_BASE_URL, MOCK_API_KEY))
    .filter((s) => MSW_SCENARIOS.includes(s.name))
    .map((s) => [s.name, s.request]),
);

async function run(request: BenchRequest, options: LoadOptions, seconds: number): Promise<MswRun> {
  const url = MSW_BASE_URL + request.path;
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

process.on("message", (message: MswMessage) => {
  const request = scenarios.get(message.scenario);
  if (!request) return void process.send!({ error: `no scenario ${message.scenario}` });
  const seconds = message.measured ? message.options.durationSec : message.options.warmupSec;
  run(request, message.options, seconds).then(
    (figures) => process.send!(figures),
    (error) => process.send!({ error: (error as Error).stack ?? String(error) }),
  );
});

const stop = () => {
  server.close();
  void mock.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
// Never outlive the bench.
process.on("disconnect", stop);
process.send!({ ready: true, scenarios: [...scenarios.keys()] });
