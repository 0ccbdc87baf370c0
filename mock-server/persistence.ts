/**
 * --state-file: the mock's state on disk. Saved atomically (write a temporary file, fsync, rename),
 * so a crash mid-save leaves the previous file whole; restored on start. A file that cannot be read
 * or parsed stops the start with a clear error and is left untouched.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { exportSnapshot, importSnapshot, type Snapshot } from "./control/snapshot.js";
import type { IntegrationCredentials, TrunkSecrets, Workspace, WorkspaceOptions, Workspaces } from "./store/workspace.js";

export const STATE_VERSION = 1;

interface PersistedWorkspace extends WorkspaceOptions {
  collections: Snapshot;
  credentials: [string, IntegrationCredentials][];
  trunks: [string, TrunkSecrets][];
}

export interface PersistedState {
  version: number;
  savedAt: string;
  workspaces: PersistedWorkspace[];
}

export class StateFileError extends Error {}

function persistWorkspace(w: Workspace): PersistedWorkspace {
  return {
    workspaceId: w.workspaceId,
    apiKey: w.apiKey,
    seed: w.seed,
    empty: w.empty,
    readOnly: w.readOnly,
    collections: exportSnapshot(w),
    credentials: [...w.credentials],
    trunks: [...w.trunks],
  };
}

export async function saveState(path: string, workspaces: Workspaces, savedAt: string): Promise<void> {
  const state: PersistedState = { version: STATE_VERSION, savedAt, workspaces: workspaces.list().map(persistWorkspace) };
  const temporary = `${path}.tmp-${process.pid}`;
  const file = await open(temporary, "w", 0o600);
  try {
    await file.writeFile(JSON.stringify(state));
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** undefined when there is no file yet; StateFileError when there is one that cannot be used. */
export async function loadState(path: string): Promise<PersistedState | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(`State file ${path} cannot be read: ${(error as Error).message}. It was left as it is.`);
  }
  let state: PersistedState;
  try {
    state = JSON.parse(text) as PersistedState;
  } catch (error) {
    throw new StateFileError(`State file ${path} is not valid JSON (${(error as Error).message}). It was left as it is; move it away to start fresh.`);
  }
  if (state?.version !== STATE_VERSION || !Array.isArray(state.workspaces)) {
    throw new StateFileError(`State file ${path} is not a version ${STATE_VERSION} mock state. It was left as it is.`);
  }
  return state;
}

/** Puts every persisted workspace back, records and secrets, without seeding. */
export function restoreState(state: PersistedState, workspaces: Workspaces): void {
  for (const saved of state.workspaces) {
    const existing = workspaces.get(saved.workspaceId);
    const workspace = existing ?? workspaces.add(saved, { seed: false });
    if (existing) existing.clear();
    importSnapshot(workspace, saved.collections);
    for (const [id, credentials] of saved.credentials) workspace.credentials.set(id, credentials);
    for (const [number, trunk] of saved.trunks) workspace.trunks.set(number, trunk);
  }
}
