/**
 * After a spec reload (npm start -- --watch), the stored records against the new spec. The rule:
 *  - a record that still validates against its collection's schema stays as it is;
 *  - a record that no longer fits is dropped, and its collection is named with the reason;
 *  - what the mock keeps in step with a dropped record follows it, as the mock itself keeps them in
 *    step: a call and its chat are one E16 conversation and go together; a batch run's test runs go
 *    with it; a batch run that loses test runs is counted again; an agent that lists a dropped
 *    webhook in agentSettings.webhooks lists the webhooks it has left.
 * Nothing is reset to its seed: the seed is built by the same code as before the change, so it would
 * not fit any better, and the records a client made would be lost for nothing. A reference by id to a
 * dropped record (a call's agentId, an agent's tool integration) stays: the mock already serves such
 * ids, as it does after a fill with an unknown id. Clocks, keys, fault rules and the journal are not
 * records: they are always kept.
 */
import type { ValidationErrors } from "../core/errors.js";
import { recountBatch, webhooksOfAgent } from "../seed/index.js";
import { collectionNames, type CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { recordErrors } from "../store/record-checks.js";

export interface CollectionDrop {
  collection: CollectionName;
  count: number;
  /** The first one or two distinct reasons, `field: message`. */
  reasons: string[];
}

/** Records changed or dropped because a record they are kept in step with was dropped. */
export interface CollectionFollow {
  collection: CollectionName;
  count: number;
  /** What happened to them, e.g. "were dropped with their calls (the same E16 conversations)". */
  how: string;
}

export interface WorkspaceFit {
  workspaceId: string;
  /** Records in the workspace once it fits. */
  records: number;
  dropped: CollectionDrop[];
  followed: CollectionFollow[];
}

type Check = (name: CollectionName, record: unknown) => ValidationErrors | undefined;

interface Unfit {
  name: CollectionName;
  id: string;
  errors: ValidationErrors;
}

function unfitRecords(workspace: Workspace, check: Check): Unfit[] {
  const out: Unfit[] = [];
  for (const name of collectionNames) {
    const collection = workspace.collections[name];
    for (const record of collection.all() as object[]) {
      const errors = check(name, record);
      if (errors) out.push({ name, id: (collection.idOf as (r: object) => string)(record), errors });
    }
  }
  return out;
}

function summarize(unfit: Unfit[]): CollectionDrop[] {
  const byName = new Map<CollectionName, CollectionDrop>();
  for (const { name, errors } of unfit) {
    let drop = byName.get(name);
    if (!drop) byName.set(name, (drop = { collection: name, count: 0, reasons: [] }));
    drop.count++;
    const [field, message] = Object.entries(errors)[0] ?? ["record", "is invalid"];
    const reason = `${field}: ${message}`;
    if (drop.reasons.length < 2 && !drop.reasons.includes(reason)) drop.reasons.push(reason);
  }
  return [...byName.values()];
}

/** Deletes one record with what only it used: its secrets, its script. Returns the record, if it was there. */
function remove(workspace: Workspace, name: CollectionName, id: string): any {
  const record = workspace.collections[name].get(id);
  if (!record) return undefined;
  workspace.collections[name].delete(id);
  if (name === "integrations") workspace.credentials.delete(id);
  if (name === "phoneNumbers") workspace.trunks.delete(id);
  if (name === "calls") workspace.callPlans.delete(id);
  return record;
}

/** Drops `unfit` and what goes with it; says what followed. */
function dropWithPartners(workspace: Workspace, unfit: Unfit[]): CollectionFollow[] {
  const { calls, chats, testRuns, agents } = workspace.collections;
  const followers = new Map<string, CollectionFollow>();
  const follow = (collection: CollectionName, how: string) => {
    const key = `${collection}\n${how}`;
    const entry = followers.get(key) ?? { collection, count: 0, how };
    entry.count++;
    followers.set(key, entry);
  };
  const recount = new Set<string>();
  const relist = new Set<string>();
  const queue: { name: CollectionName; id: string; how?: string }[] = [...unfit];
  for (let item = queue.shift(); item; item = queue.shift()) {
    const record = remove(workspace, item.name, item.id);
    if (!record) continue;
    if (item.how) follow(item.name, item.how);
    if (item.name === "calls" && chats.has(item.id))
      queue.push({ name: "chats", id: item.id, how: "were dropped with their calls (the same E16 conversations)" });
    if (item.name === "chats" && calls.has(item.id))
      queue.push({ name: "calls", id: item.id, how: "were dropped with their chats (the same E16 conversations)" });
    if (item.name === "batchRuns") {
      for (const run of testRuns.all())
        if (run.batchId === item.id)
          queue.push({ name: "testRuns", id: run.jobId, how: "were dropped with their batch runs" });
    }
    if (item.name === "testRuns") recount.add(record.batchId);
    if (item.name === "webhooks") relist.add(record.agentId);
  }
  for (const batchId of recount) {
    if (!workspace.collections.batchRuns.has(batchId)) continue;
    recountBatch(workspace, batchId);
    follow("batchRuns", "were counted again without their dropped test runs");
  }
  for (const agentId of relist) {
    const agent = agents.get(agentId);
    if (!agent) continue;
    const webhooks = webhooksOfAgent(workspace, agentId);
    if (webhooks.length === (agent.agentSettings.webhooks ?? []).length) continue;
    agents.replace(agentId, { ...agent, agentSettings: { ...agent.agentSettings, webhooks } });
    follow("agents", "list only the webhooks they have left in agentSettings.webhooks");
  }
  return [...followers.values()];
}

const countRecords = (workspace: Workspace) => Object.values(workspace.counts()).reduce((a, b) => a + b, 0);

/** Makes one workspace fit a spec (`check`: the reloaded contract's recordCheck), by the rule above; says what it did. */
export function fitWorkspace(workspace: Workspace, check: Check = recordErrors): WorkspaceFit {
  const unfit = unfitRecords(workspace, check);
  const followed = unfit.length > 0 ? dropWithPartners(workspace, unfit) : [];
  return { workspaceId: workspace.workspaceId, records: countRecords(workspace), dropped: summarize(unfit), followed };
}

export function fitWorkspaces(workspaces: { list(): Workspace[] }, check: Check = recordErrors): WorkspaceFit[] {
  return workspaces.list().map((workspace) => fitWorkspace(workspace, check));
}
