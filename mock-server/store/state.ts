/**
 * The mock's whole state as data: what --state-file saves and restores (persistence.ts does the file
 * work, in Node only), and what a fresh mock restores from. Each workspace as workspace-state.ts
 * describes it: its options, its clock, its records by collection, its secrets and call plans (tasks,
 * outbox and Random are not kept: the simulation resumes from the records).
 */
import type { RecordCheck } from "./record-checks.js";
import { importSnapshot, type Snapshot } from "./snapshot.js";
import type { Store } from "./store.js";
import {
  isScenario,
  SCENARIOS,
  type CallPlan,
  type IntegrationCredentials,
  type TrunkSecrets,
  type Workspace,
  type WorkspaceOptions,
} from "./workspace.js";
import { exportRecords, exportSecrets, importSecrets, optionsOf } from "./workspace-state.js";

export class StateFileError extends Error {}

export const STATE_VERSION = 1;

interface PersistedWorkspace extends WorkspaceOptions {
  /** The workspace clock's time when saved (ahead of savedAt by what was advanced for it alone). */
  clock?: string;
  collections: Snapshot;
  credentials: [string, IntegrationCredentials][];
  trunks: [string, TrunkSecrets][];
  /** The generic layer's records by collection, as [id, record] pairs; absent in older state files. */
  generic?: Record<string, [string, Record<string, unknown>][]>;
  /** Scripted calls not final yet; absent in state files saved before calls could be scripted. */
  callPlans?: [string, CallPlan][];
}

export interface PersistedState {
  version: number;
  savedAt: string;
  workspaces: PersistedWorkspace[];
}

function persistWorkspace(w: Workspace): PersistedWorkspace {
  return {
    ...optionsOf(w),
    clock: w.clock.iso(),
    collections: exportRecords(w),
    ...exportSecrets(w),
    generic: w.generic.export(),
  };
}

/** The state as it is now, as text: taken in one synchronous step, so a save is one point in time. */
export function serializeState(workspaces: Pick<Store, "list">, savedAt: string): string {
  const state: PersistedState = {
    version: STATE_VERSION,
    savedAt,
    workspaces: workspaces.list().map(persistWorkspace),
  };
  return JSON.stringify(state);
}

/**
 * Puts every persisted workspace back, records and secrets, without seeding. A workspace clock keeps
 * its lead over the root clock (whose own time the caller restores from savedAt, or not). Records are
 * checked by `check` (the mock's spec; the bundled one by default).
 */
export function restoreState(
  state: PersistedState,
  workspaces: Pick<Store, "get" | "add" | "clock">,
  check?: RecordCheck,
): void {
  for (const [i, saved] of state.workspaces.entries()) {
    // Messages name the workspace by position or id only: the file also holds keys and credentials.
    if (typeof saved?.workspaceId !== "string" || typeof saved.apiKey !== "string" || !Number.isInteger(saved.seed)) {
      throw new Error(`workspace #${i} lacks its id, key or seed`);
    }
    if (
      !saved.collections ||
      typeof saved.collections !== "object" ||
      !Array.isArray(saved.credentials) ||
      !Array.isArray(saved.trunks)
    ) {
      throw new Error(`workspace ${saved.workspaceId} lacks its collections or secrets`);
    }
    if (saved.scenario !== undefined && !isScenario(saved.scenario))
      throw new Error(`workspace ${saved.workspaceId} names an unknown scenario; known: ${SCENARIOS.join(", ")}`);
    const existing = workspaces.get(saved.workspaceId);
    const workspace = existing ?? workspaces.add(saved, { seed: false });
    if (existing) {
      existing.clear();
      // The records restored are the saved scenario's: a reset must reseed that one, not the one started with.
      existing.scenario = saved.scenario;
    }
    const lead = Date.parse(saved.clock ?? "") - Date.parse(state.savedAt);
    if (Number.isFinite(lead)) workspace.clock.set(workspaces.clock.nowMs() + lead);
    importSnapshot(workspace, saved.collections, check);
    for (const [name, records] of Object.entries(saved.generic ?? {}))
      if (Array.isArray(records)) workspace.generic.restore(name, records);
    importSecrets(workspace, {
      credentials: saved.credentials,
      trunks: saved.trunks,
      callPlans: Array.isArray(saved.callPlans) ? saved.callPlans : [],
    });
  }
}
