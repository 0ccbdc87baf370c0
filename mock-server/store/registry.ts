/**
 * The registry of workspaces, which every store holds (store/memory/, store/redis/): workspaces by id,
 * API keys to workspaces, the count behind generated ids, the root clock. A lookup compares SHA-256
 * digests in constant time, so a key cannot be guessed byte by byte from response timings. The hash
 * comes from the platform: Web Crypto by default (browsers, MSW), Node's one-shot crypto.hash from the
 * Node doors (no promise per request).
 */
import type { Clock } from "../core/clock.js";
import { sha256, subtleCrypto } from "../core/portable-crypto.js";
import type { Random } from "../core/random.js";
import { CREATED_CHANGE, NO_TRACKING, ROOT_CLOCK_CHANGE, type ChangeTracker, type MockChange } from "./changes.js";
import { Workspace, type CreateOptions, type Seeder, type WorkspaceOptions } from "./workspace.js";

/** SHA-256 of a text; synchronous where the platform allows it. */
export type Sha256 = (text: string) => Uint8Array | Promise<Uint8Array>;

/** Web Crypto's digest; plain JavaScript where `crypto.subtle` is withheld (see portable-crypto.ts). */
export const webCryptoSha256: Sha256 = (text) => {
  const bytes = new TextEncoder().encode(text);
  const subtle = subtleCrypto();
  return subtle ? subtle.digest("SHA-256", bytes).then((digest) => new Uint8Array(digest)) : sha256(bytes);
};

/** Map key of a digest: one char per byte. */
const keyOf = (digest: Uint8Array) => String.fromCharCode.apply(null, digest as unknown as number[]);

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

export interface RegistryParts {
  /** Fills a workspace added (unless asked not to) or reset. */
  seed: Seeder;
  /** The mock's root clock: each workspace gets a fork of it, at its time when the workspace is added. */
  clock: Clock;
  sha256?: Sha256;
  /** Told of each workspace added, before it is seeded (the scheduler wakes its clock for its tasks). */
  added?: (workspace: Workspace) => void;
  /** Told of each mock-wide entry before it changes (store/changes.ts); none in memory. */
  tracker?: ChangeTracker<MockChange>;
  /** Makes the Workspace object (a store gives it its change tracker); a plain one by default. */
  newWorkspace?: (options: WorkspaceOptions, clock: Clock) => Workspace;
}

export class Registry {
  readonly clock: Clock;
  private readonly byId = new Map<string, Workspace>();
  private readonly byKeyDigest = new Map<string, { digest: Uint8Array; workspace: Workspace }>();
  /** Workspaces whose key is not hashed yet: hashing may be asynchronous, adding is not. */
  private unindexed: Workspace[] = [];
  private indexing: Promise<void> | undefined;
  private created = 0;
  /** See generationOf. */
  private readonly generations = new WeakMap<Workspace, number>();
  private readonly seeder: Seeder;
  private readonly sha256: Sha256;
  private readonly tracker: ChangeTracker<MockChange>;
  private readonly newWorkspace: (options: WorkspaceOptions, clock: Clock) => Workspace;

  constructor(private readonly parts: RegistryParts) {
    this.clock = parts.clock;
    this.seeder = parts.seed;
    this.sha256 = parts.sha256 ?? webCryptoSha256;
    this.tracker = parts.tracker ?? NO_TRACKING;
    this.newWorkspace = parts.newWorkspace ?? ((options, clock) => new Workspace(options, clock));
    const tracker = parts.tracker;
    if (tracker) this.clock.onSet = () => tracker.changed(ROOT_CLOCK_CHANGE);
  }

