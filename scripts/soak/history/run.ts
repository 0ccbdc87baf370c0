/**
 * One run of the history checker, and the search around it: starts the topology, the receiver and
 * the model once; executes a workload (clients at once, kills at their moments, a check under a
 * barrier after each restart: kills.ts), then runs the end checks (end-checks.ts) and reads the
 * replicas' logs. fast-check's property runner executes the seeded workload and, when it shows an
 * anomaly, shrinks it within a time limit on the same replicas (fresh workspaces each run).
 */
import fc from "fast-check";
import { checkLogs } from "./checks.js";
import { Client } from "./client.js";
import { runOp } from "./dispatch.js";
import { type DriverContext, type Figures, newFigures, type Shared } from "./driver-context.js";
import { endChecks } from "./end-checks.js";
import { type Anomaly, type History, newHistory } from "./history.js";
import { killAndRestart } from "./kills.js";
import { Bindings, send, startModel } from "./model.js";
import { startReceiver } from "./receiver.js";
import { conflictsOf, startTopology } from "./topology.js";
import { type Workload, workloadArbitrary } from "./workload.js";

export interface CheckerOptions {
  replicas: number;
  ops: number;
  clients: number;
  cluster: boolean;
  kill: boolean;
  seed: number;
  mockRoot: string;
  /** How long shrinking may take after a failing run (ms). */
  shrinkMs: number;
  log: (line: string) => void;
}

export interface RunResult {
  history: History;
  figures: Figures & {
    kills: number;
    exactlyOnceChecks: number;
    deliveriesVerified: number;
    deliveriesChecked: number;
    registerChecks: number;
    endComparisons: number;
    conflictsRetried: number;
    elapsedMs: number;
  };
  workload: Workload;
}

/** Executes one workload on the shared topology; the history, the anomalies and the figures. */
export async function execute(shared: Shared, workload: Workload, log: (line: string) => void): Promise<RunResult> {
  const started = Date.now();
  shared.run++;
  const history = newHistory();
  const figures: RunResult["figures"] = {
    ...newFigures(),
    kills: 0,
    exactlyOnceChecks: 0,
    deliveriesVerified: 0,
    deliveriesChecked: 0,
    registerChecks: 0,
    endComparisons: 0,
    conflictsRetried: 0,
    elapsedMs: 0,
  };
  const totalOps = workload.clients.reduce((s, c) => s + c.length, 0);
  const kills = [...workload.kills]
    .sort((a, b) => a.at - b.at)
    .map((k) => ({ ...k, threshold: Math.floor(k.at * totalOps) }));
  // Kills run one after another, each with its restart: two at once could each see two live replicas,
  // kill both, and leave the clients none (a seed did: three kills due within nine operations).
  let killWork: Promise<void> = Promise.resolve();
  const logLengths = new Map(shared.topology.replicas.map((r) => [r.name, r.log.length]));
  const ctx: DriverContext = {
    topology: shared.topology,
    model: shared.model,
    receiver: shared.receiver,
    ids: new Bindings(),
    history,
    figures,
    run: shared.run,
    workspaces: [],
    totalOps,
    completedOps: 0,
    inflight: 0,
    gate: null,
    barrierChain: Promise.resolve(),
    onProgress: () => {
      while (kills.length > 0 && ctx.completedOps >= kills[0].threshold) {
        const kill = kills.shift()!;
        killWork = killWork.then(() => killAndRestart(shared, ctx, kill.pick, log));
      }
    },
  };
  const clients: Client[] = [];
  for (let i = 0; i < workload.clients.length; i++) clients.push(new Client(i, ctx, () => clients));
  await Promise.all(
    clients.map(async (client, i) => {
      for (const op of workload.clients[i]) await runOp(client, op);
    }),
  );
  await killWork;
  figures.kills = history.kills.length;
  await endChecks(ctx, figures);
  // Each replica's log since this run started (a restarted replica's whole log).
  await new Promise((resolve) => setTimeout(resolve, 300));
  history.anomalies.push(
    ...checkLogs(
      shared.topology.replicas.map((r) => ({ replica: r.name, lines: r.log.slice(logLengths.get(r.name) ?? 0) })),
    ),
  );
  for (const r of shared.topology.live()) {
    const { conflicts, retries } = await conflictsOf(r).catch(() => ({ conflicts: 0, retries: 0 }));
    figures.conflictsRetried += conflicts + retries;
  }
  figures.conflictsRetried += shared.scrapedBeforeKill;
  // Fresh workspaces for the next (shrink) run: this run's go, in the store and the model.
  for (const w of ctx.workspaces.filter((x) => !x.deleted)) {
    const replica = shared.topology.live()[0];
    await send(replica.url, "DELETE", `/__mock/workspaces/${w.real.id}`).catch(() => undefined);
    await send(shared.model.url, "DELETE", `/__mock/workspaces/${w.twin.id}`).catch(() => undefined);
  }
  figures.elapsedMs = Date.now() - started;
  return { history, figures, workload };
}

