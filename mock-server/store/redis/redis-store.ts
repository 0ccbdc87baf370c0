/**
 * The store in Redis (--store redis://...), so that any number of processes are one mock.
 *
 * Each process keeps a copy of every unit (the mock-wide registry `m`, and each workspace) in its own
 * Registry and knows the version it copied. The handlers stay synchronous over that copy:
 *  - a request first reads what changed since its copy's version, in one round trip, for the registry
 *    and its workspace together (authenticate); so it sees every write acknowledged before it began;
 *  - its work runs on the copy while the change trackers note each entry it is about to change, with
 *    the value it had;
 *  - if it changed anything, one script writes those fields, and only if no other process wrote the
 *    unit since the copy was read (optimistic concurrency). Otherwise the work is undone, the copy
 *    brought up to date, and the work run again.
 * A unit's work and write run one at a time within a process (`exclusive`), so no work sees another's
 * write before it is in Redis, and an undo never meets another's change.
 * Scheduled tasks are fields like any other: whichever process runs one writes its removal with its
 * effects, so it happens once. In real time each process also looks, every POLL_MS, for workspaces
 * whose earliest task is due (the `due` index), so work continues when the process that scheduled it dies.
 */
import type { Clock } from "../../core/clock.js";
import type { Random } from "../../core/random.js";
import type { Change, ChangeTracker, MockChange, WorkspaceChange } from "../changes.js";
import { Registry } from "../registry.js";
import type { Store, StoreFactory, StoreParts } from "../store.js";
import { Workspace, type CreateOptions, type WorkspaceOptions } from "../workspace.js";
import { mockFields, workspaceFields, type Fields } from "./fields.js";
import type { RedisLink, SyncResult, UnitWrite } from "./redis.js";

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
}

export class RedisStore implements Store {
  readonly kind: "redis" | "redis-cluster" = "redis";
  private readonly registry: Registry;
  /** Each workspace's unit, made with the workspace (its change tracker notes into it). */
  private readonly unitOfWorkspace = new WeakMap<Workspace, Unit<WorkspaceChange>>();
  private readonly mock: Unit<MockChange>;
  private poller: ReturnType<typeof setInterval> | undefined;
  /** How open seeded: a store found empty later (Redis restarted without its data) is seeded again. */
  private seedEmpty: (() => void) | undefined;
  private readonly runDue: (workspace: Workspace) => Promise<void>;

  constructor(
    private readonly link: RedisLink,
    parts: StoreParts,
  ) {
    this.runDue = parts.runDue;
    this.mock = this.newUnit<MockChange>("m");
    const mockTracker: ChangeTracker<MockChange> = { changed: (change) => this.note(this.mock, change) };
    this.registry = new Registry({
      ...parts,
      tracker: mockTracker,
      newWorkspace: (options, clock) => this.newWorkspace(options, clock),
    });
    this.mock.fields = mockFields(
      this.registry,
      parts.faults,
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
    unit.dropped = true;
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

  private async pollOnce(): Promise<void> {
    const due = await this.link.dueBy(Date.now());
    if (due.length === 0) return;
    if (due.some((id) => !this.get(id))) await this.sync([this.mock]);
    for (const id of due) {
      const workspace = this.get(id);
      if (workspace) await this.runDue(workspace);
      // What is due next, as this process now reads it: unless a write came in between, which set it itself.
      await this.link.setDue(
        id,
        workspace ? this.unitOf(workspace).version : 0,
        workspace ? this.dueOf(workspace) : undefined,
      );
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
      () => this.sync([this.mock]).then(() => this.sync(this.workspaceUnits())),
    );
    return pending as T | Promise<T>;
  }

  afterCommit(workspace: Workspace, start: FollowUp): void {
    this.unitOf(workspace).followUps.push(start);
  }

  generationOf(workspace: Workspace): number {
    return this.registry.generationOf(workspace);
  }

  /** Brings units up to date: one round trip for all of them. */
  private async sync(units: Unit[]): Promise<void> {
    if (units.length === 0) return;
    const results = await this.link.sync(units.map((u) => ({ unit: u.name, since: u.version })));
    for (const [i, unit] of units.entries()) await this.exclusive([unit], async () => this.applySync(unit, results[i]));
  }

  /** Applies what a read found, unless this copy is already as new (another read or write got there first). */
  private applySync(unit: Unit, result: SyncResult): void {
    if (result.kind === "same" || (result.version <= unit.version && result.version !== 0)) return;
    const fields = unit.fields as Fields<Change>;
    if (result.kind === "whole") fields.clear();
    for (const [field, text] of result.values)
      fields.apply(fields.changeOf(field), text === "" ? undefined : JSON.parse(text));
    unit.version = result.version;
    if (unit.workspace) this.registry.bump(unit.workspace);
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
      await (resync ? resync() : this.sync(units.filter((u) => !u.dropped)));
    }
  }

  private async attempt<T>(units: Unit[], work: () => T): Promise<{ done: boolean; result?: T }> {
    for (const unit of units) this.record(unit);
    let result: T;
    try {
      result = work();
    } catch (error) {
      this.undo(units);
      throw error;
    }
    const touched = units.filter((u) => u.before!.size > 0 || u.whole || u.dropped);
    for (const unit of units) if (!touched.includes(unit)) unit.before = undefined;
    // Units born in this work (a new workspace) are written whole too.
    for (const w of this.list())
      if (!units.includes(this.unitOf(w)) && this.unitOf(w).whole) touched.push(this.unitOf(w));
    for (const unit of units) unit.recording = false;
    if (touched.length === 0) return { done: true, result };
    let versions: number[] | undefined;
    try {
      versions = await this.link.commit(
        touched.map((u) => this.writeOf(u)),
        touched
          .filter((u) => u.workspace)
          .map((u) => [u.workspace!.workspaceId, u.dropped ? undefined : this.dueOf(u.workspace!)]),
      );
    } catch (error) {
      this.undo(touched);
      throw error;
    }
    if (!versions) {
      this.undo(touched);
      return { done: false };
    }
    for (const [i, unit] of touched.entries()) {
      unit.version = versions[i];
      this.settle(unit);
      this.runFollowUps(unit, false);
    }
    return { done: true, result };
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
    };
  }

  /** A workspace object with its unit: its change tracker notes into that unit. */
  private newWorkspace(options: WorkspaceOptions, clock: Clock): Workspace {
    const unit = this.newUnit<WorkspaceChange>(`w:${options.workspaceId}`);
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
    const workspace = this.get(workspaceId);
    if (workspace) this.registry.forget(workspace);
  }
}

/** A store in Redis through `link`, shared with every process given the same store. */
export const redisStore =
  (link: RedisLink): StoreFactory =>
  (parts) =>
    new RedisStore(link, parts);
