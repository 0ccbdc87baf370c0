/**
 * The store in Redis (--store redis://...), so that any number of processes are one mock.
 *
 * Each process keeps a copy of every unit (the mock-wide registry `m`, and each workspace) in its own
 * Registry and knows the version it copied (unit.ts). The handlers stay synchronous over that copy:
 *  - a request first reads what changed since its copy's versions (authenticate): the registry and its
 *    workspace, two scripts sent together (one round trip; a unit that did not change answers "same");
 *  - its work runs on the copy, held by the request, while the change trackers note each entry it is
 *    about to change, with the value it had;
 *  - if it changed anything, it is written (commit.ts), and only if no other process wrote the unit
 *    since the copy was read (optimistic concurrency). Otherwise the work is undone, the copy brought
 *    up to date, and the work run again.
 * A unit's work and write run one at a time within a process (`hold`), so no work sees another's
 * write before it is in Redis, and an undo never meets another's change. A control-plane request holds
 * the registry, then every workspace the registry names (the list cannot change while the registry is
 * held), then each workspace it makes.
 * Every script touches one unit's keys (one hash slot, keys.ts): the same code runs on a Redis Cluster.
 *
 * The registry is read with every request, not trusted to a copy kept fresh by Pub/Sub messages: a
 * message can reach a process after a request that follows the write it announces (measured: about one
 * request in 300 through another process missed a fault rule just made), and read-your-writes across
 * processes is the store's promise. Reading it beside the workspace costs no extra round trip.
 *
 * A workspace a killed writer left behind its generation is repaired by the next reader (repair.ts).
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
import { type Store, type StoreFactory, type StoreParts, WorkspaceGone } from "../store.js";
import { Workspace, type CreateOptions, type WorkspaceOptions } from "../workspace.js";
import { Commits, type Outcome } from "./commit.js";
import { dueOf, HINT_LEASE_MS } from "./due.js";
import { mockFields, workspaceFields, type Fields } from "./fields.js";
import { REGISTRY_UNIT, workspaceUnit } from "./keys.js";
import type { RedisLink, SyncResult } from "./redis.js";
import { Repairs } from "./repair.js";
import { type FollowUp, hold, newUnit, note, type Unit } from "./unit.js";

const POLL_MS = 200;
const MAX_ATTEMPTS = 50;

/** How a transaction runs (see `run`). */
interface RunHow {
  /** Read the units first: work that did not start with a request (a task, a webhook outcome). */
  refresh?: boolean;
  /** Units held after `units` are, listed then (control: every workspace the registry names). */
  more?: () => Unit[];
  /** How to read the units again after a conflict; by default, `units` and the registry beside them. */
  resync?: () => Promise<void>;
}

export class RedisStore implements Store {
  readonly kind: "redis" | "redis-cluster";
  private readonly registry: Registry;
  /** Each workspace's unit, made with the workspace (its change tracker notes into it). */
  private readonly unitOfWorkspace = new WeakMap<Workspace, Unit<WorkspaceChange>>();
  private readonly mock: Unit<MockChange>;
  /** Each workspace's generation as the registry names it (fields.ts, commit.ts). */
  private readonly gens = new Map<string, number>();
  private readonly commits: Commits;
  private readonly repairs: Repairs;
  private poller: ReturnType<typeof setInterval> | undefined;
  /** How open seeded: a store found empty later (Redis restarted without its data) is seeded again. */
  private seedEmpty: (() => void) | undefined;
  private readonly runDue: (workspace: Workspace) => Promise<void>;
  private retries = 0;

  constructor(
    private readonly link: RedisLink,
    parts: StoreParts,
  ) {
    this.kind = link.kind;
    this.runDue = parts.runDue;
    this.mock = newUnit<MockChange>(REGISTRY_UNIT);
    const mockTracker: ChangeTracker<MockChange> = { changed: (change) => note(this.mock, change) };
    this.registry = new Registry({
      ...parts,
      tracker: mockTracker,
      newWorkspace: (options, clock) => this.newWorkspace(options, clock),
    });
    this.mock.fields = mockFields(
      this.registry,
      parts.faults,
      this.gens,
      (options) => this.registry.add(options, { seed: false }),
      (id) => this.dropCopy(id),
    );
    parts.faults.onTouch = (change) => note(this.mock, change);
    this.commits = new Commits({
      link,
      mock: this.mock,
      gens: this.gens,
      bump: (workspace) => this.registry.bump(workspace),
    });
    this.repairs = new Repairs({ link, commits: this.commits, registry: this.registry, gens: this.gens });
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

  /** Called in control work: the workspace is born in it, held by it and written whole with the registry. */
  add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    return this.registry.add(options, how);
  }

  create(options: CreateOptions, random: Random): Workspace {
    return this.registry.create(options, random);
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
      conflicts: this.commits.conflicts,
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
      { refresh: true },
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
        ? await hold([this.unitOf(workspace)], () => [this.unitOf(workspace).version, dueOf(workspace)])
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
    return this.run([this.unitOf(workspace)], work, { refresh: true });
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
    // The work's synchronous part makes every change; what it awaits after (journal I/O) is not retried.
    let pending: T | Promise<T> | undefined;
    await this.run([this.mock], () => void (pending = work()), {
      more: () => this.workspaceUnits(),
      resync: () => this.catchUp(),
    });
    return pending as T | Promise<T>;
  }

