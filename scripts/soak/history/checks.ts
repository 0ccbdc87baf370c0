/**
 * The checks of the history checker that read a history or dumps and say what is wrong: replica
 * logs, observer reads (a register check), acknowledged records after kills, batch runs, calls and
 * webhook deliveries exactly once, deliveries signed and retried as configured. Pure functions of
 * their inputs, so scripts/test/history.test.ts feeds them hand-made histories.
 */
import { checkWebhookSignature } from "../../../mock-server/webhooks/signature.js";
import type { Anomaly, Entry, KillEvent } from "./history.js";
import type { Received } from "./receiver.js";

/** Lines no replica may print in these runs (the "Redis down" message included: Redis stays up). */
export const BAD_LINE = /failed|unexpectedly|TypeError|Error:/;

export function checkLogs(logs: { replica: string; lines: string[] }[], now = Date.now()): Anomaly[] {
  const out: Anomaly[] = [];
  for (const { replica, lines } of logs) {
    const bad = lines.filter((l) => BAD_LINE.test(l));
    const counts = new Map<string, number>();
    for (const line of bad) counts.set(line, (counts.get(line) ?? 0) + 1);
    for (const [line, n] of counts)
      out.push({
        kind: "log-line",
        message: `${replica} logged${n > 1 ? ` (${n} times)` : ""}: ${line.slice(0, 300)}`,
        at: now,
      });
  }
  return out;
}

/**
 * Observer reads as register reads: a read must see the value of the last write acknowledged before
 * it was invoked, or of a write concurrent with it (invoked before the read completed, not acknowledged
 * before it was invoked), or of a write whose outcome is unknown (invoked before the read completed).
 */
export function checkRegisters(entries: Entry[]): { anomalies: Anomaly[]; checked: number } {
  const writes = new Map<string, { id: number; value: string; invoke: number; complete: number; ok: boolean }[]>();
  for (const e of entries)
    for (const w of e.writes ?? []) {
      const ok = e.status !== null && e.status < 300;
      if (!ok && e.status !== null) continue;
      if (!writes.has(w.register)) writes.set(w.register, []);
      writes
        .get(w.register)!
        .push({ id: e.id, value: w.value, invoke: e.invoke, complete: e.status === null ? Infinity : e.complete, ok });
    }
  const anomalies: Anomaly[] = [];
  let checked = 0;
  for (const e of entries) {
    if (!e.read) continue;
    const history = writes.get(e.read.register) ?? [];
    const before = history.filter((w) => w.complete < e.invoke);
    const lastBefore = before.reduce<(typeof before)[number] | undefined>(
      (a, w) => (!a || w.complete > a.complete ? w : a),
      undefined,
    );
    const allowed = new Set<string>();
    if (lastBefore) allowed.add(lastBefore.value);
    for (const w of history) if (w.invoke < e.complete && w.complete >= e.invoke) allowed.add(w.value);
    // Before the first acknowledged write (the create) nothing is known to exist yet.
    if (!lastBefore) allowed.add("<absent>");
    checked++;
    if (!allowed.has(e.read.value))
      anomalies.push({
        kind: "stale-read",
        message: `#${e.id} read ${e.read.register} = ${JSON.stringify(e.read.value)} through ${e.replica} at ${e.invoke}→${e.complete}; allowed: ${[...allowed].map((v) => JSON.stringify(v)).join(", ")}; its writes: ${history.map((w) => `#${w.id} ${JSON.stringify(w.value)} ${w.invoke}→${w.complete}`).join(", ") || "none"}`,
        entry: e.id,
        workspace: e.workspace,
        at: e.complete,
      });
  }
  return { anomalies, checked };
}

/** Acknowledged records of a workspace the model could not follow must still be there. */
export function checkAcked(
  workspace: string,
  acked: Map<string, Set<string>>,
  dumped: Map<string, string[]>,
  now = Date.now(),
): Anomaly[] {
  const out: Anomaly[] = [];
  for (const [collection, ids] of acked)
    for (const id of ids)
      if (!(dumped.get(collection) ?? []).includes(id))
        out.push({
          kind: "lost-write",
          message: `${collection} ${id} of ${workspace} was acknowledged and is gone`,
          workspace,
          at: now,
        });
  return out;
}

export interface BatchRunDump {
  batchId: string;
  totalAttempts: number;
  successfulAttempts: number;
  failedAttempts: number;
}

export interface TestRunDump {
  batchId: string;
  jobId: string;
  testCase?: { testCaseId?: string };
  completedDate: string | null;
}

/**
 * Batch runs at quiescence: each has exactly as many test runs as the model's twin (none duplicated,
 * none missing), every one completed once, and its counters add up.
 */
