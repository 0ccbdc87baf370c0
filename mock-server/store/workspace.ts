/**
 * Workspaces: each holds one Collection per resource, its secrets, and its own seeded Random.
 * API keys map to workspaces; a lookup compares SHA-256 digests in constant time, so a key cannot be
 * guessed byte by byte from response timings. The hash comes from the platform: Web Crypto by
 * default (browsers, MSW), Node's one-shot crypto.hash from the Node doors (no promise per request).
 */
import { Clock } from "../core/clock.js";
import { sha256, subtleCrypto } from "../core/portable-crypto.js";
import { Collection } from "./collection.js";
import { ObservedMap } from "./observed-map.js";
import { Random } from "../core/random.js";
import { collectionNames, collectionOptions, type CollectionName, type RecordTypes } from "./records.js";
import { Tasks } from "./tasks.js";
import type { components } from "../../generated/schema.js";
import type { components as MockControlComponents } from "../../generated/mock-control.js";

/** A webhook delivery as GET /__mock/webhook-deliveries shows it, plus its place among all workspaces' deliveries. */
export type Delivery = MockControlComponents["schemas"]["WebhookDelivery"] & { order: number };

export type Collections = { [K in CollectionName]: Collection<RecordTypes[K]> };

type AuthCreate = components["schemas"]["IntegrationAuthCreate"];

/** Stored credentials of an integration: exactly what E5 received. Never serialised into a response. */
export type IntegrationCredentials = AuthCreate;

export interface TrunkSecrets {
  sipTrunkName?: string;
  trunkUsername?: string;
  trunkPassword?: string;
}

/**
 * A call's scripted life (a control-plane fill with `outcome`, control/call-outcome.ts): the call
 * progression follows it instead of chance, then forgets it once the call is final.
 */
export interface CallPlan {
  /** The final status the call reaches. */
  status: "ended" | "not_connected" | "error";
  /** The reason it ends with; absent: one picked as for any call. */
  terminationReason?: components["schemas"]["TerminationReason"];
  /** Whether a scheduled call connects (goes in_progress) on its way. */
  connects: boolean;
  /** When a scheduled call connects (ISO); absent: after the usual wait. */
  connectAt?: string;
  /** When the call reaches `status` (ISO); absent: durationSeconds after it connected, else the usual wait. */
  finalAt?: string;
  /** How long the conversation lasts once connected, in seconds. */
  durationSeconds?: number;
}

export interface WorkspaceOptions {
  workspaceId: string;
  apiKey: string;
  seed: number;
  empty: boolean;
  readOnly: boolean;
}

export class Workspace {
  readonly workspaceId: string;
  readonly apiKey: string;
  readonly readOnly: boolean;
  seed: number;
  readonly empty: boolean;
  readonly collections: Collections;
  readonly credentials = new ObservedMap<string, IntegrationCredentials>();
  readonly trunks = new ObservedMap<string, TrunkSecrets>();
  /** Scripted calls by callId, until each is final. */
  readonly callPlans = new ObservedMap<string, CallPlan>();
  /** What is scheduled: calls, batch runs, chats, webhook attempts (sim/scheduler.ts runs it). */
  readonly tasks = new Tasks();
  /** This workspace's webhook deliveries (webhooks/dispatcher.ts), oldest first. */
  readonly outbox = new Collection<Delivery>("outbox", { idOf: (d) => d.deliveryId });
  random: Random;
  /**
   * Bumped whenever the state changes other than through this process's own work: a reset, a delete,
   * another process's write applied, a write undone. Caches derived from the state (sim/chats.ts) and
   * work under way (a webhook attempt) compare it to know they may be stale.
   */
  generation = 0;
  /**
   * Told of each part of the state about to change, by its field name (store/shared/fields.ts): set
   * while a shared store runs a request's work, so it can write what changed and undo it on a conflict.
   */
  touch: ((field: string) => void) | undefined;
  /** Started once the work that queued them is done (and, on a shared store, written): webhook attempts. */
  private followUps: ((undone: boolean) => void)[] = [];

