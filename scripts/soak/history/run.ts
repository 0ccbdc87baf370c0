/**
 * One run of the history checker, and the search around it: starts the topology, the receiver and
 * the model once; executes a workload (clients at once, kills at their moments, a check under a
 * barrier after each restart), brings everything to quiescence, and runs the end checks. fast-check's
 * property runner executes the seeded workload and, when it shows an anomaly, shrinks it within a
 * time limit on the same replicas (fresh workspaces each run).
 */
import fc from "fast-check";
import {
  checkAcked,
  checkBatchRuns,
  checkDeliveries,
  checkLogs,
  checkRegisters,
  type BatchRunDump,
  type DeliveryDump,
  eventsOf,
  type TestRunDump,
} from "./checks.js";
import { barrier, Client, type DriverContext, type Figures, newFigures, type OwnedWorkspace } from "./driver.js";
import { type Anomaly, type History, newHistory } from "./history.js";
import { Bindings, compareAnswers, type Model, send, startModel } from "./model.js";
import { type Receiver, startReceiver } from "./receiver.js";
import { conflictsOf, type Replica, startTopology, type Topology, WEBHOOK_BACKOFF_S } from "./topology.js";
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

const COLLECTIONS = [
  "agents",
  "integrations",
  "phoneNumbers",
  "qaRules",
  "webhooks",
  "testCases",
  "calls",
  "batchRuns",
  "testRuns",
  "chats",
];
const FINAL_CALL = new Set(["ended", "not_connected", "error"]);

interface Shared {
  topology: Topology;
  model: Model;
  receiver: Receiver;
  /** Conflict and retry counters of replicas scraped just before they were killed. */
  scrapedBeforeKill: number;
  run: number;
}

async function json<T>(base: string, path: string): Promise<T> {
  const answer = await send(base, "GET", path);
  if (answer.status !== 200)
    throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  return answer.body as T;
}

/** Compares every collection of each modelled workspace with its twin through a replica other than `avoid`. */
async function compareDumps(
  ctx: DriverContext,
  workspaces: OwnedWorkspace[],
  quiescent: boolean,
  collections = COLLECTIONS,
): Promise<number> {
  let compared = 0;
  for (const w of workspaces) {
    if (w.deleted) continue;
    const live = ctx.topology.live();
    const replica = live[(w.owner + compared + 1) % live.length];
    if (w.unresolved) {
      const dumped = new Map<string, string[]>();
      for (const [collection] of w.acked) {
        const records = await json<Record<string, unknown>[]>(
          replica.url,
          `/__mock/workspaces/${w.real.id}/${collection}`,
        );
        dumped.set(
          collection,
          records.map((r) => String(r[idField(collection)])),
        );
      }
      ctx.history.anomalies.push(...checkAcked(w.real.id, w.acked, dumped));
      compared++;
      continue;
    }
    for (const collection of collections) {
      const real = await send(replica.url, "GET", `/__mock/workspaces/${w.real.id}/${collection}`);
      const twin = await send(ctx.model.url, "GET", `/__mock/workspaces/${w.twin.id}/${collection}`);
      const diffs = compareAnswers(`dump ${collection}`, twin, real, w.ids, quiescent, true);
      compared++;
      if (diffs.length > 0)
        ctx.history.anomalies.push({
          kind: quiescent ? "lost-write" : "differential",
          message: `${quiescent ? "at quiescence" : "after a restart"}, ${collection} of ${w.real.id} through ${replica.name} differs from the model: ${diffs.slice(0, 4).join("; ")}`,
          workspace: w.real.id,
          at: Date.now(),
        });
    }
  }
  return compared;
}

function idField(collection: string): string {
  return (
    (
      {
        agents: "agentId",
        integrations: "integrationId",
        phoneNumbers: "sipPhoneNumber",
        qaRules: "qaRuleId",
        webhooks: "webhookId",
        testCases: "testCaseId",
        calls: "callId",
        batchRuns: "batchId",
      } as Record<string, string>
    )[collection] ?? "id"
  );
}

