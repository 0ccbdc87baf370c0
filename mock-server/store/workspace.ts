/**
 * Workspaces: each holds one Collection per resource, its secrets, and its own seeded Random.
 * API keys map to workspaces; a lookup compares SHA-256 digests in constant time, so a key cannot be
 * guessed byte by byte from response timings.
 */
import crypto, { createHash, timingSafeEqual } from "node:crypto";
import { Collection } from "./collection.js";
import { Random } from "./random.js";
import { collectionNames, collectionOptions, type CollectionName, type RecordTypes } from "./records.js";
import type { components } from "../../generated/schema.js";

export type Collections = { [K in CollectionName]: Collection<RecordTypes[K]> };

type AuthCreate = components["schemas"]["IntegrationAuthCreate"];

/** Stored credentials of an integration: exactly what E5 received. Never serialised into a response. */
export type IntegrationCredentials = AuthCreate;

export interface TrunkSecrets {
  sipTrunkName?: string;
  trunkUsername?: string;
  trunkPassword?: string;
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
  readonly credentials = new Map<string, IntegrationCredentials>();
  readonly trunks = new Map<string, TrunkSecrets>();
  random: Random;
  /** Bumped on reset: scheduled work of an older generation finds it stale and does nothing. */
  generation = 0;

  constructor(options: WorkspaceOptions) {
    this.workspaceId = options.workspaceId;
    this.apiKey = options.apiKey;
    this.readOnly = options.readOnly;
    this.seed = options.seed;
    this.empty = options.empty;
    this.random = new Random(options.seed);
    this.collections = Object.fromEntries(
      collectionNames.map((name) => [name, new Collection(name, collectionOptions[name] as never)]),
    ) as unknown as Collections;
  }

  clear(): void {
    for (const name of collectionNames) this.collections[name].clear();
    this.credentials.clear();
    this.trunks.clear();
    this.random = new Random(this.seed);
    this.generation++;
  }

  counts(): Record<CollectionName, number> {
    return Object.fromEntries(collectionNames.map((n) => [n, this.collections[n].size])) as Record<CollectionName, number>;
  }
}

export type Seeder = (workspace: Workspace) => void;

/**
 * SHA-256 of a key. The one-shot crypto.hash (Node >= 20.12) creates no Hash object: on every request
 * that object and its native finaliser cost more than the hashing itself.
 */
const digest: (key: string) => Buffer =
  typeof crypto.hash === "function" ? (key) => crypto.hash("sha256", key, "buffer") : (key) => createHash("sha256").update(key, "utf8").digest();

export class Workspaces {
  private readonly byId = new Map<string, Workspace>();
  private readonly byKeyDigest = new Map<string, { digest: Buffer; workspace: Workspace }>();
  private created = 0;

  constructor(private readonly seeder: Seeder) {}

  add(options: WorkspaceOptions, how: { seed: boolean } = { seed: true }): Workspace {
    if (this.byId.has(options.workspaceId)) throw new Error(`workspace ${options.workspaceId} exists`);
    const workspace = new Workspace(options);
    this.byId.set(workspace.workspaceId, workspace);
    const d = digest(options.apiKey);
    this.byKeyDigest.set(d.toString("hex"), { digest: d, workspace });
    if (!options.empty && how.seed) this.seeder(workspace);
    return workspace;
  }

  /** A new isolated workspace with a generated id and key. */
  create(options: { seed?: number; empty?: boolean; readOnly?: boolean }, random: Random): Workspace {
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

  /** The workspace of an API key, or undefined. The final comparison is constant-time. */
  authenticate(apiKey: string): Workspace | undefined {
    const d = digest(apiKey);
    const found = this.byKeyDigest.get(d.toString("hex"));
    if (!found || !timingSafeEqual(found.digest, d)) return undefined;
    return found.workspace;
  }

  /** Every workspace back to its seed state; `seed` replaces the seed of `defaultId`. */
  reset(defaultId: string, seed?: number): void {
    for (const workspace of this.byId.values()) {
      if (seed !== undefined && workspace.workspaceId === defaultId) workspace.seed = seed;
      workspace.clear();
      if (!workspace.empty) this.seeder(workspace);
    }
  }
}
