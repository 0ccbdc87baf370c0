/**
 * Change tracking: what a store is told, as typed values, before a piece of state changes. A
 * Workspace (and the Registry) gets one tracker at construction and tells it of every entry about to
 * be written; the memory store needs none (NO_TRACKING), the Redis store notes the entry's value
 * before the change, to write what changed and to undo it on a conflict (store/redis/).
 */
import type { FaultChange } from "../core/faults.js";
import type { CollectionName } from "./records.js";

/** One entry of a workspace's state (workspace-state.ts describes them all). */
export type WorkspaceChange =
  | { kind: "record"; collection: CollectionName; id: string }
  /** A record the generic layer keeps, of a collection inferred from the document (generic-records.ts). */
  | { kind: "generic"; collection: string; id: string }
  | { kind: "delivery"; id: string }
  | { kind: "credential"; id: string }
  | { kind: "trunk"; number: string }
  | { kind: "callPlan"; callId: string }
  | { kind: "task"; id: string }
  /** The workspace's clock was moved. */
  | { kind: "clock" }
  /** The workspace's Random drew (or was replaced): ids to come depend on where it stands. */
  | { kind: "random" };

/** One entry of the mock-wide state: the registry, the root clock, the fault rules. */
export type MockChange =
  /** A workspace added, deleted or given a new seed. */
  | { kind: "workspace"; workspaceId: string }
  /** The count behind generated workspace ids. */
  | { kind: "created" }
  /** The root clock was moved. */
  | { kind: "rootClock" }
  | FaultChange;

export type Change = WorkspaceChange | MockChange;

export interface ChangeTracker<C extends Change = Change> {
  /** Called before the entry changes (its value is still the one before). */
  changed(change: C): void;
}

/** The tracker of a store that keeps nothing but the objects themselves (memory). */
export const NO_TRACKING: ChangeTracker<never> = { changed: () => undefined };

/** Shared values for the changes without a key: no allocation per draw or per clock move. */
export const CLOCK_CHANGE: WorkspaceChange = Object.freeze({ kind: "clock" });
export const RANDOM_CHANGE: WorkspaceChange = Object.freeze({ kind: "random" });
export const ROOT_CLOCK_CHANGE: MockChange = Object.freeze({ kind: "rootClock" });
export const CREATED_CHANGE: MockChange = Object.freeze({ kind: "created" });
