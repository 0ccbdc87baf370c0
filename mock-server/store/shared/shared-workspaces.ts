/**
 * Workspaces kept in Redis (--store redis://...), so that any number of processes are one mock.
 *
 * Each process keeps a copy of every unit (the mock-wide registry `m`, and each workspace) and knows
 * the version it copied. The handlers stay synchronous over that copy:
 *  - a request first reads what changed since its copy's version, in one round trip, for the registry
 *    and its workspace together (authenticate); so it sees every write acknowledged before it began;
 *  - its work runs on the copy while the touch hooks note each field it is about to change, with the
 *    value it had;
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
import type { FaultRules } from "../../core/faults.js";
import { Workspaces, type Seeder, type Sha256, type Workspace, type WorkspaceOptions } from "../workspace.js";
import { mockFields, workspaceFields, type Fields } from "./fields.js";
import type { RedisLink, SyncResult, UnitWrite } from "./redis.js";

const POLL_MS = 200;
const MAX_ATTEMPTS = 50;

interface Unit {
  name: string;
  fields: Fields;
  version: number;
  /** Set while work runs on the unit: each field changed, with its value before. */
  before?: Map<string, unknown>;
  /** The work replaced the whole unit (a reset): it is written whole. */
  whole?: boolean;
  /** The work deleted the workspace: its keys go. */
  dropped?: boolean;
  /** The last holder of the unit; the next waits for it (see `exclusive`). */
  tail: Promise<void>;
  workspace?: Workspace;
}

export class SharedWorkspaces extends Workspaces {
  private readonly units = new Map<string, Unit>();
  private readonly mock: Unit;
  private poller: ReturnType<typeof setInterval> | undefined;
  /** How join seeded: a store found empty later (Redis restarted without its data) is seeded again. */
  private seedEmpty: (() => void) | undefined;
  /** Runs the due tasks of a workspace (the scheduler's runNext), set by createMock. */
  runDue: ((workspace: Workspace) => Promise<void>) | undefined;

  constructor(
    private readonly link: RedisLink,
    seeder: Seeder,
    clock: Clock,
    sha256?: Sha256,
  ) {
    super(seeder, clock, sha256);
    this.mock = { name: "m", fields: undefined as unknown as Fields, version: 0, tail: Promise.resolve() };
  }

  /** The fault rules are mock-wide state too; the core creates them, so they come in late. */
  attachFaults(faults: FaultRules): void {
    this.mock.fields = mockFields(
      this,
      faults,
      (options) => this.addCopy(options),
      (id) => this.dropCopy(id),
    );
    faults.onTouch = (field) => this.note(this.mock, field);
    this.touch = (field) => this.note(this.mock, field);
  }

  /**
   * Joins the store: the first process seeds it (`seed` adds the default workspace), any later one
   * reads what is there. Both race safely: the seeding is written only if the store is still empty.
   */
  async join(seed: () => void): Promise<"seeded" | "joined"> {
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

  /** Real-time clocks: look for due work every POLL_MS. */
  startPolling(): void {
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
      if (workspace) await this.runDue?.(workspace);
      // What is due next, as this process now reads it: unless a write came in between, which set it itself.
      await this.link.setDue(
        id,
        workspace ? this.unitOf(workspace).version : 0,
        workspace ? this.dueOf(workspace) : undefined,
      );
    }
  }

  override stopClocks(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    super.stopClocks();
  }

  /** The registry and the key's workspace, brought up to date in one round trip, then the key looked up. */
  override authenticate(apiKey: string): Promise<Workspace | undefined> {
    return this.authenticateFresh(apiKey);
  }

  private async authenticateFresh(apiKey: string): Promise<Workspace | undefined> {
    const guess = await super.authenticate(apiKey);
    await this.sync(guess ? [this.mock, this.unitOf(guess)] : [this.mock]);
    await this.reseedIfEmptied();
    const found = await super.authenticate(apiKey);
    // A key this process had not seen yet: its workspace is read now.
    if (found && found !== guess) await this.sync([this.unitOf(found)]);
    return found;
  }

  override transact<T>(workspace: Workspace, work: () => T, refresh = false): Promise<T> {
    return this.run([this.unitOf(workspace)], work, refresh);
  }

