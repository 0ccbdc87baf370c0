/**
 * What the history checker checks once a run's ops are done: it brings the run's workspaces to
 * quiescence (no call, test run or delivery pending), compares every dump with the model, and checks
 * batch runs, scheduled calls and webhook events exactly once, deliveries signed and retried as
 * configured, and the observers' register reads.
 */
import {
  type BatchRunDump,
  checkBatchRuns,
  checkDeliveries,
  checkRegisters,
  type DeliveryDump,
  eventsOf,
  type TestRunDump,
} from "./checks.js";
import type { DriverContext } from "./driver-context.js";
import { compareDumps, getJson } from "./dump-comparison.js";
import { send } from "./model.js";
import { WEBHOOK_BACKOFF_S } from "./topology.js";
import type { OwnedWorkspace } from "./workspace.js";

const FINAL_CALL = new Set(["ended", "not_connected", "error"]);

/** The counts the end checks add to a run's figures. */
export interface EndCheckFigures {
  exactlyOnceChecks: number;
  deliveriesVerified: number;
  deliveriesChecked: number;
  registerChecks: number;
  endComparisons: number;
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
        const calls = await getJson<{ status: string }[]>(base, `/__mock/workspaces/${id}/calls`).catch(() => []);
        const runs = await getJson<TestRunDump[]>(base, `/__mock/workspaces/${id}/testRuns`).catch(() => []);
        pending +=
          calls.filter((c) => !FINAL_CALL.has(c.status)).length + runs.filter((t) => t.completedDate === null).length;
      }
    for (const [base, ids] of [
      [replica.url, realIds],
      [ctx.model.url, twinIds],
    ] as const) {
      const outbox = await getJson<DeliveryDump[]>(base, "/__mock/webhook-deliveries");
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

export async function endChecks(ctx: DriverContext, result: EndCheckFigures): Promise<void> {
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
    const realBatch = await getJson<BatchRunDump[]>(replica.url, `/__mock/workspaces/${w.real.id}/batchRuns`);
    const realRuns = await getJson<TestRunDump[]>(replica.url, `/__mock/workspaces/${w.real.id}/testRuns`);
    const twinBatch = await getJson<BatchRunDump[]>(ctx.model.url, `/__mock/workspaces/${w.twin.id}/batchRuns`);
    const twinRuns = await getJson<TestRunDump[]>(ctx.model.url, `/__mock/workspaces/${w.twin.id}/testRuns`);
    const twinCounts = twinBatch.map((b) => twinRuns.filter((t) => t.batchId === b.batchId).length);
    const batch = checkBatchRuns(w.real.id, { batchRuns: realBatch, testRuns: realRuns }, twinCounts);
    history.anomalies.push(...batch.anomalies);
    result.exactlyOnceChecks += batch.checked;
    const calls = await getJson<{ callId: string; status: string }[]>(
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
  const realOutbox = await getJson<DeliveryDump[]>(replica.url, "/__mock/webhook-deliveries");
  const twinOutbox = await getJson<DeliveryDump[]>(ctx.model.url, "/__mock/webhook-deliveries");
  for (const w of mine.filter((x) => !x.unresolved)) {
    const real = eventsOf(realOutbox.filter((d) => d.workspaceId === w.real.id));
    const twin = eventsOf(twinOutbox.filter((d) => d.workspaceId === w.twin.id)).map((e) =>
      e.replace(/\S+$/, (id) => w.ids.real(id) ?? id),
    );
    result.exactlyOnceChecks++;
    if (JSON.stringify(real) !== JSON.stringify(twin)) {
      // Counted, not looked up: the same events in other numbers (one twice, another once less) show too.
      const { missing, extra } = multisetDifference(twin, real);
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

/** What `expected` has more of than `actual` (missing), and the reverse (extra), each as often as it differs. */
export function multisetDifference(expected: string[], actual: string[]): { missing: string[]; extra: string[] } {
  const counts = new Map<string, number>();
  for (const e of expected) counts.set(e, (counts.get(e) ?? 0) + 1);
  for (const e of actual) counts.set(e, (counts.get(e) ?? 0) - 1);
  const missing: string[] = [];
  const extra: string[] = [];
  for (const [event, n] of counts) {
    for (let i = 0; i < n; i++) missing.push(event);
    for (let i = 0; i < -n; i++) extra.push(event);
  }
  return { missing, extra };
}
