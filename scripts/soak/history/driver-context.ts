/**
 * The state the history checker's clients share in one run (the topology, the model, the history, the
 * figures, the op counts the kill controller watches), what all runs of one checker share (the shrink
 * runs reuse the replicas), and the barrier: a mock-wide reset and the check after a restart run with
 * every client paused.
 */
import type { History } from "./history.js";
import type { Bindings, Model } from "./model.js";
import type { Receiver } from "./receiver.js";
import type { Topology } from "./topology.js";
import type { OwnedWorkspace } from "./workspace.js";

export interface Figures {
  operations: Record<string, number>;
  requests: number;
  comparisons: number;
  registerReads: number;
  deletedKeyProbes: number;
  indeterminate: number;
  latenciesMs: number[];
}

export interface DriverContext {
  topology: Topology;
  model: Model;
  receiver: Receiver;
  ids: Bindings;
  history: History;
  figures: Figures;
  /** Distinguishes the ids of one run from another's (shrink runs reuse the replicas). */
  run: number;
  /** All clients' workspaces, live and gone (the end checks visit them). */
  workspaces: OwnedWorkspace[];
  totalOps: number;
  completedOps: number;
  inflight: number;
  gate: Promise<void> | null;
  /** Serialises barriers (a mock-wide reset, a check after a restart). */
  barrierChain: Promise<void>;
  /** Called after each completed op (the kill controller watches the count). */
  onProgress: () => void;
}

/** What the runs of one checker share: started once, reused by every shrink run. */
export interface Shared {
  topology: Topology;
  model: Model;
  receiver: Receiver;
  /** Conflict and retry counters of replicas scraped just before they were killed. */
  scrapedBeforeKill: number;
  run: number;
}

export function newFigures(): Figures {
  return {
    operations: {},
    requests: 0,
    comparisons: 0,
    registerReads: 0,
    deletedKeyProbes: 0,
    indeterminate: 0,
    latenciesMs: [],
  };
}

/** Runs `work` with every client paused (no op in flight), one barrier at a time. */
export async function barrier(ctx: DriverContext, work: () => Promise<void>): Promise<void> {
  const previous = ctx.barrierChain;
  let done: () => void = () => undefined;
  ctx.barrierChain = new Promise<void>((resolve) => (done = resolve));
  await previous;
  let release: () => void = () => undefined;
  ctx.gate = new Promise<void>((resolve) => (release = resolve));
  try {
    while (ctx.inflight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await work();
  } finally {
    ctx.gate = null;
    release();
    done();
  }
}
