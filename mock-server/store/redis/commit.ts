/**
 * The commit protocol: one attempt of a transaction on units this process holds (unit.ts), from the
 * work's run on the copies to the writes in Redis, or the undo when another process wrote first.
 *
 * A unit's work is written by one script, and only if nobody wrote the unit since the copy was read
 * (optimistic, like WATCH/MULTI): a conflict undoes the attempt, and the caller reads the units again
 * and runs the work again. Work on several units (the control plane: create, reset, delete, reset
 * everything; the first process's seeding) cannot be one script. Its writes go in this order, each
 * unit's whole or absent:
 *  1. due hints for every unit whose earliest task moves earlier (due.ts);
 *  2. field writes of other workspaces (creating one draws its key from the default workspace's
 *     Random), each with its version check: a conflict undoes the rest (what was written stays: a
 *     Random that moved on, no harm);
 *  3. the registry, with its version check: the linearisation point. Its entry for each workspace born
 *     or reset here carries `gen`, this commit's version (fields.ts);
 *  4. each workspace born, reset or deleted, written whole (or dropped, leaving its generation behind)
 *     for that generation: only if its own is older (so a late or repeated write never undoes a newer
 *     one), without a version check. A crash between 3 and 4 is repaired by the next reader (repair.ts).
 *
 * Workspaces born in the work are held by it from the moment they are made (`adopt`) until their write
 * is done: so no scheduled task, webhook attempt or repair of this process touches one half-written.
 */
import type { Change, MockChange } from "../changes.js";
import type { Workspace } from "../workspace.js";
import { dueOf, HINT_COMMIT_MS, HINT_LEASE_MS, needsCorrection, needsHint } from "./due.js";
import type { CommitResult, RedisLink } from "./redis.js";
import { changed, holdNew, note, putBack, runFollowUps, settle, startRecording, type Unit, writeOf } from "./unit.js";

export type Outcome<T> = { done: true; result: T } | { done: false };

/** What the protocol needs of the store around it. */
export interface CommitParts {
  link: RedisLink;
  /** The registry's unit. */
  mock: Unit<MockChange>;
  /** Each workspace's generation as the registry names it (fields.ts). */
  gens: Map<string, number>;
  /** Tells the registry a workspace's state changed other than by this process's own work. */
  bump(workspace: Workspace): void;
}

/** The attempt whose synchronous work is running: where units born in it are adopted. */
interface Attempt {
  born: Unit[];
  releases: (() => void)[];
}

export class Commits {
  /** Commits refused because the version moved (GET /__mock/metrics). */
  conflicts = 0;
  private running: Attempt | undefined;

  constructor(private readonly parts: CommitParts) {}

  /**
   * A unit made now (a workspace added): if work is running, it was born in that work, which holds it
   * and writes it whole. Outside work (a copy of another process's workspace) nothing happens.
   */
  adopt(unit: Unit): void {
    const attempt = this.running;
    if (!attempt) return;
    attempt.releases.push(holdNew(unit));
    attempt.born.push(unit);
    unit.before = new Map();
    unit.whole = true;
  }

  /**
   * Runs `work` once on `units` (held by the caller) and writes what it changed. `done: false` when a
   * version check failed: everything is undone, and the caller reads the units again and retries.
   */
  async attempt<T>(units: Unit[], work: () => T): Promise<Outcome<T>> {
    // A copy of unknown version (-1: its whole write was refused or undone) holds what this process
    // meant to write, not what Redis has. Work on it would be written with expected -1, which skips
    // the version check: a field write landing blind, and the copy then claiming Redis's version while
    // lacking what others wrote before. So it is read again first, as after a conflict.
    if (units.some((unit) => unit.version < 0)) return { done: false };
    const attempt: Attempt = { born: [], releases: [] };
    try {
      for (const unit of units) {
        startRecording(unit);
        if (unit.workspace) unit.dueBefore = dueOf(unit.workspace);
      }
      let result: T;
      this.running = attempt;
      try {
        result = work();
      } catch (error) {
        this.undo([...units, ...attempt.born]);
        throw error;
      } finally {
        this.running = undefined;
      }
      return await this.finish(units, attempt.born, result);
    } finally {
      for (const release of attempt.releases) release();
    }
  }

