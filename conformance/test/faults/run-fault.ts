/** Runs the suite through the fault proxy: one fault (or variation, or none) against a running mock. */
import { main } from "../../cli.js";
import type { RunResult } from "../../lib/runner.js";
import { startFaultProxy, type FaultHooks } from "./proxy.js";

export interface FaultRun {
  code: number;
  /** `rule: first failure` for every failed rule. */
  failed: string[];
  run?: RunResult;
}

const quiet = { out: () => {}, err: () => {} };

export async function runThrough(
  mock: { url: string; apiKey: string },
  hooks: FaultHooks,
  argv: string[],
  prefix = "",
): Promise<FaultRun> {
  const proxy = await startFaultProxy(mock.url, hooks, prefix);
  try {
    const { code, run } = await main(
      ["--base-url", `${proxy.url}${prefix}`, "--api-key", mock.apiKey, "--quiet", ...argv],
      {},
      quiet,
    );
    const failed = (run?.results ?? [])
      .filter((r) => r.outcome === "failed")
      .map((r) => {
        const f = r.failures[0];
        return `${r.id}: ${f ? `${f.pointer} ${f.message} (expected ${f.expected}, got ${f.actual})` : "(no detail)"}`;
      });
    return { code, failed, run };
  } finally {
    await proxy.close();
  }
}
