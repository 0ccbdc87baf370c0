/**
 * --state-file: the mock's state on disk. Saved atomically (write a temporary file, fsync, rename),
 * so a crash mid-save leaves the previous file whole; restored on start. A file that cannot be read
 * or parsed stops the start with a clear error and is left untouched.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { Clock } from "../core/clock.js";
import { Registry } from "../store/registry.js";
import { restoreState, serializeState, STATE_VERSION, StateFileError, type PersistedState } from "../store/state.js";
import type { Store } from "../store/store.js";

/**
 * Write to `<path>.tmp` in the same directory, fsync, rename over `path`, fsync the directory. A
 * crash at any point leaves either the old file or the new one, whole; a temporary file left by a
 * crash is overwritten by the next save.
 */
export async function writeStateFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, "w", 0o600);
  try {
    await file.writeFile(text);
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
  await syncDirectory(dirname(path));
}

/** Makes the rename itself durable. Some platforms cannot open a directory: then the rename has to do. */
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    /* not supported here */
  } finally {
    await handle?.close();
  }
}

export async function saveState(path: string, workspaces: Pick<Store, "list">, savedAt: string): Promise<void> {
  await writeStateFile(path, serializeState(workspaces, savedAt));
}

/**
 * Saves one at a time: a save asked for while one is under way runs after it, and asks made while
 * one is already waiting share that one (it takes the state when it starts, so it covers them).
 */
export class StateSaver {
  private last: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly workspaces: Pick<Store, "list">,
    private readonly now: () => string,
  ) {}

  save(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.last
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return saveState(this.path, this.workspaces, this.now());
      });
    this.queued = run;
    this.last = run;
    return run;
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
  } catch {
    // The parser's message quotes the text around the fault, which may hold keys: only the size is told.
    throw new StateFileError(
      `State file ${path} is not valid JSON (${Buffer.byteLength(text)} bytes; truncated or edited?). It was left as it is; move it away to start fresh.`,
    );
  }
  if (state?.version !== STATE_VERSION || !Array.isArray(state.workspaces) || Number.isNaN(Date.parse(state.savedAt))) {
    throw new StateFileError(
      `State file ${path} is not a version ${STATE_VERSION} mock state. It was left as it is; move it away to start fresh.`,
    );
  }
  try {
    // A dry run into a throwaway registry: a state that cannot be restored is refused before anything starts.
    restoreState(state, new Registry({ seed: () => undefined, clock: new Clock({ mode: "virtual" }) }));
  } catch (error) {
    throw new StateFileError(
      `State file ${path} holds a mock state that cannot be restored (${(error as Error).message}). It was left as it is; move it away to start fresh.`,
    );
  }
  return state;
}
