/**
 * A unit of the shared store: the mock-wide registry (`m`), or one workspace (`w:<id>`). What this
 * process knows of it (the version its copy has, the generation it was last written whole for), what
 * the work under way on it changed (each entry with its value before, to write it or put it back), and
 * who holds it. Bookkeeping only, no I/O: commit.ts writes units, repair.ts rewrites one left behind.
 *
 * The one rule everything else leans on: a unit's bookkeeping (`recording`, `before`, `whole`,
 * `dropped`, `followUps`) is touched only by whoever holds the unit (`hold`), or by the work that
 * made it (`holdNew`: a workspace born in a control-plane request is held by that request until it is
 * written). A holder may await; nobody else reads or changes the unit meanwhile.
 */
import type { Change } from "../changes.js";
import type { Workspace } from "../workspace.js";
import type { Fields } from "./fields.js";
import type { UnitWrite } from "./redis.js";

export type FollowUp = (undone: boolean) => void;

export interface Unit<C extends Change = Change> {
  name: string;
  fields: Fields<C>;
  /** The version this process's copy has; -1: read it whole next time. */
  version: number;
  /** Set while work runs on the unit: the trackers note changes only then. */
  recording: boolean;
  /** Each field the work changed, with its entry and the value before. */
  before?: Map<string, { change: C; value: unknown }>;
  /** The work replaced the whole unit (born, reset): it is written whole. */
  whole?: boolean;
  /** The work deleted the workspace: its keys go. */
  dropped?: boolean;
  /** The last holder of the unit; the next waits for it (see `hold`). */
  tail: Promise<void>;
  workspace?: Workspace;
  /** What the work under way queued to start once it is written (afterCommit). */
  followUps: FollowUp[];
  /** A workspace's: the registry generation it was last written whole for, as last read or written. */
  gen: number;
  /** A workspace's: when its earliest task was due as the work under way began (due hints). */
  dueBefore?: number;
}

export function newUnit<C extends Change>(name: string, fields?: Fields<C>): Unit<C> {
  return {
    name,
    fields: fields as Fields<C>,
    version: 0,
    recording: false,
    tail: Promise.resolve(),
    followUps: [],
    gen: 0,
  };
}

const byName = (a: Unit, b: Unit) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Holds units while `body` runs: each waits for its previous holder. Taken in name order (the
 * registry `m` before any workspace `w:...`), so two holders never wait on each other.
 */
export async function hold<T>(units: readonly Unit[], body: () => Promise<T> | T): Promise<T> {
  const sorted = [...new Set(units)].sort(byName);
  const releases: (() => void)[] = [];
  try {
    for (const unit of sorted) {
      const previous = unit.tail;
      let release!: () => void;
      unit.tail = new Promise<void>((resolve) => (release = resolve));
      await previous;
      releases.push(release);
    }
    return await body();
  } finally {
    for (const release of releases) release();
  }
}

/**
 * Holds a unit made just now, without waiting (nobody can hold it yet): for the work that made it,
 * until that work's writes are done. Returns the release.
 */
export function holdNew(unit: Unit): () => void {
  let release!: () => void;
  // Made just now: nobody holds it or waits for it, so its previous tail is settled.
  unit.tail = new Promise<void>((resolve) => (release = resolve));
  return release;
}

/** Work begins on a held unit: its changes are noted from now on. */
export function startRecording(unit: Unit): void {
  unit.before = new Map();
  unit.recording = true;
}

/** A tracker told of a change: noted, with the value before, while work runs on the unit. */
export function note<C extends Change>(unit: Unit<C>, change: C): void {
  if (!unit.recording || !unit.before) return;
  const field = unit.fields.fieldOf(change);
  if (!unit.before.has(field)) unit.before.set(field, { change, value: unit.fields.read(change) });
}

/** Whether the work changed the unit (so it must be written). */
export const changed = (unit: Unit): boolean => (unit.before?.size ?? 0) > 0 || !!unit.whole || !!unit.dropped;

/** The unit's work is over (written, or put back): its notes go. */
export function settle(unit: Unit): void {
  unit.before = undefined;
  unit.whole = false;
  unit.dropped = false;
  unit.recording = false;
}

/**
 * Puts every noted entry back as it was; a unit that was to be written whole or dropped is read
 * again from Redis instead (version -1).
 */
export function putBack(unit: Unit): void {
  unit.recording = false;
  if (unit.whole || unit.dropped) unit.version = -1;
  const fields = unit.fields as Fields<Change>;
  for (const { change, value } of unit.before?.values() ?? []) fields.apply(change, value);
  settle(unit);
}

/** Starts what the work queued, telling it whether the work was undone. */
export function runFollowUps(unit: Unit, undone: boolean): void {
  const queued = unit.followUps;
  if (queued.length === 0) return;
  unit.followUps = [];
  for (const start of queued) start(undone);
}

/** What to send for the unit's work: the fields it changed, all of it (whole), or its removal. */
export function writeOf(unit: Unit): UnitWrite {
  const mode = unit.dropped ? "drop" : unit.whole ? "whole" : "fields";
  const fields = unit.fields as Fields<Change>;
  if (mode === "fields" && !unit.before) throw new Error(`unit ${unit.name} is written with no work noted on it`);
  const changes: Change[] =
    mode === "drop" ? [] : mode === "whole" ? fields.all() : [...unit.before!.values()].map((b) => b.change);
  const values = changes.map((change): [string, string] => {
    const value = fields.read(change);
    return [fields.fieldOf(change), value === undefined ? "" : JSON.stringify(value)];
  });
  return { unit: unit.name, expected: unit.version, mode, values };
}
