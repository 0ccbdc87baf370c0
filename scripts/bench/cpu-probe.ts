/**
 * npx tsx scripts/bench/cpu-probe.ts [seconds] [rounds]: a quick look at server CPU per request on the
 * two GET calls requests, (a) bare Express against (c) the mock, in turn, `rounds` times; the median
 * is printed. For profiling work between full `npm run bench` runs; its figures are not RESULTS.md's.
 */
import { exchange, measureLoad } from "./load.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY, startBareTarget, startMockTarget } from "./targets.js";

const seconds = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const mock = await startMockTarget();
try {
  const scenarios = (await buildScenarios(mock.url, MOCK_API_KEY)).slice(0, 2);
  const fixtures = [];
  for (const s of scenarios) {
    const a = await exchange(mock.url, s.request);
    fixtures.push({ method: s.request.method, path: s.request.path.split("?")[0], status: a.status, contentType: a.contentType, bodyBase64: a.body.toString("base64") });
  }
  const bare = await startBareTarget("express", fixtures);
  try {
    for (const s of scenarios) {
      const cpu: Record<string, number[]> = { a: [], c: [] };
      const rps: Record<string, number[]> = { a: [], c: [] };
      for (let i = 0; i < rounds; i++) {
        for (const [id, t] of [["a", bare], ["c", mock]] as const) {
          const r = await measureLoad(t.url, s.request, { connections: 8, durationSec: seconds, warmupSec: 1 }, t.process.pid);
          if (r.errors) throw new Error(`${s.name} on ${id}: ${r.errors} errors`);
          cpu[id].push(r.cpuUs ?? NaN);
          rps[id].push(r.rps);
        }
      }
      const [ca, cc] = [median(cpu.a), median(cpu.c)];
      console.log(`${s.name.padEnd(32)} CPU µs/req: bare Express ${ca.toFixed(0)}, mock ${cc.toFixed(0)} (${(cc / ca).toFixed(2)}x)  req/s: ${median(rps.a).toFixed(0)} / ${median(rps.c).toFixed(0)} (mock/bare ${(median(rps.c) / median(rps.a)).toFixed(2)})`);
    }
  } finally {
    await bare.stop();
  }
} finally {
  await mock.stop();
}
