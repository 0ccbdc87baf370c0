/**
 * Part 7: the conformance suite through an API gateway. Each run is the whole documented-level suite
 * (`--target foreign`, every other option at its default, so `--rate-limit auto`, 3 retries, 500 ms
 * backoff) in this process, against a fresh kit mock (`startKitMock({ clock: "real" })`) behind a fresh
 * gateway double (conformance/test/gateway/gateway.ts):
 *   clean: no noise;
 *   a token bucket of 20/s with a burst of 20, announcing its wait as delta-seconds, as an HTTP-date, or not at all;
 *   a realistic mix: that limit (delta-seconds), 1 % gateway error pages, 1 % resets, 0-20 ms latency, gzip, extra fields.
 * Wall time is main()'s, from its call to its return (the mock and the gateway are up before). The floor
 * a limit sets is the requests the gateway received over its rate. A benchmark: figures, no verdict on time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../conformance/cli.js";
import type { RunResult } from "../../conformance/lib/runner.js";
import { startGateway, type GatewayOptions } from "../../conformance/test/gateway/gateway.js";
import { startKitMock } from "../../conformance/test/support.js";
import type { EnvironmentReport } from "../../conformance/transport/environment.js";

/** The gateway's rate limit in every limited run: requests per second, and the bucket's burst. */
export const GATEWAY_RATE = 20;
export const GATEWAY_BURST = 20;
/** Goals: a rate-limited run takes at most this many times its floor, and at most this share of its requests meet a 429. */
export const GOAL_OVER_FLOOR = 1.3;
export const GOAL_SHARE_429 = 0.05;

const limit = (retryAfter: "seconds" | "http-date" | "none") => ({
  perSecond: GATEWAY_RATE,
  burst: GATEWAY_BURST,
  retryAfter,
});

export const GATEWAY_CASES = [
  { id: "clean", label: "clean: no noise", options: {} },
  { id: "seconds", label: "20/s, Retry-After in delta-seconds", options: { rateLimit: limit("seconds") } },
  { id: "http-date", label: "20/s, Retry-After as an HTTP-date", options: { rateLimit: limit("http-date") } },
  { id: "none", label: "20/s, no Retry-After", options: { rateLimit: limit("none") } },
  {
    id: "mix",
    label: "mix: 20/s (delta-seconds), 1 % error pages, 1 % resets, 0-20 ms, gzip, extra fields",
    options: {
      rateLimit: limit("seconds"),
      gatewayErrors: { probability: 0.01 },
      resets: { probability: 0.01 },
      latency: { minMs: 0, maxMs: 20 },
      compress: "gzip",
      extraFields: true,
    },
  },
] as const satisfies readonly { id: string; label: string; options: Omit<GatewayOptions, "upstream"> }[];

export type GatewayCaseId = (typeof GATEWAY_CASES)[number]["id"];

export interface GatewayRun {
  id: GatewayCaseId;
  label: string;
  limited: boolean;
  exit: number;
  wallSec: number;
  /** What the gateway saw. */
  gateway: {
    received: number;
    forwarded: number;
    rateLimited: number;
    early: number;
    resets: number;
    errorPages: Record<string, number>;
  };
  environment: Omit<EnvironmentReport, "flaky" | "inconclusive"> & { inconclusive: number };
  /** Rules by outcome; failed counts errored too. */
  rules: { passed: number; failed: number; skipped: number; inconclusive: number };
}

export interface GatewayFigures {
  command: string;
  date: string;
  durationSec: number;
  /** The --only pattern of a smoke run (--quick); absent for the whole suite. */
  only?: string;
  /** The machine's load average before and after this part (it may run alone: --only gateway). */
  loadBefore: number[];
  loadAfter: number[];
  runs: GatewayRun[];
}

/** The floor a limit sets on a run, its wall time over that floor, and the share of its requests that met a 429. */
export function gatewayDerived(
  run: Pick<GatewayRun, "wallSec" | "gateway">,
  perSecond = GATEWAY_RATE,
): { floorSec: number; overFloor: number; share429: number } {
  const floorSec = run.gateway.received / perSecond;
  return {
    floorSec,
    overFloor: floorSec > 0 ? run.wallSec / floorSec : Number.NaN,
    share429: run.gateway.received > 0 ? run.gateway.rateLimited / run.gateway.received : Number.NaN,
  };
}

