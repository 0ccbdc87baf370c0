/**
 * Bulk loading for the scale benchmark, straight through the store API (Collection.create), inside
 * the mock's own process. Faker is too slow for a million records, so a few dozen template records
 * come from the mock's real builders (coherent by construction) and each bulk record is a template
 * with a new id and its timestamps shifted to its place in time. Nested objects (agent reference,
 * phone number, test case) are shared between copies: records are never mutated in place.
 * Only final states are loaded (ended, not_connected, error; completed test runs), so nothing bulk
 * loaded waits on the clock.
 */
import {
  buildBatchRun,
  buildCall,
  buildTestRun,
  createBuildContext,
  recountBatch,
} from "../../mock-server/seed/index.js";
import type { Call, CallStatus, StoredTestRun } from "../../mock-server/store/records.js";
import type { Workspace } from "../../mock-server/store/workspace.js";

/** Deterministic, UUID-shaped ids: the prefix tells the kind, the tail is the index in hex. */
function bulkId(prefix: string, i: number): string {
  return `${prefix}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const shift = (value: string | null, delta: number) => (value === null ? null : iso(Date.parse(value) + delta));

/** 70% ended, 15% not connected, 15% error: the status filter has a large and a small bucket. */
const CALL_MIX: CallStatus[] = [
  ...Array(14).fill("ended"),
  ...Array(3).fill("not_connected"),
  ...Array(3).fill("error"),
];

export const BULK_STATUS = { large: "ended", small: "error" } as const;

/** Appends `count` calls, oldest first, created one second apart and ending before `now`. */
export function loadCalls(workspace: Workspace, count: number, now: Date): void {
  const ctx = createBuildContext(workspace, now);
  const templates = CALL_MIX.map((status) => buildCall(ctx, { status, campaign: null }));
  const span = Math.max(...templates.map((t) => Date.parse(t.endTime ?? t.updatedAt) - Date.parse(t.createdAt)));
  const first = now.getTime() - span - count * 1000;
  const calls = workspace.collections.calls;
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length];
    const delta = first + i * 1000 - Date.parse(t.createdAt);
    const callId = bulkId("0ca11000", i);
    const call: Call = {
      ...t,
      callId,
      startTime: shift(t.startTime, delta),
      endTime: shift(t.endTime, delta),
      createdAt: iso(Date.parse(t.createdAt) + delta),
      updatedAt: iso(Date.parse(t.updatedAt) + delta),
      recordingUrl: t.recordingUrl === null ? null : t.recordingUrl.replace(t.callId, callId),
    };
    calls.create(call);
  }
}

/** A new batch run of one seeded agent holding `count` completed test runs; answers its ids. */
export function loadBatch(workspace: Workspace, count: number, now: Date): { batchId: string; agentId: string } {
  const ctx = createBuildContext(workspace, now);
  const first = now.getTime() - (count + 600) * 1000;
  const batch = workspace.collections.batchRuns.create(buildBatchRun(ctx, { createdDate: iso(first) }));
  const templates = Array.from({ length: 12 }, () =>
    buildTestRun(ctx, { batchId: batch.batchId, createdDate: iso(first) }),
  );
  const runs = workspace.collections.testRuns;
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length];
    const delta = i * 1000;
    const run: StoredTestRun = {
      ...t,
      jobId: bulkId("00b00000", runs.size),
      chatId: bulkId("0c4a7000", runs.size),
      createdDate: iso(Date.parse(t.createdDate) + delta),
      completedDate: shift(t.completedDate, delta),
    };
    runs.create(run);
  }
  recountBatch(workspace, batch.batchId);
  return { batchId: batch.batchId, agentId: batch.agent.agentId };
}
