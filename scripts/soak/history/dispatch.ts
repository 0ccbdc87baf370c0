/**
 * How a client of the history checker runs one op of its workload: it waits while a barrier holds,
 * runs a mock-wide reset as a barrier of its own, counts the op in flight (barriers wait for none),
 * resolves the op's indexes against the workspaces it owns when it runs, and routes it to the file
 * that says what it sends (workspace-lifecycle.ts, api-ops.ts, control-ops.ts, observe.ts).
 */
import {
  createBatchRun,
  createChat,
  createIntegration,
  getBatchRun,
  getCall,
  list,
  onIntegration,
  onQaRule,
  patchPhoneNumber,
} from "./api-ops.js";
import { type Client, pick } from "./client.js";
import { advanceClock, createPhoneNumber, createQaRule, dumpCollection, fault, scheduleCall } from "./control-ops.js";
import { barrier } from "./driver-context.js";
import { observe } from "./observe.js";
import type { Op } from "./workload.js";
import { createWorkspace, deleteWorkspace, mockReset, resetWorkspace } from "./workspace-lifecycle.js";

const MAX_WORKSPACES = 3;

/** Runs one abstract op of the workload as `client`. */
export async function runOp(client: Client, op: Op): Promise<void> {
  const { ctx } = client;
  while (ctx.gate) await ctx.gate;
  if (op.k === "mockReset") {
    ctx.figures.operations[op.k] = (ctx.figures.operations[op.k] ?? 0) + 1;
    await barrier(ctx, () => mockReset(client, op.r));
    return;
  }
  ctx.inflight++;
  try {
    const kind = await dispatch(client, op);
    ctx.figures.operations[kind] = (ctx.figures.operations[kind] ?? 0) + 1;
  } finally {
    ctx.inflight--;
    ctx.completedOps++;
    ctx.onProgress();
  }
}

/** Runs the op (or the one it falls back to); the kind that ran, as the figures count it. */
async function dispatch(client: Client, op: Op): Promise<string> {
  const redirect = (next: Op) => dispatch(client, next);
  const live = client.workspaces;
  if (op.k === "createWorkspace" || live.length === 0) {
    if (live.length >= MAX_WORKSPACES) return redirect({ k: "list", w: op.r, what: "agents", r: op.r });
    const seed = op.k === "createWorkspace" ? op.seed : op.r;
    const empty = op.k === "createWorkspace" ? op.empty : true;
    await createWorkspace(client, seed, empty, op.r);
    return "createWorkspace";
  }
  if (op.k === "observe") return observe(client, op, redirect);
  if (op.k === "advance") return advanceClock(client, op);
  if (!("w" in op) || op.w === null) return "skipped";
  const w = pick(live, op.w)!;
  switch (op.k) {
    case "deleteWorkspace":
      return deleteWorkspace(client, w, op);
    case "resetWorkspace":
      return resetWorkspace(client, w, op);
    case "createIntegration":
      return createIntegration(client, w, op);
    case "getIntegration":
    case "patchIntegration":
    case "createAuth":
      return onIntegration(client, w, op, redirect);
    case "createQaRule":
      return createQaRule(client, w, op);
    case "getQaRule":
    case "deleteQaRule":
      return onQaRule(client, w, op);
    case "createPhoneNumber":
      return createPhoneNumber(client, w, op);
    case "patchPhoneNumber":
      return patchPhoneNumber(client, w, op, redirect);
    case "list":
      return list(client, w, op);
    case "scheduleCall":
      return scheduleCall(client, w, op, redirect);
    case "getCall":
      return getCall(client, w, op, redirect);
    case "createChat":
      return createChat(client, w, op);
    case "createBatchRun":
      return createBatchRun(client, w, op);
    case "getBatchRun":
      return getBatchRun(client, w, op, redirect);
    case "dump":
      return dumpCollection(client, w, op);
    case "fault":
      return fault(client, w, op, redirect);
  }
  return "skipped";
}