/** Advances every clock and waits until no call, test run or delivery of the run's workspaces is pending. */
async function quiesce(ctx: DriverContext, live: OwnedWorkspace[], limitMs = 90_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  const tracked = live.filter((w) => !w.deleted);
  const realIds = new Set(tracked.map((w) => w.real.id));
  const twinIds = new Set(tracked.map((w) => w.twin.id));
  while (Date.now() < deadline) {
    const replica = ctx.topology.live()[0];
    await send(replica.url, "POST", "/__mock/clock/advance", { seconds: 900 });
    await send(ctx.model.url, "POST", "/__mock/clock/advance", { seconds: 900 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    let pending = 0;
    for (const [base, side] of [
      [replica.url, "real"],
      [ctx.model.url, "twin"],
    ] as const)
      for (const w of tracked) {
        const id = w[side].id;
        const calls = await json<{ status: string }[]>(base, `/__mock/workspaces/${id}/calls`).catch(() => []);
        const runs = await json<TestRunDump[]>(base, `/__mock/workspaces/${id}/testRuns`).catch(() => []);
        pending +=
          calls.filter((c) => !FINAL_CALL.has(c.status)).length + runs.filter((t) => t.completedDate === null).length;
      }
    for (const [base, ids] of [
      [replica.url, realIds],
      [ctx.model.url, twinIds],
    ] as const) {
      const outbox = await json<DeliveryDump[]>(base, "/__mock/webhook-deliveries");
      pending += outbox.filter((d) => ids.has(d.workspaceId) && d.status === "pending").length;
    }
    if (pending === 0) {
      // The receiver quiet for a moment: no attempt still on its way.
      const count = ctx.receiver.received.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (ctx.receiver.received.length === count) return true;
    }
  }
  return false;
}

async function endChecks(ctx: DriverContext, result: RunResult["figures"]): Promise<void> {
  const { history } = ctx;
  const mine = ctx.workspaces.filter((w) => !w.deleted);
  if (!(await quiesce(ctx, mine)))
    history.anomalies.push({
      kind: "exactly-once",
      message: "no quiescence within 90 s: work still pending",
      at: Date.now(),
    });
  result.endComparisons += await compareDumps(ctx, mine, true);
  const replica = ctx.topology.live()[0];
  // Exactly once: batch runs and their test runs, scheduled calls, events.
  for (const w of mine.filter((x) => !x.unresolved)) {
    const realBatch = await json<BatchRunDump[]>(replica.url, `/__mock/workspaces/${w.real.id}/batchRuns`);
    const realRuns = await json<TestRunDump[]>(replica.url, `/__mock/workspaces/${w.real.id}/testRuns`);
    const twinBatch = await json<BatchRunDump[]>(ctx.model.url, `/__mock/workspaces/${w.twin.id}/batchRuns`);
    const twinRuns = await json<TestRunDump[]>(ctx.model.url, `/__mock/workspaces/${w.twin.id}/testRuns`);
    const twinCounts = twinBatch.map((b) => twinRuns.filter((t) => t.batchId === b.batchId).length);
    const batch = checkBatchRuns(w.real.id, { batchRuns: realBatch, testRuns: realRuns }, twinCounts);
    history.anomalies.push(...batch.anomalies);
    result.exactlyOnceChecks += batch.checked;
    const calls = await json<{ callId: string; status: string }[]>(
      replica.url,
      `/__mock/workspaces/${w.real.id}/calls`,
    );
    for (const id of w.calls) {
      result.exactlyOnceChecks++;
      const call = calls.find((c) => c.callId === id);
      if (!call || !FINAL_CALL.has(call.status))
        history.anomalies.push({
          kind: "exactly-once",
          message: `scheduled call ${id} of ${w.real.id} is ${call?.status ?? "gone"} at quiescence`,
          workspace: w.real.id,
          at: Date.now(),
        });
    }
  }
  const realOutbox = await json<DeliveryDump[]>(replica.url, "/__mock/webhook-deliveries");
  const twinOutbox = await json<DeliveryDump[]>(ctx.model.url, "/__mock/webhook-deliveries");
  for (const w of mine.filter((x) => !x.unresolved)) {
    const real = eventsOf(realOutbox.filter((d) => d.workspaceId === w.real.id));
    const twin = eventsOf(twinOutbox.filter((d) => d.workspaceId === w.twin.id)).map((e) =>
      e.replace(/\S+$/, (id) => w.ids.real(id) ?? id),
    );
    result.exactlyOnceChecks++;
    if (JSON.stringify(real) !== JSON.stringify(twin)) {
      const missing = twin.filter((e) => !real.includes(e));
      const extra = real.filter((e) => !twin.includes(e));
      history.anomalies.push({
        kind: "exactly-once",
        message: `webhook events of ${w.real.id}: ${real.length} real, ${twin.length} in the model${missing.length ? `; missing: ${missing.slice(0, 3).join(", ")}` : ""}${extra.length ? `; extra: ${extra.slice(0, 3).join(", ")}` : ""}`,
        workspace: w.real.id,
        at: Date.now(),
      });
    }
  }
  const secrets = new Map<string, string>();
  for (const w of ctx.workspaces) for (const [path, secret] of w.hooks) secrets.set(path, secret);
  const deliveries = checkDeliveries(
    realOutbox.filter((d) => mine.some((w) => w.real.id === d.workspaceId && !w.unresolved)),
    ctx.receiver.received.filter((r) => r.path.startsWith(`/real/${ctx.run}/`)),
    { secrets, backoffSeconds: WEBHOOK_BACKOFF_S, kills: history.kills },
  );
  history.anomalies.push(...deliveries.anomalies);
  result.deliveriesVerified += deliveries.verified;
  result.deliveriesChecked += deliveries.deliveries;
  const registers = checkRegisters(history.entries);
  history.anomalies.push(...registers.anomalies);
  result.registerChecks += registers.checked;
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
  const killWork: Promise<void>[] = [];
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
        killWork.push(killAndRestart(shared, ctx, kill.pick, log));
      }
    },
  };
  const clients: Client[] = [];
  for (let i = 0; i < workload.clients.length; i++) clients.push(new Client(i, ctx, () => clients));
  await Promise.all(
    clients.map(async (client, i) => {
      for (const op of workload.clients[i]) await client.run(op);
    }),
  );
  await Promise.all(killWork);
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

