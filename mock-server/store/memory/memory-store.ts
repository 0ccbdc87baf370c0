/**
 * The store in this process: the Registry's objects are all there is. A transaction is the work
 * itself; nothing is ever undone, so what a piece of work queued (afterCommit) starts once it is done,
 * even if it failed after its writes.
 */
import { Registry } from "../registry.js";
import type { Store, StoreFactory, StoreParts } from "../store.js";
import type { CreateOptions, Workspace, WorkspaceOptions } from "../workspace.js";
import type { Random } from "../../core/random.js";

type FollowUp = (undone: boolean) => void;

export class MemoryStore implements Store {
  readonly kind = "memory";
  private readonly registry: Registry;
  /** What work on a workspace queued to start once it is done (afterCommit). */
  private readonly followUps = new WeakMap<Workspace, FollowUp[]>();

  constructor(parts: Pick<StoreParts, "clock" | "seed" | "added" | "sha256">) {
    this.registry = new Registry(parts);
  }

  get clock() {
    return this.registry.clock;
  }

  get(workspaceId: string): Workspace | undefined {
    return this.registry.get(workspaceId);
  }

  list(): Workspace[] {
    return this.registry.list();
  }

  add(options: WorkspaceOptions, how?: { seed: boolean }): Workspace {
    return this.registry.add(options, how);
  }

  create(options: CreateOptions, random: Random): Workspace {
    return this.registry.create(options, random);
  }

  reset(defaultId: string, seed?: number): void {
    this.registry.reset(defaultId, seed);
  }

  resetOne(workspace: Workspace, seed?: number): void {
    this.registry.resetOne(workspace, seed);
  }

  delete(workspace: Workspace): void {
    this.registry.delete(workspace);
  }

  /** Seeds at once: the default workspace is there when this returns. */
  async open(seedDefault: () => void): Promise<"seeded"> {
    seedDefault();
    return "seeded";
  }

  authenticate(apiKey: string): Workspace | undefined | Promise<Workspace | undefined> {
    return this.registry.authenticate(apiKey);
  }

  transact<T>(workspace: Workspace, work: () => T): T {
    try {
      // Not awaited here: what follows the work's first await is not part of it (as on Redis).
      return work();
    } finally {
      this.runFollowUps(workspace);
    }
  }

  async transactBackground<T>(workspace: Workspace, work: () => T): Promise<Awaited<T>> {
    return this.transact(workspace, work) as Awaited<T>;
  }

  async transactMock<T>(work: () => T): Promise<Awaited<T>> {
    return work() as Awaited<T>;
  }

  async control<T>(work: () => T | Promise<T>): Promise<T> {
    return work();
  }

  async catchUp(): Promise<void> {}

  afterCommit(workspace: Workspace, start: FollowUp): void {
    const queued = this.followUps.get(workspace);
    if (queued) queued.push(start);
    else this.followUps.set(workspace, [start]);
  }

  generationOf(workspace: Workspace): number {
    return this.registry.generationOf(workspace);
  }

  async close(): Promise<void> {
    this.registry.stopClocks();
  }

  private runFollowUps(workspace: Workspace): void {
    const queued = this.followUps.get(workspace);
    if (!queued) return;
    this.followUps.delete(workspace);
    for (const start of queued) start(false);
  }
}

/** The default store: every workspace in this process. */
export const memoryStore: StoreFactory = (parts) => new MemoryStore(parts);
