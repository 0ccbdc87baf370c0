/**
 * The state layer's one interface: where the mock's workspaces live and how work runs on them as
 * transactions. Two implementations side by side, neither extending the other: in this process
 * (store/memory/), and in Redis, shared by every process given the same store (store/redis/). Both
 * hold a Registry (registry.ts) of plain Workspace objects; the handlers stay synchronous over them.
 *
 * Registry operations (get, list, add, create, reset, resetOne, delete) act on this process's objects,
 * at once: they are called inside a transaction (a control-plane request, a restore), which writes what
 * they changed. Everything that may need I/O is asynchronous, whatever the backend.
 */
import type { Clock } from "../core/clock.js";
import { ApiError } from "../core/errors.js";
import type { FaultRules } from "../core/faults.js";
import type { Random } from "../core/random.js";
import type { Sha256 } from "./registry.js";
import type { CreateOptions, Seeder, Workspace, WorkspaceOptions } from "./workspace.js";

export type { Sha256 };

export interface Store {
  /** Where the state lives (GET /__mock/ready says it). */
  readonly kind: "memory" | "redis" | "redis-cluster";
  /** The mock's root clock: each workspace's clock is a fork of it. */
  readonly clock: Clock;

  get(workspaceId: string): Workspace | undefined;
  list(): Workspace[];
  /** Adds a workspace, seeded unless `how.seed` is false or it is empty. */
  add(options: WorkspaceOptions, how?: { seed: boolean }): Workspace;
  /** A new isolated workspace with a generated id and key (drawn from `random`). */
  create(options: CreateOptions, random: Random): Workspace;
  /** Every workspace back to its seed state; `seed` replaces the seed of `defaultId`. */
  reset(defaultId: string, seed?: number): void;
  /** One workspace back to its seed state (a new `seed` if given); its clock keeps its time. */
  resetOne(workspace: Workspace, seed?: number): void;
  /** Removes a workspace: its key is refused from now on, its scheduled work dropped. */
  delete(workspace: Workspace): void;

  /**
   * Makes the store ready to serve: an empty store is seeded with `seedDefault` (which adds the default
   * workspace); a store that already holds a mock (Redis, seeded by another process) is joined instead.
   */
  open(seedDefault: () => void): Promise<"seeded" | "joined">;
  /**
   * The workspace of an API key (up to date with every write acknowledged before), or undefined. A store
   * that has it at hand (memory) gives it at once: a promise less on every request's path.
   */
  authenticate(apiKey: string): Workspace | undefined | Promise<Workspace | undefined>;
  /**
   * Runs a request's work on its workspace (just read by authenticate) as one transaction: what the
   * synchronous part of `work` changes is written whole or not at all; on a conflict it runs again.
   * In memory it gives what `work` gives, at once (and throws what it throws).
   */
  transact<T>(workspace: Workspace, work: () => T): T | Promise<Awaited<T>>;
  /** transact for work that did not start with a request (a scheduled task, a webhook outcome, an advance): the workspace is read first. */
  transactBackground<T>(workspace: Workspace, work: () => T): Promise<Awaited<T>>;
  /** Runs work on the mock-wide state (the registry, the root clock, the fault rules) as one transaction. */
  transactMock<T>(work: () => T): Promise<Awaited<T>>;
  /**
   * Runs a control-plane request: every workspace is brought up to date first, and whatever the
   * synchronous part of `work` changes, in any of them or mock-wide, is one transaction.
   */
  control<T>(work: () => T | Promise<T>): Promise<T>;
  /** Brings every workspace up to date, for control-plane work that runs its own transactions (an advance). */
  catchUp(): Promise<void>;
  /**
   * Runs `start` once the work under way on the workspace is done and written (a webhook's attempt goes
   * out only then); told `undone` when the work was undone instead (a conflict: it runs again).
   */
  afterCommit(workspace: Workspace, start: (undone: boolean) => void): void;
  /**
   * Moves whenever the workspace's state changed other than through this process's own work (a reset,
   * a delete, another process's write, a write undone): what is derived from the state may be stale.
   */
  generationOf(workspace: Workspace): number;
  /** Stops the clocks and whatever the store runs in the background. */
  close(): Promise<void>;
  /**
   * Counters of a shared store, for GET /__mock/metrics (the memory store has none): Redis round trips
   * waited for, commits refused because the version moved, work run again after one, and journal
   * entries sent but not yet confirmed.
   */
  stats?(): { redisRoundTrips: number; conflicts: number; retries: number; journalPending: number };
}

/** What a store is made with: the parts of the mock it calls back into. */
export interface StoreParts {
  /** The mock's root clock. */
  clock: Clock;
  /** Fills a workspace added or reset: the seeded records, and the simulation of what is under way. */
  seed: Seeder;
  /** Told of each workspace added, before it is seeded: the scheduler wakes its clock for its tasks. */
  added: (workspace: Workspace) => void;
  /** Runs the tasks of a workspace that are due (a store that finds due work itself calls it). */
  runDue: (workspace: Workspace) => Promise<void>;
  /** The fault rules, mock-wide state like the registry. */
  faults: FaultRules;
  /** How API keys are hashed; Web Crypto by default. */
  sha256?: Sha256;
}

/** Makes a store from the mock's parts: what a door gives createMock (mock/mock.ts). */
export type StoreFactory = (parts: StoreParts) => Store;

/**
 * A workspace deleted (by another process sharing the store) while work on it ran: a request is
 * answered as one made after the delete (401, as its key is refused from now on); a scheduled task or
 * a webhook attempt of it is dropped, as a delete drops them in memory, and not reported as a failure.
 */
export class WorkspaceGone extends ApiError {
  constructor(readonly workspaceId: string) {
    super(401, "API key is invalid");
  }
}