export interface CheckerResult {
  first: RunResult;
  /** The smallest failing run fast-check found (the first run itself when nothing smaller failed). */
  smallest?: RunResult;
  shrinkRuns: number;
}

/**
 * What the runs of a check share: the topology, the receiver and the model, started once. A run on it
 * gets fresh workspaces (as fast-check's shrink runs do) and its own receiver paths (`run`); counters
 * read from the replicas (conflicts and retries) count from the rig's start.
 */
export interface Rig {
  shared: Shared;
  close(): Promise<void>;
}

export async function startRig(options: Pick<CheckerOptions, "replicas" | "cluster" | "mockRoot">): Promise<Rig> {
  const topology = await startTopology({
    replicas: options.replicas,
    cluster: options.cluster,
    mockRoot: options.mockRoot,
    seed: 1,
  });
  const receiver = await startReceiver();
  const model = await startModel(1);
  return {
    shared: { topology, model, receiver, scrapedBeforeKill: 0, run: 0 },
    async close() {
      await model.close();
      await receiver.close();
      await topology.close();
    },
  };
}

/**
 * A seeded run, shrunk within `options.shrinkMs` if it shows an anomaly, on `rig` (one of its own,
 * started and closed here, when none is given: the rig's `replicas` and `cluster` are then the options').
 */
export async function runChecker(options: CheckerOptions, rig?: Rig): Promise<CheckerResult> {
  const own = rig ?? (await startRig(options));
  const { shared } = own;
  const { topology } = shared;
  options.log(
    `replicas ${topology
      .live()
      .map((r) => `${r.name}=${r.url}`)
      .join(" ")} on ${topology.redis.url}${topology.cluster ? " (cluster)" : ""}`,
  );
  let first: RunResult | undefined;
  let smallest: RunResult | undefined;
  let shrinkRuns = 0;
  let deadline = Infinity;
  try {
    await fc.assert(
      fc.asyncProperty(workloadArbitrary(options), async (workload) => {
        if (first && Date.now() > deadline) return true;
        if (first) shrinkRuns++;
        const result = await execute(shared, workload, options.log);
        if (!first) {
          first = result;
          deadline = Date.now() + options.shrinkMs;
          options.log(
            `first run: ${result.history.entries.length} requests, ${result.history.anomalies.length} anomalies`,
          );
        } else
          options.log(
            `shrink run ${shrinkRuns}: ${result.workload.clients.reduce((s, c) => s + c.length, 0)} ops, ${result.history.anomalies.length} anomalies`,
          );
        if (result.history.anomalies.length === 0) return true;
        const size = (r: RunResult) => r.history.entries.length;
        if (!smallest || size(result) < size(smallest)) smallest = result;
        return false;
      }),
      { seed: options.seed, numRuns: 1, endOnFailure: false },
    );
  } catch (error) {
    // A failing property is expected (the anomalies are in the results); anything else is not.
    if (!first) throw error;
  } finally {
    if (!rig) await own.close();
  }
  if (!first) throw new Error("the checker did not run");
  return { first, smallest, shrinkRuns };
}

export type { Anomaly };