  afterCommit(workspace: Workspace, start: FollowUp): void {
    this.unitOf(workspace).followUps.push(start);
  }

  generationOf(workspace: Workspace): number {
    return this.registry.generationOf(workspace);
  }

  /**
   * Runs work on units as one transaction (commit.ts), again after each conflict, on units read again.
   * A workspace deleted meanwhile ends it (WorkspaceGone).
   */
  private async run<T>(units: Unit[], work: () => T, how: RunHow = {}): Promise<Awaited<T>> {
    // Read beside the registry (one round trip): work on a workspace deleted meanwhile ends (assertAlive).
    if (how.refresh) await this.sync(units.includes(this.mock) ? units : [this.mock, ...units]);
    for (let attempt = 1; ; attempt++) {
      const outcome: Outcome<T> = await hold(units, () => {
        this.assertAlive(units);
        if (!how.more) return this.commits.attempt(units, work);
        const more = how.more();
        return hold(more, () => this.commits.attempt([...units, ...more], work));
      });
      if (outcome.done) return outcome.result as Awaited<T>;
      if (attempt >= MAX_ATTEMPTS)
        throw new Error(`gave up after ${MAX_ATTEMPTS} conflicting writes to ${units.map((u) => u.name).join(", ")}`);
      this.retries++;
      // Several processes writing one unit: after a few rounds, each waits a little, at random, so one gets through.
      if (attempt >= 3) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
      await (how.resync ? how.resync() : this.sync(units.includes(this.mock) ? units : [this.mock, ...units]));
    }
  }

  /** A workspace unit whose workspace the registry no longer names (deleted by another process). */
  private assertAlive(units: Unit[]): void {
    for (const unit of units) {
      const workspace = unit.workspace;
      if (workspace && this.get(workspace.workspaceId) !== workspace) throw new WorkspaceGone(workspace.workspaceId);
    }
  }

  /** Brings units up to date (one round trip for all of them), then repairs a workspace left behind its generation. */
  private async sync(units: Unit[]): Promise<SyncResult[]> {
    const results = await this.read(units);
    for (const unit of units) if (this.repairs.behind(unit)) await this.repair(unit as Unit<WorkspaceChange>);
    return results;
  }

  /** Brings units up to date, one round trip for all of them. */
  private async read(units: Unit[]): Promise<SyncResult[]> {
    if (units.length === 0) return [];
    const asked = units.map((u) => ({ unit: u.name, since: u.version }));
    const results = await this.link.sync(asked);
    for (const [i, unit] of units.entries()) await hold([unit], () => this.applySync(unit, results[i], asked[i].since));
    return results;
  }

  /**
   * Applies what a read found, unless this copy is already as new (another read or write got there
   * first). Changes since `since` fit only a copy at `since` or later: one that fell behind meanwhile
   * (-1: its whole write refused) would mix them into what Redis never had, so it waits for its own read.
   */
  private applySync(unit: Unit, result: SyncResult, since: number): void {
    if (result.kind === "same") {
      if (result.version === unit.version) unit.gen = result.gen;
      return;
    }
    if (result.version <= unit.version && result.version !== 0) return;
    if (result.kind === "changes" && unit.version < since) return;
    const fields = unit.fields as Fields<Change>;
    if (result.kind === "whole") fields.clear();
    for (const [field, text] of result.values)
      fields.apply(fields.changeOf(field), text === "" ? undefined : JSON.parse(text));
    unit.version = result.version;
    unit.gen = result.gen;
    if (unit.workspace) this.registry.bump(unit.workspace);
  }

  /**
   * Rewrites a workspace left behind its generation (repair.ts), judged on the registry read again;
   * when another write for the generation is there, reads that one.
   */
  private async repair(unit: Unit<WorkspaceChange>): Promise<void> {
    await this.read([this.mock]);
    const written = await hold([unit], () => this.repairs.rewrite(unit));
    if (!written) await this.read([unit]);
  }

  /** A workspace object with its unit: its change tracker notes into that unit; one made by work is held by it. */
  private newWorkspace(options: WorkspaceOptions, clock: Clock): Workspace {
    const unit = newUnit<WorkspaceChange>(workspaceUnit(options.workspaceId));
    const workspace = new Workspace(options, clock, { changed: (change) => note(unit, change) });
    unit.workspace = workspace;
    unit.fields = workspaceFields(workspace, () => this.registry.clear(workspace));
    this.unitOfWorkspace.set(workspace, unit);
    this.commits.adopt(unit);
    return workspace;
  }

  private unitOf(workspace: Workspace): Unit<WorkspaceChange> {
    return this.unitOfWorkspace.get(workspace)!;
  }

  private workspaceUnits(): Unit[] {
    return this.list().map((w) => this.unitOf(w));
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
