/**
 * The store in Redis (--store redis://...), so that any number of processes are one mock.
 *
 * Each process keeps a copy of every unit (the mock-wide registry `m`, and each workspace) in its own
 * Registry and knows the version it copied. The handlers stay synchronous over that copy:
 *  - a request first reads what changed since its copy's versions (authenticate): the registry and its
 *    workspace, two scripts sent together (one round trip; a unit that did not change answers "same");
 *  - its work runs on the copy while the change trackers note each entry it is about to change, with
 *    the value it had;
 *  - if it changed anything, one script writes those fields, and only if no other process wrote the
 *    unit since the copy was read (optimistic concurrency). Otherwise the work is undone, the copy
 *    brought up to date, and the work run again.
 * A unit's work and write run one at a time within a process (`exclusive`), so no work sees another's
 * write before it is in Redis, and an undo never meets another's change.
 * Every script touches one unit's keys (one hash slot, keys.ts): the same code runs on a Redis Cluster.
 *
 * The registry is read with every request, not trusted to a copy kept fresh by Pub/Sub messages: a
 * message can reach a process after a request that follows the write it announces (measured: about one
 * request in 300 through another process missed a fault rule just made), and read-your-writes across
 * processes is the store's promise. Reading it beside the workspace costs no extra round trip.
 *
 * Work on several units (the control plane: create, reset, delete, reset everything; the first
 * process's seeding) cannot be one script. Its writes go in this order, each unit's whole or absent:
 *  1. due hints for every unit whose earliest task moves earlier (due.ts);
 *  2. field writes of other workspaces (creating one draws its key from the default workspace's
 *     Random), each with its version check: a conflict undoes the rest and runs the work again (what
 *     was written stays: a Random that moved on, no harm);
 *  3. the registry, with its version check: the linearisation point. Its entry for each workspace born
 *     or reset here carries `gen`, this commit's version (fields.ts);
 *  4. each workspace born, reset or deleted, written whole (or dropped) for that generation: only if
 *     its own `g` is older (so a late or repeated write never undoes a newer one), without a version check.
 * A crash between 3 and 4 leaves the registry naming a generation a workspace was not written for: the
 * next process that reads that workspace sees its `g` behind the registry's `gen` and repairs it, seeding
 * it as the writer would have (`repair`; the first of several writes for one generation wins, the others
 * read its result). A workspace deleted in the registry but not yet dropped is invisible (no registry
 * entry names it); its keys stay until Redis is emptied (a crash exactly there, nothing else).
 * Between 3 and 4 a request on a workspace being reset may still see it before the reset.
 *
 * Scheduled tasks are fields like any other: whichever process runs one writes its removal with its
 * effects, so it happens once. In real time each process also looks, every POLL_MS, for workspaces
 * whose earliest task is due (the due index, due.ts), so work continues when the process that
 * scheduled it dies.
 */
import type { Clock } from "../../core/clock.js";
import type { Random } from "../../core/random.js";
import type { Change, ChangeTracker, MockChange, WorkspaceChange } from "../changes.js";
import { Registry } from "../registry.js";
import type { Store, StoreFactory, StoreParts } from "../store.js";
import { Workspace, type CreateOptions, type WorkspaceOptions } from "../workspace.js";
import { HINT_COMMIT_MS, HINT_LEASE_MS, needsCorrection, needsHint } from "./due.js";
import { mockFields, workspaceFields, type Fields } from "./fields.js";
import { REGISTRY_UNIT, workspaceUnit } from "./keys.js";
import type { CommitResult, RedisLink, SyncResult, UnitWrite } from "./redis.js";

const POLL_MS = 200;
const MAX_ATTEMPTS = 50;

type FollowUp = (undone: boolean) => void;