  /** After the work: which units to write, in which way; then the writes. */
  private async finish<T>(units: Unit[], born: Unit[], result: T): Promise<Outcome<T>> {
    const { mock, gens } = this.parts;
    const all = [...units, ...born];
    const touched = all.filter(changed);
    // Workspaces born, reset or deleted: the registry's commit names their new generation (its version).
    const replaced = touched.filter((u) => u.workspace && (u.whole || u.dropped));
    if (replaced.length > 0 && !units.includes(mock)) {
      this.undo(all);
      throw new Error("a workspace was replaced outside the control plane");
    }
    if (replaced.length > 0 && !touched.includes(mock)) touched.push(mock);
    for (const unit of replaced) {
      const id = unit.workspace!.workspaceId;
      note(mock, { kind: "workspace", workspaceId: id });
      if (!unit.dropped) gens.set(id, mock.version + 1);
    }
    for (const unit of all) {
      unit.recording = false;
      if (!touched.includes(unit)) settle(unit);
    }
    if (touched.length === 0) return { done: true, result };
    return (await this.write(touched, replaced)) ? { done: true, result } : { done: false };
  }

  /**
   * Writes what the work changed: one script when it touched one unit; otherwise in the order the
   * file's comment gives. False when a version check failed (everything not yet written is undone).
   */
  private async write(touched: Unit[], replaced: Unit[]): Promise<boolean> {
    const { link, mock } = this.parts;
    const left = new Set(touched);
    const fail = (error: unknown): never => {
      this.undo([...left]);
      throw error;
    };
    const deadline = await this.hint(touched).catch(fail);
    const checked = touched.filter((u) => u !== mock && !replaced.includes(u));
    checked.sort((a, b) => (a.name < b.name ? -1 : 1));
    if (touched.includes(mock)) checked.push(mock);
    for (const unit of checked) {
      const [result] = await link.commit([{ ...writeOf(unit), deadline }]).catch(fail);
      if (result.kind !== "written") {
        if (result.kind === "conflict") this.conflicts++;
        this.undo([...left]);
        return false;
      }
      left.delete(unit);
      this.written(unit, result.version);
    }
    if (replaced.length === 0) return true;
    // After the registry's commit, whatever happens: each unit written whole for its generation, or repaired later.
    const gen = mock.version;
    const results = await link
      .commit(replaced.map((u) => ({ ...writeOf(u), expected: -1, gen, deadline })))
      .catch((error: unknown) => replaced.map((): CommitResult | Error => error as Error));
    const dropped: string[] = [];
    for (const [i, unit] of replaced.entries()) {
      const result = results[i];
      left.delete(unit);
      if (unit.dropped) dropped.push(unit.workspace!.workspaceId);
      if (!(result instanceof Error) && result.kind === "written") this.written(unit, result.version, gen);
      else {
        // Not written (a newer write is there, or Redis failed): read whole next time, repaired if behind.
        unit.version = -1;
        settle(unit);
        runFollowUps(unit, false);
      }
    }
    await link.dueForget(dropped).catch(() => undefined);
    const failed = results.find((r): r is Error => r instanceof Error);
    if (failed) throw failed;
    return true;
  }

  /** A unit's write is in: its new version (and generation), its follow-ups started, the due entry corrected. */
  written(unit: Unit, version: number, gen?: number): void {
    const before = unit.dueBefore;
    unit.version = version;
    if (gen !== undefined) unit.gen = gen;
    settle(unit);
    runFollowUps(unit, false);
    const workspace = unit.workspace;
    if (!workspace || version === 0) return;
    const after = dueOf(workspace);
    // Fix late, without waiting: the entry is early enough meanwhile (due.ts).
    if (needsCorrection(before, after))
      this.parts.link.dueCorrect(workspace.workspaceId, version, after, HINT_LEASE_MS, false).catch(() => undefined);
  }

  /** Hint early (due.ts): resolves to the deadline for the commits the hints cover, 0 when none was needed. */
  async hint(units: Unit[]): Promise<number> {
    const hints: { workspaceId: string; wallMs: number; version: number }[] = [];
    for (const unit of units) {
      if (!unit.workspace || unit.dropped) continue;
      const after = dueOf(unit.workspace);
      if (needsHint(unit.dueBefore, after))
        hints.push({ workspaceId: unit.workspace.workspaceId, wallMs: after, version: Math.max(0, unit.version) + 1 });
    }
    if (hints.length === 0) return 0;
    return (await this.parts.link.dueHint(hints)) + HINT_COMMIT_MS;
  }

  /** Puts the units back as they were before the work; what the work queued learns it was undone. */
  undo(units: Unit[]): void {
    for (const unit of units) {
      putBack(unit as Unit<Change>);
      if (unit.workspace) {
        this.parts.bump(unit.workspace);
        runFollowUps(unit, true);
      }
    }
  }
}