  constructor(
    options: WorkspaceOptions,
    /** This workspace's own time: its calls, batch runs and webhook retries run on it. */
    readonly clock: Clock,
  ) {
    this.workspaceId = options.workspaceId;
    this.apiKey = options.apiKey;
    this.readOnly = options.readOnly;
    this.seed = options.seed;
    this.empty = options.empty;
    this.random = this.newRandom();
    this.collections = Object.fromEntries(
      collectionNames.map((name) => [name, new Collection(name, collectionOptions[name] as never)]),
    ) as unknown as Collections;
    for (const name of collectionNames) this.collections[name].onTouch = (id) => this.touch?.(`r:${name}:${id}`);
    this.outbox.onTouch = (id) => this.touch?.(`d:${id}`);
    this.credentials.onTouch = (id) => this.touch?.(`c:${id}`);
    this.trunks.onTouch = (number) => this.touch?.(`t:${number}`);
    this.callPlans.onTouch = (callId) => this.touch?.(`p:${callId}`);
    this.tasks.onTouch = (id) => this.touch?.(`k:${id}`);
    clock.onSet = () => this.touch?.("clock");
  }

  private newRandom(): Random {
    const random = new Random(this.seed);
    random.onDraw = () => this.touch?.("random");
    return random;
  }

  clear(): void {
    for (const name of collectionNames) this.collections[name].clear();
    this.credentials.clear();
    this.trunks.clear();
    this.callPlans.clear();
    this.tasks.clear();
    this.outbox.clear();
    this.touch?.("random");
    this.random = this.newRandom();
    this.generation++;
    // What was scheduled belongs to the records just dropped; seeding schedules anew.
    this.clock.stop();
  }

  /** Queues `start` to run once the current work is done (see followUps); told `undone` when the work was undone instead. */
  afterWork(start: (undone: boolean) => void): void {
    this.followUps.push(start);
  }

  /** Starts what the finished work queued, telling it whether the work was undone (a shared store's conflict). */
  runFollowUps(undone = false): void {
    const queued = this.followUps;
    if (queued.length === 0) return;
    this.followUps = [];
    for (const start of queued) start(undone);
  }

  counts(): Record<CollectionName, number> {
    return Object.fromEntries(collectionNames.map((n) => [n, this.collections[n].size])) as Record<
      CollectionName,
      number
    >;
  }
}

export type Seeder = (workspace: Workspace) => void;

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

export class Workspaces {
  private readonly byId = new Map<string, Workspace>();
  private readonly byKeyDigest = new Map<string, { digest: Uint8Array; workspace: Workspace }>();
  /** Workspaces whose key is not hashed yet: hashing may be asynchronous, adding is not. */
  private unindexed: Workspace[] = [];
  private created = 0;
  /** Told of each workspace added, before it is seeded (the mock wires its scheduled work here). */
  onAdd: ((workspace: Workspace) => void) | undefined;
  /**
   * Told of each part of the registry about to change: `w:<workspaceId>` (a workspace added, deleted or
   * given a new seed), `created` (the count behind generated ids), `clock` (the root clock moved).
   */
  touch: ((field: string) => void) | undefined;

  constructor(
    private readonly seeder: Seeder,
    /** The mock's root clock: each workspace gets a fork of it, at its time when the workspace is added. */
    readonly clock: Clock = new Clock({ mode: "virtual" }),
    private readonly sha256: Sha256 = webCryptoSha256,
  ) {
    clock.onSet = () => this.touch?.("clock");
  }