export function checkBatchRuns(
  workspace: string,
  real: { batchRuns: BatchRunDump[]; testRuns: TestRunDump[] },
  twinCounts: number[],
  now = Date.now(),
): { anomalies: Anomaly[]; checked: number } {
  const anomalies: Anomaly[] = [];
  const fail = (message: string) => anomalies.push({ kind: "exactly-once", message, workspace, at: now });
  if (real.batchRuns.length !== twinCounts.length)
    fail(`${workspace} has ${real.batchRuns.length} batch runs, the model ${twinCounts.length}`);
  real.batchRuns.forEach((b, i) => {
    const runs = real.testRuns.filter((t) => t.batchId === b.batchId);
    const jobs = new Set(runs.map((t) => t.jobId));
    if (jobs.size !== runs.length) fail(`batch run ${b.batchId} of ${workspace} has a test run twice`);
    if (twinCounts[i] !== undefined && runs.length !== twinCounts[i])
      fail(`batch run ${b.batchId} of ${workspace} has ${runs.length} test runs, the model's twin ${twinCounts[i]}`);
    if (runs.length !== b.totalAttempts)
      fail(`batch run ${b.batchId} of ${workspace}: totalAttempts ${b.totalAttempts}, ${runs.length} test runs`);
    if (runs.some((t) => t.completedDate === null))
      fail(`batch run ${b.batchId} of ${workspace} has test runs not completed at quiescence`);
    if (b.successfulAttempts + b.failedAttempts !== b.totalAttempts)
      fail(
        `batch run ${b.batchId} of ${workspace}: ${b.successfulAttempts} successful + ${b.failedAttempts} failed != ${b.totalAttempts}`,
      );
  });
  return { anomalies, checked: real.batchRuns.length };
}

export interface DeliveryDump {
  deliveryId: string;
  workspaceId: string;
  event: string;
  url: string;
  payload: string;
  status: string;
  attempts: { at: string; statusCode?: number | null }[];
}

/** Events by kind and conversation: what a workspace's outbox holds, to compare with the twin's. */
export function eventsOf(deliveries: DeliveryDump[]): string[] {
  return deliveries
    .map((d) => {
      let conversation = "";
      try {
        const data = (JSON.parse(d.payload) as { data?: { conversationId?: string } }).data;
        conversation = data?.conversationId ?? "";
      } catch {
        /* compared as "" */
      }
      return `${d.event} ${conversation}`;
    })
    .sort();
}

export interface DeliveryCheckOptions {
  /** Webhook secrets by the receiver path of their webhook. */
  secrets: Map<string, string>;
  backoffSeconds: number;
  kills: KillEvent[];
  now?: number;
}

/**
 * Deliveries against what the receiver saw: per delivery, as many requests as attempts listed, with
 * the statuses it answered, each verifying with the webhook's secret, retries spaced by the backoff
 * (clock time), delivered at quiescence; a first attempt seen twice only if a kill overlapped it.
 */
export function checkDeliveries(
  deliveries: DeliveryDump[],
  received: Received[],
  options: DeliveryCheckOptions,
): { anomalies: Anomaly[]; verified: number; deliveries: number } {
  const now = options.now ?? Date.now();
  const anomalies: Anomaly[] = [];
  const fail = (message: string, workspace?: string) =>
    anomalies.push({ kind: "delivery", message, workspace, at: now });
  let verified = 0;
  for (const r of received) {
    const secret = options.secrets.get(r.path);
    if (secret === undefined) continue;
    const result = checkWebhookSignature({ payload: r.payload, header: r.signature, secret, now: new Date(r.at) });
    if (result.ok) verified++;
    else
      anomalies.push({
        kind: "signature",
        message: `a delivery to ${r.path} (event ${r.eventId}) does not verify: ${result.reason}`,
        at: now,
      });
  }
  let checked = 0;
  for (const d of deliveries) {
    const path = new URL(d.url).pathname;
    if (!options.secrets.has(path)) continue;
    checked++;
    let eventId = "";
    try {
      eventId = String((JSON.parse(d.payload) as { eventId?: string }).eventId);
    } catch {
      /* unmatched below */
    }
    const seen = received.filter((r) => r.path === path && r.eventId === eventId);
    const label = `delivery ${d.deliveryId} (${d.event}) of ${d.workspaceId}`;
    if (d.status !== "delivered")
      fail(`${label} is ${d.status} at quiescence after ${d.attempts.length} attempts`, d.workspaceId);
    const extra = seen.length - d.attempts.length;
    const overlapped =
      seen.length > 0 &&
      options.kills.some((k) => k.at >= seen[0].at - 30_000 && k.at <= seen[seen.length - 1].at + 1_000);
    if (extra !== 0 && !(extra > 0 && overlapped))
      fail(`${label}: the outbox lists ${d.attempts.length} attempts, the receiver saw ${seen.length}`, d.workspaceId);
    const listed = d.attempts.map((a) => a.statusCode ?? null);
    const answered = seen.slice(Math.max(extra, 0)).map((r) => r.answered);
    if (extra === 0 && JSON.stringify(listed) !== JSON.stringify(answered))
      fail(
        `${label}: the outbox lists statuses ${JSON.stringify(listed)}, the receiver answered ${JSON.stringify(answered)}`,
        d.workspaceId,
      );
    for (let i = 1; i < d.attempts.length; i++) {
      const gap = Date.parse(d.attempts[i].at) - Date.parse(d.attempts[i - 1].at);
      const rule = options.backoffSeconds * 2 ** (i - 1) * 1000;
      if (gap < rule - 1000)
        fail(
          `${label}: attempt ${i + 1} came ${gap} ms (clock) after the previous, the rule says ${rule} ms`,
          d.workspaceId,
        );
    }
  }
  return { anomalies, verified, deliveries: checked };
}
