/**
 * The mock for the scale benchmark, run as a forked child with an IPC channel:
 *   node --import tsx --expose-gc scripts/bench/scale-server.ts PORT
 * Production configuration (real clock, response validation off). The parent asks over IPC for a
 * workspace, then for bulk loads into it; each answer carries the load time and the memory after a
 * full garbage collection, so the figures are what the records hold, not garbage awaiting collection.
 */
import { startMock } from "../../mock-server/server.js";
import type { Workspace } from "../../mock-server/store/workspace.js";
import { loadBatch, loadCalls } from "./bulk-loader.js";

export type ScaleRequest = { op: "workspace" } | { op: "calls"; count: number } | { op: "batch"; count: number };

export interface ScaleAnswer {
  workspaceId?: string;
  apiKey?: string;
  batchId?: string;
  agentId?: string;
  loadMs?: number;
  calls: number;
  heapUsed: number;
  rss: number;
}

const port = Number(process.argv[2]);
const running = await startMock({ port, clock: "real", validateResponses: false, log: () => undefined });
const { workspaces, clock } = running.mock.services;
let workspace: Workspace | undefined;

const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function memory(): Pick<ScaleAnswer, "heapUsed" | "rss" | "calls"> {
  collect();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss, calls: workspace?.collections.calls.size ?? 0 };
}

process.on("message", (message: ScaleRequest) => {
  try {
    if (message.op === "workspace") {
      workspace = workspaces.create({ seed: 7 }, workspaces.get("default")!.random);
      running.mock.services.simulation.resume(workspace);
      process.send!({ workspaceId: workspace.workspaceId, apiKey: workspace.apiKey, ...memory() });
      return;
    }
    if (!workspace) throw new Error("ask for a workspace first");
    const started = performance.now();
    const ids =
      message.op === "calls"
        ? (loadCalls(workspace, message.count, clock.now()), {})
        : loadBatch(workspace, message.count, clock.now());
    const loadMs = performance.now() - started;
    process.send!({ ...ids, loadMs, ...memory() });
  } catch (error) {
    process.send!({ error: (error as Error).stack ?? String(error) });
  }
});
process.on("SIGTERM", () => void running.close().then(() => process.exit(0)));
