/**
 * What a workspace's state is made of, described once. Beside what the workspace is (its options: id,
 * key, seed, flags), its state is a set of entries, each named by the change that writes it
 * (changes.ts):
 *
 *   record      one per record of each collection, in creation order (`seq`)
 *   generic     one per record of each collection the generic layer keeps (generic-records.ts)
 *   delivery    one per webhook delivery of the outbox, in order
 *   credential  an integration's stored credentials, by integration id
 *   trunk       a phone number's SIP trunk secrets, by number
 *   callPlan    a scripted call's plan, by call id
 *   task        what is scheduled (a call's next step, a webhook attempt), by task id
 *   clock       where the workspace's clock stands
 *   random      where its Random stands
 *
 * Everything that writes a workspace's state somewhere reads it through here: the Redis store entry
 * by entry (store/redis/fields.ts), the state file (state.ts) and the control plane's snapshots
 * (snapshot.ts) part by part: records by collection, and the secrets and plans by key.
 */
import type { Clock } from "../core/clock.js";
import type { WorkspaceChange } from "./changes.js";
import { collectionNames, type CollectionName } from "./records.js";
import type { Task } from "./tasks.js";
import type { CallPlan, IntegrationCredentials, TrunkSecrets, Workspace, WorkspaceOptions } from "./workspace.js";

/** What the workspace is: its registry entry (the state file's and Redis's `workspace` entry). */
export function optionsOf(workspace: Workspace): WorkspaceOptions {
  return {
    workspaceId: workspace.workspaceId,
    apiKey: workspace.apiKey,
    seed: workspace.seed,
    empty: workspace.empty,
    readOnly: workspace.readOnly,
    // Absent rather than undefined: entries written before scenarios existed read the same.
    ...(workspace.scenario && { scenario: workspace.scenario }),
  };
}

/** A record or a delivery as data: its place in creation order, and its value. */
export type StoredEntry = [seq: number, value: unknown];

/** A clock as data: it read `at` when the wall clock read `wall` (ms); a real clock has run at its speed since. */
export interface StoredClock {
  at: number;
  wall: number;
}

export function readClock(clock: Clock): StoredClock {
  return { at: clock.nowMs(), wall: Date.now() };
}

/** Puts a clock where it was stored, without telling its onSet (this is not a change of this process's own). */
export function applyClock(clock: Clock, stored: StoredClock): void {
  const onSet = clock.onSet;
  clock.onSet = undefined;
  clock.set(clock.mode === "real" ? stored.at + (Date.now() - stored.wall) * clock.speed : stored.at);
  clock.onSet = onSet;
}

/** The parts keyed by a string, as maps: secrets and call plans. */
const SECRETS = {
  credential: (w: Workspace) => w.credentials,
  trunk: (w: Workspace) => w.trunks,
  callPlan: (w: Workspace) => w.callPlans,
} as const;

interface EntryCollection {
  entryOf(id: string): { seq: number; value: unknown } | undefined;
  put(id: string, entry: { seq: number; value: unknown } | undefined): void;
  all(): unknown[];
  idOf(value: unknown): string;
}

const collectionOf = (w: Workspace, name: CollectionName) => w.collections[name] as unknown as EntryCollection;

const asStored = (e: { seq: number; value: unknown } | undefined): StoredEntry | undefined => e && [e.seq, e.value];
const fromStored = (v: unknown) =>
  v === undefined ? undefined : { seq: (v as StoredEntry)[0], value: (v as StoredEntry)[1] as never };

/** The key of an entry of a keyed part: what a `credential`, `trunk` or `callPlan` change names. */
function secretKey(change: Extract<WorkspaceChange, { kind: "credential" | "trunk" | "callPlan" }>): string {
  return change.kind === "credential" ? change.id : change.kind === "trunk" ? change.number : change.callId;
}