async function killAndRestart(
  shared: Shared,
  ctx: DriverContext,
  pick: number,
  log: (line: string) => void,
): Promise<void> {
  const live = shared.topology.live();
  if (live.length < 2) return;
  const victim: Replica = live[pick % live.length];
  const before = await conflictsOf(victim).catch(() => ({ conflicts: 0, retries: 0 }));
  shared.scrapedBeforeKill += before.conflicts + before.retries;
  const event = { replica: victim.name, at: Date.now() } as History["kills"][number];
  ctx.history.kills.push(event);
  await shared.topology.kill(victim);
  log(`killed ${victim.name} (pid ${victim.pid}) after ${ctx.completedOps} ops`);
  const fresh = await shared.topology.start();
  event.restartedAs = fresh.name;
  event.restartedAt = Date.now();
  log(`restarted as ${fresh.name} at ${fresh.url}`);
  // After the restart: every modelled workspace's time-independent collections, under a barrier.
  await barrier(ctx, async () => {
    ctx.figures.comparisons += await compareDumps(ctx, ctx.workspaces, false, [
      "agents",
      "integrations",
      "phoneNumbers",
      "qaRules",
      "webhooks",
      "testCases",
    ]);
  });
}

export interface CheckerResult {
  first: RunResult;
  /** The smallest failing run fast-check found (the first run itself when nothing smaller failed). */
  smallest?: RunResult;
  shrinkRuns: number;
}

export async function runChecker(options: CheckerOptions): Promise<CheckerResult> {
  const topology = await startTopology({
    replicas: options.replicas,
    cluster: options.cluster,
    mockRoot: options.mockRoot,
    seed: 1,
  });
  const receiver = await startReceiver();
  const model = await startModel(1);
  const shared: Shared = { topology, model, receiver, scrapedBeforeKill: 0, run: 0 };
  options.log(
    `replicas ${topology.replicas.map((r) => `${r.name}=${r.url}`).join(" ")} on ${topology.redis.url}${options.cluster ? " (cluster)" : ""}`,
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
    await model.close();
    await receiver.close();
    await topology.close();
  }
  if (!first) throw new Error("the checker did not run");
  return { first, smallest, shrinkRuns };
}

export type { Anomaly };
