/**
 * npx tsx scripts/bench/cpu-probe.ts [seconds] [rounds] [--no-prism]: a quick look at the two GET calls
 * requests on the targets of part 1 ((a) bare Express, (b) bare node:http, (c) the mock as `npm start`,
 * (c-prod) the mock with NODE_ENV=production, (d) Prism unless --no-prism), in turn, `rounds` times,
 * 8 connections, 1 s warm-up; the medians of server CPU per request, req/s and p99 are printed with
 * (c)'s ratios. For profiling work between full `npm run bench` runs; its figures are not RESULTS.md's.
 */
import type { Child } from "./children.js";
import { TARGETS, type TargetId } from "./compare.js";
import { exchange, measureLoad } from "./load.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY, startBareTarget, startMockTarget, startPrismTarget } from "./targets.js";

const args = process.argv.slice(2);
const numbers = args.filter((a) => !a.startsWith("--")).map(Number);
const seconds = numbers[0] ?? 4;
const rounds = numbers[1] ?? 3;
const withPrism = !args.includes("--no-prism");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const children: Child[] = [];
const start = async (child: Promise<Child>) => {
  const started = await child;
  children.push(started);
  return started;
};
try {
  const mock = await start(startMockTarget());
  const scenarios = (await buildScenarios(mock.url, MOCK_API_KEY)).slice(0, 2);
  const fixtures = [];
  for (const s of scenarios) {
    const a = await exchange(mock.url, s.request);
    fixtures.push({
      method: s.request.method,
      path: s.request.path.split("?")[0],
      status: a.status,
      contentType: a.contentType,
      bodyBase64: a.body.toString("base64"),
    });
  }
  const targets: Partial<Record<TargetId, Child>> = {
    a: await start(startBareTarget("express", fixtures)),
    b: await start(startBareTarget("http", fixtures)),
    c: mock,
    cprod: await start(startMockTarget({ config: "production" })),
    ...(withPrism && { d: await start(startPrismTarget()) }),
  };
  const ids = TARGETS.map((t) => t.id).filter((id) => targets[id]);
  for (const s of scenarios) {
    const cpu: Record<string, number[]> = {};
    const rps: Record<string, number[]> = {};
    const p99: Record<string, number[]> = {};
    for (let i = 0; i < rounds; i++) {
      for (const id of ids) {
        const t = targets[id]!;
        const r = await measureLoad(
          t.url,
          s.request,
          { connections: 8, durationSec: seconds, warmupSec: 1 },
          t.process.pid,
        );
        if (r.errors) throw new Error(`${s.name} on ${id}: ${r.errors} errors`);
        (cpu[id] ??= []).push(r.cpuUs ?? NaN);
        (rps[id] ??= []).push(r.rps);
        (p99[id] ??= []).push(r.p99);
      }
    }
    const m = (xs: Record<string, number[]>, id: string) => median(xs[id]);
    console.log(s.name);
    for (const id of ids)
      console.log(
        `  ${id.padEnd(6)} CPU ${m(cpu, id).toFixed(0).padStart(5)} µs/req  ${m(rps, id).toFixed(0).padStart(6)} req/s  p99 ${m(p99, id).toFixed(2)} ms`,
      );
    const ratios = ids
      .filter((id) => id !== "c" && id !== "cprod")
      .map(
        (id) =>
          `c/${id} ${(m(rps, "c") / m(rps, id)).toFixed(2)}x (CPU ${id}÷c ${(m(cpu, id) / m(cpu, "c")).toFixed(2)}x)`,
      );
    console.log(`  req/s ${ratios.join(", ")}; p99 c/a ${(m(p99, "c") / m(p99, "a")).toFixed(2)}x`);
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
}