/** Every entry the workspace holds now (a workspace written whole: seeded, reset). */
export function entriesOf(workspace: Workspace): WorkspaceChange[] {
  const entries: WorkspaceChange[] = [{ kind: "random" }, { kind: "clock" }];
  for (const name of collectionNames) {
    const collection = collectionOf(workspace, name);
    for (const record of collection.all())
      entries.push({ kind: "record", collection: name, id: collection.idOf(record) });
  }
  for (const [collection, id] of workspace.generic.ids()) entries.push({ kind: "generic", collection, id });
  for (const delivery of workspace.outbox.all()) entries.push({ kind: "delivery", id: delivery.deliveryId });
  for (const task of workspace.tasks.all()) entries.push({ kind: "task", id: task.id });
  for (const id of workspace.credentials.keys()) entries.push({ kind: "credential", id });
  for (const number of workspace.trunks.keys()) entries.push({ kind: "trunk", number });
  for (const callId of workspace.callPlans.keys()) entries.push({ kind: "callPlan", callId });
  return entries;
}

/** An entry's value as data (undefined: there is none): records and deliveries with their seq. */
export function readEntry(workspace: Workspace, change: WorkspaceChange): unknown {
  switch (change.kind) {
    case "record":
      return asStored(collectionOf(workspace, change.collection).entryOf(change.id));
    case "generic":
      return asStored(workspace.generic.collection(change.collection).entryOf(change.id));
    case "delivery":
      return asStored(workspace.outbox.entryOf(change.id));
    case "task":
      return workspace.tasks.get(change.id);
    case "credential":
    case "trunk":
    case "callPlan":
      return SECRETS[change.kind](workspace).get(secretKey(change));
    case "clock":
      return readClock(workspace.clock);
    case "random":
      return workspace.random.state;
  }
}

/**
 * Puts an entry's value (undefined: removes it) back into the workspace without telling its tracker:
 * a store applying another process's write, or undoing its own.
 */
export function applyEntry(workspace: Workspace, change: WorkspaceChange, value: unknown): void {
  switch (change.kind) {
    case "record":
      return collectionOf(workspace, change.collection).put(change.id, fromStored(value));
    case "generic":
      return workspace.generic.collection(change.collection).put(change.id, fromStored(value));
    case "delivery":
      return workspace.outbox.put(change.id, fromStored(value));
    case "task":
      return workspace.tasks.put(change.id, value as Task | undefined);
    case "credential":
      return workspace.credentials.put(change.id, value as IntegrationCredentials | undefined);
    case "trunk":
      return workspace.trunks.put(change.number, value as TrunkSecrets | undefined);
    case "callPlan":
      return workspace.callPlans.put(change.callId, value as CallPlan | undefined);
    case "clock":
      if (value !== undefined) applyClock(workspace.clock, value as StoredClock);
      return;
    case "random":
      workspace.random.state = (value as number | undefined) ?? workspace.seed;
      return;
  }
}

/** A workspace's records as data: each collection's records, oldest first (a snapshot; the state file's `collections`). */
export type Records = Record<string, unknown[]>;

export function exportRecords(workspace: Workspace): Records {
  return Object.fromEntries(collectionNames.map((name) => [name, workspace.collections[name].all()]));
}

/** The secrets and plans as data, each part as [key, value] pairs (the state file's). */
export interface Secrets {
  credentials: [string, IntegrationCredentials][];
  trunks: [string, TrunkSecrets][];
  callPlans: [string, CallPlan][];
}

export function exportSecrets(workspace: Workspace): Secrets {
  return {
    credentials: [...workspace.credentials],
    trunks: [...workspace.trunks],
    callPlans: [...workspace.callPlans],
  };
}

/** Adds the secrets and plans given (tracked like any write: a restore inside a transaction is written). */
export function importSecrets(workspace: Workspace, secrets: Partial<Secrets>): void {
  for (const [id, credentials] of secrets.credentials ?? []) workspace.credentials.set(id, credentials);
  for (const [number, trunk] of secrets.trunks ?? []) workspace.trunks.set(number, trunk);
  for (const [callId, plan] of secrets.callPlans ?? []) workspace.callPlans.set(callId, plan);
}