  override transactMock<T>(work: () => T): Promise<T> {
    return this.run([this.mock], work);
  }

  override async control<T>(work: () => T | Promise<T>, own = false): Promise<T> {
    await this.sync([this.mock]);
    await this.reseedIfEmptied();
    await this.sync(this.workspaceUnits());
    if (own) return work();
    const units = [this.mock, ...this.workspaceUnits()];
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

  override reset(defaultId: string, seed?: number): void {
    for (const workspace of this.list()) this.unitOf(workspace).whole = true;
    super.reset(defaultId, seed);
  }

  override resetOne(workspace: Workspace, seed?: number): void {
    this.unitOf(workspace).whole = true;
    super.resetOne(workspace, seed);
  }

  override delete(workspace: Workspace): void {
    const unit = this.unitOf(workspace);
    super.delete(workspace);
    unit.dropped = true;
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
    if (result.kind === "whole") unit.fields.clear();
    for (const [field, text] of result.values) unit.fields.apply(field, text === "" ? undefined : JSON.parse(text));
    unit.version = result.version;
    if (unit.workspace) unit.workspace.generation++;
  }

  /**
   * Runs work on units as one transaction (see the file's comment). `refresh` reads the units first
   * (work started outside a request: a task, a webhook outcome); a conflict always does.
   */
  private async run<T>(units: Unit[], work: () => T, refresh = false, resync?: () => Promise<void>): Promise<T> {
    if (refresh) await this.sync(units);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.exclusive(units, () => this.attempt(units, work));
      if (outcome.done) return outcome.result as T;
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
    for (const unit of units) this.stopRecording(unit);
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
      unit.workspace?.runFollowUps();
    }
    return { done: true, result };
  }

  private writeOf(unit: Unit): UnitWrite {
    const mode = unit.dropped ? "drop" : unit.whole ? "whole" : "fields";
    const fields = mode === "drop" ? [] : mode === "whole" ? unit.fields.all() : [...unit.before!.keys()];
    const values = fields.map((field): [string, string] => {
      const value = unit.fields.read(field);
      return [field, value === undefined ? "" : JSON.stringify(value)];
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
    if (unit.workspace) unit.workspace.touch = (field) => this.note(unit, field);
  }

  private stopRecording(unit: Unit): void {
    if (unit.workspace) unit.workspace.touch = undefined;
  }

  private note(unit: Unit, field: string): void {
    if (unit.before && !unit.before.has(field)) unit.before.set(field, unit.fields.read(field));
  }

  /** Puts every noted field back as it was; a unit written whole or dropped is read again from Redis. */
  private undo(units: Unit[]): void {
    for (const unit of units) {
      this.stopRecording(unit);
      if (unit.whole || unit.dropped) unit.version = -1;
      for (const [field, value] of unit.before ?? []) unit.fields.apply(field, value);
      this.settle(unit);
      if (unit.workspace) {
        unit.workspace.generation++;
        unit.workspace.runFollowUps(true);
      }
    }
  }

  private settle(unit: Unit): void {
    unit.before = undefined;
    unit.whole = false;
    if (unit.dropped) this.units.delete(unit.name);
    unit.dropped = false;
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

  private unitOf(workspace: Workspace): Unit {
    const name = `w:${workspace.workspaceId}`;
    let unit = this.units.get(name);
    if (!unit || unit.workspace !== workspace) {
      unit = { name, fields: workspaceFields(workspace), version: 0, tail: Promise.resolve(), workspace };
      this.units.set(name, unit);
    }
    return unit;
  }

  private workspaceUnits(): Unit[] {
    return this.list().map((w) => this.unitOf(w));
  }

  override add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    const workspace = super.add(options, how);
    // Seeded here: its records are written with the registry entry, whole.
    this.unitOf(workspace).whole = true;
    return workspace;
  }

  /** Another process added a workspace: this process's copy, filled by its own unit's read. */
  private addCopy(options: WorkspaceOptions): void {
    const touch = this.touch;
    this.touch = undefined;
    const workspace = super.add(options, { seed: false });
    this.touch = touch;
    this.unitOf(workspace);
  }

  private dropCopy(workspaceId: string): void {
    const workspace = this.get(workspaceId);
    if (!workspace) return;
    this.forget(workspace);
    this.units.delete(`w:${workspaceId}`);
  }
}