  /** Adds a workspace (seeded unless `how.seed` is false or it is empty), its clock a fork of the root clock. */
  add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    if (this.byId.has(options.workspaceId)) throw new Error(`workspace ${options.workspaceId} exists`);
    this.tracker.changed({ kind: "workspace", workspaceId: options.workspaceId });
    const workspace = this.newWorkspace(options, this.clock.fork());
    this.byId.set(workspace.workspaceId, workspace);
    this.unindexed.push(workspace);
    this.parts.added?.(workspace);
    if (!options.empty && how.seed) this.seeder(workspace);
    return workspace;
  }

  /**
   * A new isolated workspace with a generated id and key. Both carry the count of workspaces ever
   * created, which no reset takes back: `random` (the default workspace's) starts over when that
   * workspace is reset, and a key drawn from it alone would be one a live workspace already holds.
   */
  create(options: CreateOptions, random: Random): Workspace {
    this.tracker.changed(CREATED_CHANGE);
    this.created++;
    return this.add({
      workspaceId: `ws-${this.created}-${random.hex(8)}`,
      apiKey: `mock_${random.hex(24)}${this.created.toString(16).padStart(8, "0")}`,
      seed: options.seed ?? this.created,
      empty: options.empty ?? false,
      readOnly: options.readOnly ?? false,
      ...(options.scenario && { scenario: options.scenario }),
    });
  }

  get(workspaceId: string): Workspace | undefined {
    return this.byId.get(workspaceId);
  }

  list(): Workspace[] {
    return [...this.byId.values()];
  }

  /** The workspace of an API key, or undefined. The final comparison is constant-time. */
  authenticate(apiKey: string): Workspace | undefined | Promise<Workspace | undefined> {
    if (this.unindexed.length > 0) this.index();
    if (this.indexing) return this.authenticateIndexed(apiKey);
    // A synchronous digest (node:crypto) answers at once: no promise on a request's path.
    const digest = this.sha256(apiKey);
    return digest instanceof Promise ? digest.then((d) => this.lookup(d)) : this.lookup(digest);
  }

  /** authenticate once the keys still being hashed (Web Crypto) are in: a new key is never refused. */
  private async authenticateIndexed(apiKey: string): Promise<Workspace | undefined> {
    for (;;) {
      if (this.unindexed.length > 0) this.index();
      if (!this.indexing) break;
      await this.indexing;
    }
    const digest = this.sha256(apiKey);
    return this.lookup(digest instanceof Promise ? await digest : digest);
  }

  private lookup(digest: Uint8Array): Workspace | undefined {
    const found = this.byKeyDigest.get(keyOf(digest));
    return found && constantTimeEqual(found.digest, digest) ? found.workspace : undefined;
  }

  /** Hashes the keys of workspaces added since the last lookup; `indexing` is set while that is asynchronous. */
  private index(): void {
    const pending = this.unindexed;
    this.unindexed = [];
    const digests = pending.map((workspace) => this.sha256(workspace.apiKey));
    const put = (all: Uint8Array[]) =>
      all.forEach((digest, i) => {
        if (this.byId.get(pending[i].workspaceId) === pending[i])
          this.byKeyDigest.set(keyOf(digest), { digest, workspace: pending[i] });
      });
    if (!digests.some((d) => d instanceof Promise)) return void put(digests as Uint8Array[]);
    const done: Promise<void> = Promise.all([this.indexing, Promise.all(digests).then(put)]).then(() => {
      if (this.indexing === done) this.indexing = undefined;
    });
    this.indexing = done;
  }

  /** Every workspace back to its seed state; `seed` replaces the seed of `defaultId`. */
  reset(defaultId: string, seed?: number): void {
    for (const workspace of this.byId.values())
      this.resetOne(workspace, workspace.workspaceId === defaultId ? seed : undefined);
  }

  /** One workspace back to its seed state (a new `seed` if given); its clock keeps its time. */
  resetOne(workspace: Workspace, seed?: number): void {
    if (seed !== undefined && seed !== workspace.seed) {
      this.tracker.changed({ kind: "workspace", workspaceId: workspace.workspaceId });
      workspace.seed = seed;
    }
    this.clear(workspace);
    if (!workspace.empty) this.seeder(workspace);
  }

  /** Empties a workspace; what was derived from its state is stale from now on (generationOf). */
  clear(workspace: Workspace): void {
    workspace.clear();
    this.bump(workspace);
  }

  /** Removes a workspace: its key is refused from now on, its scheduled work dropped. */
  delete(workspace: Workspace): void {
    if (this.byId.get(workspace.workspaceId) !== workspace) return;
    this.tracker.changed({ kind: "workspace", workspaceId: workspace.workspaceId });
    this.forget(workspace);
  }

  /** Drops a workspace from this process's view (deleted here, or by another process). */
  forget(workspace: Workspace): void {
    this.byId.delete(workspace.workspaceId);
    this.unindexed = this.unindexed.filter((w) => w !== workspace);
    // Deletes are rare: its key's entry is found by a scan rather than kept in a second map.
    for (const [key, entry] of this.byKeyDigest) if (entry.workspace === workspace) this.byKeyDigest.delete(key);
    this.bump(workspace);
    workspace.clock.stop();
  }

  /**
   * Moves whenever a workspace's state changed other than through this process's own work: a reset, a
   * delete, another process's write applied, a write undone. Caches derived from the state
   * (sim/chats.ts) compare it to know they may be stale.
   */
  generationOf(workspace: Workspace): number {
    return this.generations.get(workspace) ?? 0;
  }

  bump(workspace: Workspace): void {
    this.generations.set(workspace, this.generationOf(workspace) + 1);
  }

  /** How many workspaces were ever created (their ids count on from it). */
  get createdCount(): number {
    return this.created;
  }

  set createdCount(count: number) {
    this.created = count;
  }

  /** Stops every clock (the mock is closing). */
  stopClocks(): void {
    this.clock.stop();
    for (const workspace of this.byId.values()) workspace.clock.stop();
  }
}