/** Whether a rate-limited run met the goals: at most 1.3x its floor, at most 5 % 429s, nothing sent during an announced wait. */
export function gatewayGoals(run: GatewayRun): { floor: boolean; share: boolean; early: boolean } {
  const d = gatewayDerived(run);
  return { floor: d.overFloor <= GOAL_OVER_FLOOR, share: d.share429 <= GOAL_SHARE_429, early: run.gateway.early === 0 };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

export function formatGatewayRun(run: GatewayRun, clean?: GatewayRun): string {
  const e = run.environment;
  const head = `  ${run.id.padEnd(10)} ${run.wallSec.toFixed(1).padStart(6)} s  requests ${e.requests} (gateway received ${run.gateway.received})`;
  const rules = `rules: ${run.rules.failed} failed, ${run.rules.inconclusive} inconclusive; exit ${run.exit}`;
  if (!run.limited) return `${head}  ${rules}`;
  const d = gatewayDerived(run);
  const retries =
    Object.entries(e.retries)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  return [
    `${head}  floor ${d.floorSec.toFixed(1)} s, ${d.overFloor.toFixed(2)}x${clean ? `; ${(run.wallSec / clean.wallSec).toFixed(2)}x clean` : ""}`,
    `             429s ${run.gateway.rateLimited} (${(d.share429 * 100).toFixed(1)} %)  waited ${e.waitedSeconds} s  pace ${e.pace ?? "none"}/s  early ${run.gateway.early}  retries: ${retries}  error pages ${sum(run.gateway.errorPages)}, resets ${run.gateway.resets}  ${rules}`,
  ].join("\n");
}

async function runThrough(
  kase: (typeof GATEWAY_CASES)[number],
  only: string | undefined,
  dir: string,
): Promise<GatewayRun> {
  const mock = await startKitMock({ clock: "real" });
  try {
    const gateway = await startGateway({ upstream: mock.url, ...kase.options });
    const output: string[] = [];
    try {
      const args = [
        "--base-url",
        gateway.url,
        "--api-key",
        mock.apiKey,
        "--target",
        "foreign",
        "--ledger",
        join(dir, `${kase.id}.jsonl`),
        ...(only ? ["--only", only] : []),
      ];
      const started = performance.now();
      const { code, run } = await main(args, {}, { out: (t) => output.push(t), err: (t) => output.push(t) });
      const wallSec = (performance.now() - started) / 1000;
      if (!run)
        throw new Error(`gateway bench, ${kase.id}: the run did not start (exit ${code}):\n${output.join("\n")}`);
      const s = gateway.stats();
      const count = (...outcomes: RunResult["results"][number]["outcome"][]) =>
        run.results.filter((r) => outcomes.includes(r.outcome)).length;
      const { flaky: _flaky, inconclusive, ...environment } = run.environment;
      return {
        id: kase.id,
        label: kase.label,
        limited: "rateLimit" in kase.options,
        exit: code,
        wallSec,
        gateway: {
          received: s.received,
          forwarded: s.forwarded,
          rateLimited: s.rateLimited,
          early: s.early,
          resets: s.resets,
          errorPages: s.gatewayErrors,
        },
        environment: { ...environment, inconclusive: inconclusive.length },
        rules: {
          passed: count("passed"),
          failed: count("failed", "errored"),
          skipped: count("skipped"),
          inconclusive: count("inconclusive"),
        },
      };
    } finally {
      await gateway.close();
    }
  } finally {
    await mock.close();
  }
}

export interface GatewayPlan {
  /** --only for the suite: a smoke run (--quick) narrows it; the whole suite when absent. */
  only?: string;
  /** All cases at once (--quick: their times then mean nothing); one after the other otherwise. */
  parallel?: boolean;
}

/** Every case, each on a fresh mock and gateway. */
export async function measureGateway(
  command: string,
  plan: GatewayPlan,
  log: (line: string) => void,
): Promise<GatewayFigures> {
  const started = performance.now();
  const date = new Date().toISOString();
  const loadBefore = os.loadavg();
  const dir = mkdtempSync(join(tmpdir(), "bench-gateway-"));
  const runs: GatewayRun[] = [];
  try {
    if (plan.parallel) runs.push(...(await Promise.all(GATEWAY_CASES.map((kase) => runThrough(kase, plan.only, dir)))));
    for (const kase of GATEWAY_CASES) {
      if (!plan.parallel) runs.push(await runThrough(kase, plan.only, dir));
      log(formatGatewayRun(runs.find((r) => r.id === kase.id)!, kase.id === "mix" ? runs[0] : undefined));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    command,
    date,
    durationSec: (performance.now() - started) / 1000,
    ...(plan.only && { only: plan.only }),
    loadBefore,
    loadAfter: os.loadavg(),
    runs,
  };
}
