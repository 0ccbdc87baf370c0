/**
 * How the state is laid out in a shared store: each unit (the mock-wide registry, and each workspace)
 * is a set of named fields holding JSON. A field is the smallest thing written: a record, a secret, a
 * task, a delivery, a rule, a clock. `read` takes a field's value from this process's objects, `apply`
 * puts a value (or its absence) back into them; neither tells the touch hooks, so applying another
 * process's write or undoing one's own is not itself noted as a write.
 */
import type { Clock } from "../../core/clock.js";
import type { FaultRules, StoredFaultRule } from "../../core/faults.js";
import { collectionNames, type CollectionName } from "../records.js";
import type { Task } from "../tasks.js";
import type { Workspace, WorkspaceOptions, Workspaces } from "../workspace.js";

/** A clock as stored: it read `at` when the wall clock read `wall` (ms); a real clock has run at its speed since. */
export interface StoredClock {
  at: number;
  wall: number;
}

export function readClock(clock: Clock): StoredClock {
  return { at: clock.nowMs(), wall: Date.now() };
}

export function applyClock(clock: Clock, stored: StoredClock): void {
  const onSet = clock.onSet;
  clock.onSet = undefined;
  clock.set(clock.mode === "real" ? stored.at + (Date.now() - stored.wall) * clock.speed : stored.at);
  clock.onSet = onSet;
}

export interface Fields {
  read(field: string): unknown;
  apply(field: string, value: unknown): void;
  /** Every field there is (a unit written whole: seeded, reset). */
  all(): string[];
  /** Forgets everything (before a unit is read whole). */
  clear(): void;
}

type Entry = [number, unknown];

export function workspaceFields(workspace: Workspace): Fields {
  const collection = (name: string) =>
    workspace.collections[name as CollectionName] as unknown as {
      entryOf(id: string): { seq: number; value: unknown } | undefined;
      put(id: string, entry: { seq: number; value: unknown } | undefined): void;
      all(): unknown[];
      idOf(value: unknown): string;
    };
  const asEntry = (e: { seq: number; value: unknown } | undefined): Entry | undefined => e && [e.seq, e.value];
  const fromEntry = (v: unknown) =>
    v === undefined ? undefined : { seq: (v as Entry)[0], value: (v as Entry)[1] as never };
  const maps = { c: workspace.credentials, t: workspace.trunks, p: workspace.callPlans } as const;
  return {
    read(field) {
      if (field === "random") return workspace.random.state;
      if (field === "clock") return readClock(workspace.clock);
      const [kind, rest] = split(field);
      if (kind === "r") {
        const [name, id] = split(rest);
        return asEntry(collection(name).entryOf(id));
      }
      if (kind === "d") return asEntry(workspace.outbox.entryOf(rest));
      if (kind === "k") return workspace.tasks.get(rest);
      if (kind === "c" || kind === "t" || kind === "p") return maps[kind].get(rest);
      throw new Error(`unknown workspace field ${field}`);
    },
    apply(field, value) {
      if (field === "random") workspace.random.state = (value as number | undefined) ?? workspace.seed;
      else if (field === "clock") value !== undefined && applyClock(workspace.clock, value as StoredClock);
      else {
        const [kind, rest] = split(field);
        if (kind === "r") {
          const [name, id] = split(rest);
          collection(name).put(id, fromEntry(value));
        } else if (kind === "d") workspace.outbox.put(rest, fromEntry(value));
        else if (kind === "k") workspace.tasks.put(rest, value as Task | undefined);
        else if (kind === "c" || kind === "t" || kind === "p") maps[kind].put(rest, value as never);
      }
    },
    all() {
      const fields = ["random", "clock"];
      for (const name of collectionNames) {
        const c = collection(name);
        for (const record of c.all()) fields.push(`r:${name}:${c.idOf(record)}`);
      }
      for (const delivery of workspace.outbox.all()) fields.push(`d:${delivery.deliveryId}`);
      for (const task of workspace.tasks.all()) fields.push(`k:${task.id}`);
      for (const [kind, map] of Object.entries(maps)) for (const key of map.keys()) fields.push(`${kind}:${key}`);
      return fields;
    },
    clear() {
      const touch = workspace.touch;
      workspace.touch = undefined;
      workspace.clear();
      workspace.touch = touch;
    },
  };
}

/** The mock-wide unit: the workspace registry, the root clock, the fault rules. */
export function mockFields(
  workspaces: Workspaces,
  faults: FaultRules,
  addWorkspace: (options: WorkspaceOptions) => void,
  dropWorkspace: (workspaceId: string) => void,
): Fields {
  return {
    read(field) {
      if (field === "created") return workspaces.createdCount;
      if (field === "faults") return faults.createdCount;
      if (field === "clock") return readClock(workspaces.clock);
      const [kind, id] = split(field);
      if (kind === "w") {
        const w = workspaces.get(id);
        return (
          w &&
          ({
            workspaceId: w.workspaceId,
            apiKey: w.apiKey,
            seed: w.seed,
            empty: w.empty,
            readOnly: w.readOnly,
          } satisfies WorkspaceOptions)
        );
      }
      if (kind === "f") return faults.stored(id);
      throw new Error(`unknown mock field ${field}`);
    },
    apply(field, value) {
      if (field === "created") workspaces.createdCount = (value as number | undefined) ?? 0;
      else if (field === "faults") faults.createdCount = (value as number | undefined) ?? 0;
      else if (field === "clock") value !== undefined && applyClock(workspaces.clock, value as StoredClock);
      else {
        const [kind, id] = split(field);
        if (kind === "f") faults.put(id, value as StoredFaultRule | undefined);
        else if (kind === "w") {
          const options = value as WorkspaceOptions | undefined;
          const existing = workspaces.get(id);
          if (!options) dropWorkspace(id);
          else if (!existing) addWorkspace(options);
          else existing.seed = options.seed;
        }
      }
    },
    all() {
      return [
        "created",
        "faults",
        "clock",
        ...workspaces.list().map((w) => `w:${w.workspaceId}`),
        ...faults.list().map((r) => `f:${r.faultId}`),
      ];
    },
    clear() {
      for (const w of workspaces.list()) dropWorkspace(w.workspaceId);
      for (const rule of faults.list()) faults.put(rule.faultId, undefined);
      workspaces.createdCount = 0;
      faults.createdCount = 0;
    },
  };
}

/** `kind:rest` at the first colon (ids may hold colons). */
function split(field: string): [string, string] {
  const at = field.indexOf(":");
  return at === -1 ? [field, ""] : [field.slice(0, at), field.slice(at + 1)];
}