  add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    if (this.byId.has(options.workspaceId)) throw new Error(`workspace ${options.workspaceId} exists`);
    this.touch?.(`w:${options.workspaceId}`);
    const workspace = new Workspace(options, this.clock.fork());
    this.byId.set(workspace.workspaceId, workspace);
    this.unindexed.push(workspace);
    this.onAdd?.(workspace);
    if (!options.empty && how.seed) this.seeder(workspace);
    return workspace;
  }

  /** A new isolated workspace with a generated id and key. */
  create(options: { seed?: number; empty?: boolean; readOnly?: boolean }, random: Random): Workspace {
    this.touch?.("created");
    this.created++;
    return this.add({
      workspaceId: `ws-${this.created}-${random.hex(8)}`,
      apiKey: `mock_${random.hex(32)}`,
      seed: options.seed ?? this.created,
      empty: options.empty ?? false,
      readOnly: options.readOnly ?? false,
    });
  }

  get(workspaceId: string): Workspace | undefined {
    return this.byId.get(workspaceId);
  }

  list(): Workspace[] {
    return [...this.byId.values()];
  }

  /** The workspace of an API key, or undefined; a promise only where hashing is asynchronous. The final comparison is constant-time. */
  authenticate(apiKey: string): Workspace | undefined | Promise<Workspace | undefined> {
    if (this.unindexed.length > 0) this.index();
    // Keys still being hashed (Web Crypto): every lookup waits for them, so a new key is never refused.
    if (this.indexing) return this.indexing.then(() => this.authenticate(apiKey));
    const digest = this.sha256(apiKey);
    return digest instanceof Promise ? digest.then((d) => this.lookup(d)) : this.lookup(digest);
  }

  private lookup(digest: Uint8Array): Workspace | undefined {
    const found = this.byKeyDigest.get(keyOf(digest));
    return found && constantTimeEqual(found.digest, digest) ? found.workspace : undefined;
  }

  private indexing: Promise<void> | undefined;

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

  /**
   * Runs one request's work on a workspace. The core calls every handler through here, and handlers
   * stay synchronous over the workspace's collections: in memory that is all there is. A store shared
   * by several processes (state in Redis) implements this by bringing the workspace up to date before
   * `work` and writing what it changed after, atomically, so the handlers need not change for it.
   * `refresh`: the work did not start with a request (which reads its workspace as it authenticates):
   * a shared store reads the workspace first.
   */
  transact<T>(workspace: Workspace, work: () => T, _refresh = false): T | Promise<T> {
    try {
      return work();
    } finally {
      // In memory a write is never undone: what it queued goes out even if the work failed after it.
      workspace.runFollowUps();
    }
  }

  /**
   * Runs work on the mock-wide state (the registry, the root clock, fault rules) as one transaction.
   * In memory that is all there is; a shared store reads, writes and retries it as transact does.
   */
  transactMock<T>(work: () => T): T | Promise<T> {
    return work();
  }

  /**
   * Runs a control-plane request: a shared store brings every workspace up to date first and writes
   * whatever the work changed, in any of them, as one transaction. `own`: the work runs its own
   * transactions (advancing a clock runs each task as one); only the bringing up to date is done here.
   */
  control<T>(work: () => T | Promise<T>, _own = false): T | Promise<T> {
    return work();
  }

  /** Every workspace back to its seed state; `seed` replaces the seed of `defaultId`. */
  reset(defaultId: string, seed?: number): void {
    for (const workspace of this.byId.values())
      this.resetOne(workspace, workspace.workspaceId === defaultId ? seed : undefined);
  }

  /** One workspace back to its seed state (a new `seed` if given); its clock keeps its time. */
  resetOne(workspace: Workspace, seed?: number): void {
    if (seed !== undefined && seed !== workspace.seed) {
      this.touch?.(`w:${workspace.workspaceId}`);
      workspace.seed = seed;
    }
    workspace.clear();
    if (!workspace.empty) this.seeder(workspace);
  }

  /** Removes a workspace: its key is refused from now on, its scheduled work dropped. */
  delete(workspace: Workspace): void {
    if (this.byId.get(workspace.workspaceId) !== workspace) return;
    this.touch?.(`w:${workspace.workspaceId}`);
    this.forget(workspace);
  }

  /** Drops a workspace from this process's view (delete, or another process deleted it). */
  protected forget(workspace: Workspace): void {
    this.byId.delete(workspace.workspaceId);
    this.unindexed = this.unindexed.filter((w) => w !== workspace);
    // Deletes are rare: its key's entry is found by a scan rather than kept in a second map.
    for (const [key, entry] of this.byKeyDigest) if (entry.workspace === workspace) this.byKeyDigest.delete(key);
    workspace.generation++;
    workspace.clock.stop();
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
