/**
 * Control plane, fixtures: every record of a collection, and records filled from a partial
 * (POST /__mock/workspaces/{id}/{collection}), coherent with what is given and dated on the
 * workspace's clock.
 */
import { ApiError, invalid } from "../core/errors.js";
import type { CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { buildRecord, createBuildContext, recountBatch, webhooksOfAgent, type CreatedRecord } from "../seed/index.js";
import type { Call, Webhook } from "../store/records.js";
import { outcomeErrors, takeOutcome } from "./call-outcome.js";
import { recordCheck, type RecordCheck } from "../store/record-checks.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

export function recordHandlers({
  workspaces,
  simulation,
  contract,
}: ControlServices): ControlHandlers<"listRecords" | "createRecord"> {
  return {
    listRecords: {
      handle: ({ params }) => ({
        status: 200,
        body: workspaceOf(workspaces, params.workspaceId).collections[params.collection].all().reverse(),
      }),
    },

    createRecord: {
      // A call's scripted outcome against its lifecycle: refused (400) before anything is built or stored.
      check: ({ params, body }) => (params.collection === "calls" ? outcomeErrors(body) : undefined),
      handle: ({ params, body = {} }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        const name = params.collection;
        const now = workspace.clock.now();
        const { partial, plan } = name === "calls" ? takeOutcome(body, now) : { partial: body, plan: undefined };
        const created: CreatedRecord[] = [];
        let record: unknown;
        try {
          record = storeRecord(workspace, name, partial, now, created, recordCheck(contract()));
        } catch (error) {
          // A refused fill leaves nothing behind, not even the records made for its references.
          for (const { name: other, id } of created.reverse()) workspace.collections[other].delete(id);
          throw error;
        }
        if (name === "calls") {
          if (plan) workspace.callPlans.set((record as Call).callId, plan);
          simulation.calls.track(workspace, record as Call);
        }
        // The agent's settings list its webhooks (as seeding leaves them).
        if (name === "webhooks") refreshAgentWebhooks(workspace, (record as Webhook).agentId);
        if (name === "testRuns") {
          // The batch's counters follow its test runs, whichever way a run arrives.
          recountBatch(workspace, (record as { batchId: string }).batchId);
          simulation.batches.track(workspace, record as never);
        }
        return { status: 201, body: record };
      },
    },
  };
}

/**
 * Builds, checks (against the spec the mock serves) and stores a record; records made for its
 * references are listed in `created`.
 */
function storeRecord(
  workspace: Workspace,
  name: CollectionName,
  partial: Record<string, unknown>,
  now: Date,
  created: CreatedRecord[],
  check: RecordCheck,
): unknown {
  let record: unknown;
  try {
    record = fillRecord(workspace, name, partial, now, created);
  } catch (error) {
    // A builder meeting a field of the wrong type (agents: "x") is bad input, not a server fault.
    throw new ApiError(400, `Cannot build a ${name} record from this partial: ${(error as Error).message}`);
  }
  const errors = check(name, record);
  if (errors) throw invalid(errors, `Not a valid ${name} record`);
  const collection = workspace.collections[name] as unknown as {
    create(r: unknown): unknown;
    idOf(r: unknown): string;
    has(id: string): boolean;
  };
  if (collection.has(collection.idOf(record)))
    throw new ApiError(409, `${name} already holds a record with id ${collection.idOf(record)}`);
  collection.create(record);
  return record;
}

function refreshAgentWebhooks(workspace: Workspace, agentId: string): void {
  if (!workspace.collections.agents.has(agentId)) return;
  workspace.collections.agents.update(agentId, (a) => ({
    ...a,
    agentSettings: { ...a.agentSettings, webhooks: webhooksOfAgent(workspace, agentId) },
  }));
}

/**
 * A record filled through the control plane counts as created now: it is inserted last, so it comes
 * first in "most recently created first" lists. Its creation time must agree, so a fill the builder
 * dated before the newest record of the collection is built again from that record's time.
 */
function fillRecord(
  workspace: Workspace,
  name: CollectionName,
  partial: Record<string, unknown>,
  now: Date,
  created: CreatedRecord[],
): unknown {
  const record = buildRecord(name, createBuildContext(workspace, now, created), partial) as unknown as Record<
    string,
    unknown
  >;
  const field = ["createdAt", "createdDate"].find((f) => typeof record[f] === "string" && !(f in partial));
  if (!field) return record;
  const newest = (
    workspace.collections[name] as unknown as { page(q: object): { items: Record<string, unknown>[] } }
  ).page({ order: "newest", page: 0, size: 1 }).items[0];
  const floor = typeof newest?.[field] === "string" ? (newest[field] as string) : undefined;
  if (!floor || Date.parse(record[field] as string) >= Date.parse(floor) || Date.parse(floor) > now.getTime())
    return record;
  return buildRecord(name, createBuildContext(workspace, now, created), { ...partial, [field]: floor });
}