interface Unit<C extends Change = Change> {
  name: string;
  fields: Fields<C>;
  version: number;
  /** Set while work runs on the unit: the trackers note changes only then. */
  recording: boolean;
  /** Each field the work changed, with its entry and the value before. */
  before?: Map<string, { change: C; value: unknown }>;
  /** The work replaced the whole unit (a reset): it is written whole. */
  whole?: boolean;
  /** The work deleted the workspace: its keys go. */
  dropped?: boolean;
  /** The last holder of the unit; the next waits for it (see `exclusive`). */
  tail: Promise<void>;
  workspace?: Workspace;
  /** What the work under way queued to start once it is written (afterCommit). */
  followUps: FollowUp[];
  /** A workspace's: the registry generation it was last written whole for, as last read or written. */
  gen: number;
  /** A workspace's: when its earliest task was due as the work under way began (due hints). */
  dueBefore?: number;
}

export class RedisStore implements Store {
  readonly kind: "redis" | "redis-cluster";
  private readonly registry: Registry;
  /** Each workspace's unit, made with the workspace (its change tracker notes into it). */
  private readonly unitOfWorkspace = new WeakMap<Workspace, Unit<WorkspaceChange>>();
  private readonly mock: Unit<MockChange>;
  /** Each workspace's generation as the registry names it (fields.ts; see the file's comment). */
  private readonly gens = new Map<string, number>();
  private poller: ReturnType<typeof setInterval> | undefined;
  /** How open seeded: a store found empty later (Redis restarted without its data) is seeded again. */
  private seedEmpty: (() => void) | undefined;
  private readonly runDue: (workspace: Workspace) => Promise<void>;
  private conflicts = 0;
  private retries = 0;

  constructor(
    private readonly link: RedisLink,
    parts: StoreParts,
  ) {
    this.kind = link.kind;
    this.runDue = parts.runDue;
    this.mock = this.newUnit<MockChange>(REGISTRY_UNIT);
    const mockTracker: ChangeTracker<MockChange> = { changed: (change) => this.note(this.mock, change) };
    this.registry = new Registry({
      ...parts,
      tracker: mockTracker,
      newWorkspace: (options, clock) => this.newWorkspace(options, clock),
    });
    this.mock.fields = mockFields(
      this.registry,
      parts.faults,
      this.gens,
      (options) => this.addCopy(options),
      (id) => this.dropCopy(id),
    );
    parts.faults.onTouch = (change) => this.note(this.mock, change);
  }

  get clock(): Clock {
    return this.registry.clock;
  }

  get(workspaceId: string): Workspace | undefined {
    return this.registry.get(workspaceId);
  }

  list(): Workspace[] {
    return this.registry.list();
  }

