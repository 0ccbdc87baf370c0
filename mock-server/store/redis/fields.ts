/**
 * How the state is laid out in Redis: each unit (the mock-wide registry, and each workspace) is a set
 * of named fields holding JSON. A field is one entry of the state, named by the change that writes it
 * (store/changes.ts): `fieldOf` makes the name, `changeOf` reads back a name `fieldOf` made (what a
 * sync brings from Redis). What a workspace's entries are, and how each is read and put back, is
 * described in store/workspace-state.ts; the mock-wide entries are here.
 *
 *   workspace unit: r:<collection>:<id>  g:<generic collection>:<id>  d:<deliveryId>  c:<integrationId>  t:<number>  p:<callId>
 *                   k:<taskId>  clock  random
 *   mock unit:      w:<workspaceId>  created  clock  f:<faultId>  faults
 *
 * `read` takes an entry's value from this process's objects, `apply` puts a value (or its absence) back
 * into them; neither tells a tracker, so applying another process's write or undoing one's own is not
 * itself noted as a write.
 */
import type { FaultRules, StoredFaultRule } from "../../core/faults.js";
import type { MockChange, WorkspaceChange } from "../changes.js";
import { collectionNames, type CollectionName } from "../records.js";
import type { Registry } from "../registry.js";
import type { Workspace, WorkspaceOptions } from "../workspace.js";
import {
  applyClock,
  applyEntry,
  entriesOf,
  optionsOf,
  readClock,
  readEntry,
  type StoredClock,
} from "../workspace-state.js";

/** The entries of one unit, each named by a change of type C. */
export interface Fields<C> {
  /** The field of an entry. */
  fieldOf(change: C): string;
  /** The entry of a field `fieldOf` made (read back from Redis). */
  changeOf(field: string): C;
  read(change: C): unknown;
  apply(change: C, value: unknown): void;
  /** Every entry there is (a unit written whole: seeded, reset). */
  all(): C[];
  /** Forgets everything (before a unit is read whole). */
  clear(): void;
}

/** `kind:rest` at the first colon (ids may hold colons). */
function split(field: string): [string, string] {
  const at = field.indexOf(":");
  return at === -1 ? [field, ""] : [field.slice(0, at), field.slice(at + 1)];
}

export function workspaceFieldOf(change: WorkspaceChange): string {
  switch (change.kind) {
    case "record":
      return `r:${change.collection}:${change.id}`;
    case "generic":
      return `g:${change.collection}:${change.id}`;
    case "delivery":
      return `d:${change.id}`;
    case "credential":
      return `c:${change.id}`;
    case "trunk":
      return `t:${change.number}`;
    case "callPlan":
      return `p:${change.callId}`;
    case "task":
      return `k:${change.id}`;
    case "clock":
    case "random":
      return change.kind;
  }
}

export function workspaceChangeOf(field: string): WorkspaceChange {
  if (field === "clock" || field === "random") return { kind: field };
  const [kind, rest] = split(field);
  switch (kind) {
    case "r": {
      const [collection, id] = split(rest);
      if (!(collectionNames as string[]).includes(collection)) break;
      return { kind: "record", collection: collection as CollectionName, id };
    }
    case "g": {
      const [collection, id] = split(rest);
      return { kind: "generic", collection, id };
    }
    case "d":
      return { kind: "delivery", id: rest };
    case "c":
      return { kind: "credential", id: rest };
    case "t":
      return { kind: "trunk", number: rest };
    case "p":
      return { kind: "callPlan", callId: rest };
    case "k":
      return { kind: "task", id: rest };
  }
  throw new Error(`unknown workspace field ${field}`);
}

export function workspaceFields(workspace: Workspace, clear: () => void): Fields<WorkspaceChange> {
  return {
    fieldOf: workspaceFieldOf,
    changeOf: workspaceChangeOf,
    read: (change) => readEntry(workspace, change),
    apply: (change, value) => applyEntry(workspace, change, value),
    all: () => entriesOf(workspace),
    clear,
  };
}

export function mockFieldOf(change: MockChange): string {
  switch (change.kind) {
    case "workspace":
      return `w:${change.workspaceId}`;
    case "created":
      return "created";
    case "rootClock":
      return "clock";
    case "fault":
      return `f:${change.faultId}`;
    case "faultCount":
      return "faults";
  }
}

export function mockChangeOf(field: string): MockChange {
  if (field === "created") return { kind: "created" };
  if (field === "clock") return { kind: "rootClock" };
  if (field === "faults") return { kind: "faultCount" };
  const [kind, id] = split(field);
  if (kind === "w") return { kind: "workspace", workspaceId: id };
  if (kind === "f") return { kind: "fault", faultId: id };
  throw new Error(`unknown mock field ${field}`);
}

/**
 * The mock-wide unit: the workspace registry, the root clock, the fault rules. A workspace's entry
 * also holds `gen`, the registry version at which its state was last replaced whole (born, reset):
 * `gens` keeps it per workspace (redis-store.ts says what it is for).
 */
export function mockFields(
  registry: Registry,
  faults: FaultRules,
  gens: Map<string, number>,
  addWorkspace: (options: WorkspaceOptions) => void,
  dropWorkspace: (workspaceId: string) => void,
): Fields<MockChange> {
  return {
    fieldOf: mockFieldOf,
    changeOf: mockChangeOf,
    read(change) {
      switch (change.kind) {
        case "created":
          return registry.createdCount;
        case "faultCount":
          return faults.createdCount;
        case "rootClock":
          return readClock(registry.clock);
        case "workspace": {
          const workspace = registry.get(change.workspaceId);
          return workspace && { ...optionsOf(workspace), gen: gens.get(change.workspaceId) ?? 0 };
        }
        case "fault":
          return faults.stored(change.faultId);
      }
    },
    apply(change, value) {
      switch (change.kind) {
        case "created":
          registry.createdCount = (value as number | undefined) ?? 0;
          return;
        case "faultCount":
          faults.createdCount = (value as number | undefined) ?? 0;
          return;
        case "rootClock":
          if (value !== undefined) applyClock(registry.clock, value as StoredClock);
          return;
        case "fault":
          return faults.put(change.faultId, value as StoredFaultRule | undefined);
        case "workspace": {
          const { gen, ...options } = (value ?? {}) as WorkspaceOptions & { gen?: number };
          const existing = registry.get(change.workspaceId);
          if (value === undefined) return dropWorkspace(change.workspaceId);
          gens.set(change.workspaceId, gen ?? 0);
          if (!existing) addWorkspace(options);
          else {
            existing.seed = options.seed;
            existing.scenario = options.scenario;
          }
        }
      }
    },
    all() {
      return [
        { kind: "created" },
        { kind: "faultCount" },
        { kind: "rootClock" },
        ...registry.list().map((w): MockChange => ({ kind: "workspace", workspaceId: w.workspaceId })),
        ...faults.list().map((r): MockChange => ({ kind: "fault", faultId: r.faultId })),
      ];
    },
    clear() {
      for (const w of registry.list()) dropWorkspace(w.workspaceId);
      for (const rule of faults.list()) faults.put(rule.faultId, undefined);
      registry.createdCount = 0;
      faults.createdCount = 0;
    },
  };
}