  /** Seeded here: its records are written with the registry entry, whole. */
  add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    const workspace = this.registry.add(options, how);
    this.unitOf(workspace).whole = true;
    return workspace;
  }

  create(options: CreateOptions, random: Random): Workspace {
    const workspace = this.registry.create(options, random);
    this.unitOf(workspace).whole = true;
    return workspace;
  }

  reset(defaultId: string, seed?: number): void {
    for (const workspace of this.list()) this.unitOf(workspace).whole = true;
    this.registry.reset(defaultId, seed);
  }

  resetOne(workspace: Workspace, seed?: number): void {
    this.unitOf(workspace).whole = true;
    this.registry.resetOne(workspace, seed);
  }

  delete(workspace: Workspace): void {
    const unit = this.unitOf(workspace);
    this.registry.delete(workspace);
    this.gens.delete(workspace.workspaceId);
    unit.dropped = true;
  }

  /** Round trips, conflicts and retries so far, and journal entries not yet confirmed (GET /__mock/metrics). */
  stats(): { redisRoundTrips: number; conflicts: number; retries: number; journalPending: number } {
    return {
      redisRoundTrips: this.link.roundTrips,
      conflicts: this.conflicts,
      retries: this.retries,
      journalPending: this.link.journalPending,
    };
  }

  /**
   * Joins the store: the first process seeds it (`seedDefault` adds the default workspace), any later
   * one reads what is there. Both race safely: the seeding is written only if the store is still empty.
   * Then, on real-time clocks, looks for due work every POLL_MS.
   */
  async open(seedDefault: () => void): Promise<"seeded" | "joined"> {
    const how = await this.join(seedDefault);
    this.startPolling();
    return how;
  }

  private async join(seed: () => void): Promise<"seeded" | "joined"> {
    this.seedEmpty = seed;
    let seeded = false;
    // A process that loses the race to seed finds, on its retry, the store seeded by the winner.
    await this.run(
      [this.mock],
      () => {
        if (this.mock.version !== 0) return;
        seed();
        // Written whole: the root clock and the counters too, which later processes take from it.
        this.mock.whole = seeded = true;
      },
      true,
    );
    await this.sync(this.workspaceUnits());
    return seeded ? "seeded" : "joined";
  }

  /** The store lost everything (a Redis restarted empty): seeded again, as the first process did. */
  private async reseedIfEmptied(): Promise<void> {
    if (this.mock.version === 0 && this.seedEmpty) await this.join(this.seedEmpty);
  }

  private startPolling(): void {
    if (this.clock.mode !== "real" || this.poller) return;
    let polling = false;
    this.poller = setInterval(() => {
      if (polling) return;
      polling = true;
      this.pollOnce()
        .catch(() => undefined)
        .finally(() => (polling = false));
    }, POLL_MS);
    this.poller.unref();
  }

  /** Runs what is due, then corrects each entry to the state it read (due.ts: "fix late"). */
  private async pollOnce(): Promise<void> {
    const due = await this.link.dueBy(Date.now());
    if (due.length === 0) return;
    if (due.some((id) => !this.get(id))) await this.sync([this.mock]);
    for (const id of due) {
      const workspace = this.get(id);
      if (workspace) await this.runDue(workspace);
      // Read under the unit's hold: no work of this process is half done on the copy.
      const [version, wallMs] = workspace
        ? await this.exclusive([this.unitOf(workspace)], () => [this.unitOf(workspace).version, this.dueOf(workspace)])
        : [0, undefined];
      await this.link.dueCorrect(id, Math.max(0, version), wallMs, HINT_LEASE_MS);
    }
  }

  async close(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    this.registry.stopClocks();
  }

  /** The registry and the key's workspace, brought up to date in one round trip, then the key looked up. */
  async authenticate(apiKey: string): Promise<Workspace | undefined> {
    const guess = await this.registry.authenticate(apiKey);
    await this.sync(guess ? [this.mock, this.unitOf(guess)] : [this.mock]);
    await this.reseedIfEmptied();
    const found = await this.registry.authenticate(apiKey);
    // A key this process had not seen yet: its workspace is read now.
    if (found && found !== guess) await this.sync([this.unitOf(found)]);
    return found;
  }

  transact<T>(workspace: Workspace, work: () => T): Promise<Awaited<T>> {
    return this.run([this.unitOf(workspace)], work);
  }

  transactBackground<T>(workspace: Workspace, work: () => T): Promise<Awaited<T>> {
    return this.run([this.unitOf(workspace)], work, true);
  }

  transactMock<T>(work: () => T): Promise<Awaited<T>> {
    return this.run([this.mock], work);
  }

  async catchUp(): Promise<void> {
    await this.sync([this.mock]);
    await this.reseedIfEmptied();
    await this.sync(this.workspaceUnits());
  }

  async control<T>(work: () => T | Promise<T>): Promise<T> {
    await this.catchUp();
    const units: Unit[] = [this.mock, ...this.workspaceUnits()];
    // The work's synchronous part makes every change; what it awaits after (journal I/O) is not retried.
    let pending: T | Promise<T> | undefined;
    await this.run(
      units,
      () => void (pending = work()),
      false,
      () => this.sync([this.mock]).then(() => this.sync(this.workspaceUnits()).then(() => undefined)),
    );
    return pending as T | Promise<T>;
  }

  afterCommit(workspace: Workspace, start: FollowUp): void {
    this.unitOf(workspace).followUps.push(start);
  }

  generationOf(workspace: Workspace): number {
    return this.registry.generationOf(workspace);
  }

  /** Brings units up to date (one round trip for all of them), then repairs a workspace left behind its generation. */
  private async sync(units: Unit[]): Promise<SyncResult[]> {
    if (units.length === 0) return [];
    const results = await this.link.sync(units.map((u) => ({ unit: u.name, since: u.version })));
    for (const [i, unit] of units.entries()) await this.exclusive([unit], async () => this.applySync(unit, results[i]));
    for (const unit of units) if (this.behind(unit)) await this.repair(unit as Unit<WorkspaceChange>);
    return results;
  }

  /** Applies what a read found, unless this copy is already as new (another read or write got there first). */
  private applySync(unit: Unit, result: SyncResult): void {
    if (result.kind === "same") {
      unit.gen = result.gen;
      return;
    }
    if (result.version <= unit.version && result.version !== 0) return;
    const fields = unit.fields as Fields<Change>;
    if (result.kind === "whole") fields.clear();
    for (const [field, text] of result.values)
      fields.apply(fields.changeOf(field), text === "" ? undefined : JSON.parse(text));
    unit.version = result.version;
    unit.gen = result.gen;
    if (unit.workspace) this.registry.bump(unit.workspace);
  }

  /** A workspace the registry names for a generation it was not written for (a writer died between units). */
  private behind(unit: Unit): boolean {
    const workspace = unit.workspace;
    return workspace !== undefined && this.get(workspace.workspaceId) === workspace && unit.gen < this.genOf(workspace);
  }

  private genOf(workspace: Workspace): number {
    return this.gens.get(workspace.workspaceId) ?? 0;
  }

  /**
   * Writes the workspace whole for the registry's generation, seeded as its writer would have seeded it
   * (its clock keeps its time). Another process may be doing the same, or the writer may be late: the
   * first write for the generation wins, and the others read it instead.
   */
  private async repair(unit: Unit<WorkspaceChange>): Promise<void> {
    const workspace = unit.workspace!;
    const written = await this.exclusive([unit], async () => {
      if (!this.behind(unit)) return true;
      const gen = this.genOf(workspace);
      unit.dueBefore = undefined;
      this.registry.resetOne(workspace);
      unit.whole = true;
      unit.before = new Map();
      const deadline = await this.hint([unit]).catch((error) => {
        this.undo([unit]);
        throw error;
      });
      const [result] = await this.link
        .commit([{ ...this.writeOf(unit), expected: -1, gen, deadline }])
        .catch((error) => {
          this.undo([unit]);
          throw error;
        });
      if (result.kind !== "written") {
        this.undo([unit]);
        return false;
      }
      this.written(unit, result.version, gen);
      return true;
    });
    // Someone else's write for the generation (or a newer one) is there: read it.
    if (!written) await this.sync([unit]);
  }

  /**
   * Runs work on units as one transaction (see the file's comment). `refresh` reads the units first
   * (work started outside a request: a task, a webhook outcome); a conflict always does.
   */
  private async run<T>(
    units: Unit[],
    work: () => T,
    refresh = false,
    resync?: () => Promise<void>,
  ): Promise<Awaited<T>> {
    if (refresh) await this.sync(units);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.exclusive(units, () => this.attempt(units, work));
      if (outcome.done) return outcome.result as Awaited<T>;
      if (attempt >= MAX_ATTEMPTS)
        throw new Error(`gave up after ${MAX_ATTEMPTS} conflicting writes to ${units.map((u) => u.name).join(", ")}`);
      this.retries++;
      await (resync ? resync() : this.sync(units.filter((u) => !u.dropped)).then(() => undefined));
    }
  }

  private async attempt<T>(units: Unit[], work: () => T): Promise<{ done: boolean; result?: T }> {
    for (const unit of units) {
      this.record(unit);
      if (unit.workspace) unit.dueBefore = this.dueOf(unit.workspace);
    }
    let result: T;
    try {
      result = work();
    } catch (error) {
      this.undo(units);
      throw error;
    }
    const touched = units.filter((u) => u.before!.size > 0 || u.whole || u.dropped);
    // Units born in this work (a new workspace) are written whole too.
    for (const w of this.list()) {
      const unit = this.unitOf(w);
      if (units.includes(unit) || !unit.whole) continue;
      unit.before ??= new Map();
      unit.dueBefore = undefined;
      touched.push(unit);
    }
    // Workspaces born, reset or deleted: the registry commit names their new generation (its version).
    const replaced = touched.filter((u) => u.workspace && (u.whole || u.dropped));
    if (replaced.length > 0 && !touched.includes(this.mock)) touched.push(this.mock);
    for (const unit of replaced) {
      const id = unit.workspace!.workspaceId;
      this.note(this.mock, { kind: "workspace", workspaceId: id });
      if (!unit.dropped) this.gens.set(id, this.mock.version + 1);
    }
    for (const unit of units) if (!touched.includes(unit)) unit.before = undefined;
    for (const unit of units) unit.recording = false;
    if (touched.length === 0) return { done: true, result };
    if (replaced.length > 0 && !units.includes(this.mock)) {
      this.undo(touched);
      throw new Error("a workspace was replaced outside the control plane");
    }
    const done = await this.write(touched, replaced);
    return done ? { done: true, result } : { done: false };
  }

  /**
   * Writes what the work changed: one script when it touched one unit; otherwise in the order the
   * file's comment gives. False when a version check failed (everything not yet written is undone).
   */
  private async write(touched: Unit[], replaced: Unit[]): Promise<boolean> {
    const left = new Set(touched);
    const fail = (error: unknown): never => {
      this.undo([...left]);
      throw error;
    };
    const deadline = await this.hint(touched).catch(fail);
    const checked = touched.filter((u) => u !== this.mock && !replaced.includes(u));
    checked.sort((a, b) => (a.name < b.name ? -1 : 1));
    if (touched.includes(this.mock) && !replaced.includes(this.mock)) checked.push(this.mock);
    for (const unit of checked) {
      const [result] = await this.link.commit([{ ...this.writeOf(unit), deadline }]).catch(fail);
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
    const gen = this.mock.version;
    const results = await this.link
      .commit(replaced.map((u) => ({ ...this.writeOf(u), expected: -1, gen, deadline })))
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
        this.settle(unit);
        this.runFollowUps(unit, false);
      }
    }
    await this.link.dueForget(dropped).catch(() => undefined);
    const failed = results.find((r): r is Error => r instanceof Error);
    if (failed) throw failed;
    return true;
  }

  /** A unit's write is in: its new version (and generation), its follow-ups started, the due entry corrected. */
  private written(unit: Unit, version: number, gen?: number): void {
    const before = unit.dueBefore;
    unit.version = version;
    if (gen !== undefined) unit.gen = gen;
    this.settle(unit);
    this.runFollowUps(unit, false);
    const workspace = unit.workspace;
    if (!workspace || version === 0) return;
    const after = this.dueOf(workspace);
    // Fix late, without waiting: the entry is early enough meanwhile (due.ts).
    if (needsCorrection(before, after))
      this.link.dueCorrect(workspace.workspaceId, version, after, HINT_LEASE_MS, false).catch(() => undefined);
  }

  /** Hint early (due.ts): resolves to the deadline for the commits the hints cover, 0 when none was needed. */
  private async hint(units: Unit[]): Promise<number> {
    const hints: { workspaceId: string; wallMs: number; version: number }[] = [];
    for (const unit of units) {
      if (!unit.workspace || unit.dropped) continue;
      const after = this.dueOf(unit.workspace);
      if (needsHint(unit.dueBefore, after))
        hints.push({ workspaceId: unit.workspace.workspaceId, wallMs: after, version: Math.max(0, unit.version) + 1 });
    }
    if (hints.length === 0) return 0;
    return (await this.link.dueHint(hints)) + HINT_COMMIT_MS;
  }

  private writeOf(unit: Unit): UnitWrite {
    const mode = unit.dropped ? "drop" : unit.whole ? "whole" : "fields";
    const fields = unit.fields as Fields<Change>;
    const changes: Change[] =
      mode === "drop" ? [] : mode === "whole" ? fields.all() : [...unit.before!.values()].map((b) => b.change);
    const values = changes.map((change): [string, string] => {
      const value = fields.read(change);
      return [fields.fieldOf(change), value === undefined ? "" : JSON.stringify(value)];
    });
    return { unit: unit.name, expected: unit.version, mode, values };
  }

  /** Wall-clock ms of a workspace's earliest task (real time only: a virtual clock waits for advance). */
  private dueOf(workspace: Workspace): number | undefined {
    const next = workspace.tasks.peek();
    if (!next || workspace.clock.mode !== "real") return undefined;
    return Date.now() + Math.max(0, next.at - workspace.clock.nowMs()) / workspace.clock.speed;
  }

  private record(unit: Unit): void {
    unit.before = new Map();
    unit.recording = true;
  }

  /** A tracker told of a change: noted, with the value before, while work runs on the unit. */
  private note<C extends Change>(unit: Unit<C>, change: C): void {
    if (!unit.recording || !unit.before) return;
    const field = unit.fields.fieldOf(change);
    if (!unit.before.has(field)) unit.before.set(field, { change, value: unit.fields.read(change) });
  }

  /** Puts every noted entry back as it was; a unit written whole or dropped is read again from Redis. */
  private undo(units: Unit[]): void {
    for (const unit of units) {
      unit.recording = false;
      if (unit.whole || unit.dropped) unit.version = -1;
      const fields = unit.fields as Fields<Change>;
      for (const { change, value } of unit.before?.values() ?? []) fields.apply(change, value);
      this.settle(unit);
      if (unit.workspace) {
        this.registry.bump(unit.workspace);
        this.runFollowUps(unit, true);
      }
    }
  }

  private settle(unit: Unit): void {
    unit.before = undefined;
    unit.whole = false;
    unit.dropped = false;
  }

  /** Starts what the work queued, telling it whether the work was undone. */
  private runFollowUps(unit: Unit, undone: boolean): void {
    const queued = unit.followUps;
    if (queued.length === 0) return;
    unit.followUps = [];
    for (const start of queued) start(undone);
  }

  /** Holds units (in name order, so two holders never wait on each other) while `body` runs. */
  private async exclusive<T>(units: Unit[], body: () => Promise<T> | T): Promise<T> {
    const sorted = [...new Set(units)].sort((a, b) => (a.name < b.name ? -1 : 1));
    const releases: (() => void)[] = [];
    for (const unit of sorted) {
      const previous = unit.tail;
      let release!: () => void;
      unit.tail = new Promise<void>((resolve) => (release = resolve));
      await previous;
      releases.push(release);
    }
    try {
      return await body();
    } finally {
      for (const release of releases) release();
    }
  }

  private newUnit<C extends Change>(name: string): Unit<C> {
    return {
      name,
      fields: undefined as unknown as Fields<C>,
      version: 0,
      recording: false,
      tail: Promise.resolve(),
      followUps: [],
      gen: 0,
    };
  }

  /** A workspace object with its unit: its change tracker notes into that unit. */
  private newWorkspace(options: WorkspaceOptions, clock: Clock): Workspace {
    const unit = this.newUnit<WorkspaceChange>(workspaceUnit(options.workspaceId));
    const workspace = new Workspace(options, clock, { changed: (change) => this.note(unit, change) });
    unit.workspace = workspace;
    unit.fields = workspaceFields(workspace, () => this.registry.clear(workspace));
    this.unitOfWorkspace.set(workspace, unit);
    return workspace;
  }

  private unitOf(workspace: Workspace): Unit<WorkspaceChange> {
    return this.unitOfWorkspace.get(workspace)!;
  }

  private workspaceUnits(): Unit[] {
    return this.list().map((w) => this.unitOf(w));
  }

  /** Another process added a workspace: this process's copy, filled by its own unit's read. */
  private addCopy(options: WorkspaceOptions): void {
    const recording = this.mock.recording;
    this.mock.recording = false;
    try {
      this.registry.add(options, { seed: false });
    } finally {
      this.mock.recording = recording;
    }
  }

  private dropCopy(workspaceId: string): void {
    this.gens.delete(workspaceId);
    const workspace = this.get(workspaceId);
    if (workspace) this.registry.forget(workspace);
  }
}

/** A store in Redis through `link`, shared with every process given the same store. */
export const redisStore =
  (link: RedisLink): StoreFactory =>
  (parts) =>
    new RedisStore(link, parts);
