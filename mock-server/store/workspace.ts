/**
 * A workspace: one Collection per resource, its secrets, its scheduled tasks, its webhook outbox, its
 * own clock and seeded Random. Plain objects, the same whichever store holds them (store/store.ts);
 * a store that must know what changed gives the workspace a change tracker at construction.
 */
import type { Clock } from "../core/clock.js";
import { Random } from "../core/random.js";
import { CLOCK_CHANGE, NO_TRACKING, RANDOM_CHANGE, type ChangeTracker, type WorkspaceChange } from "./changes.js";
import { Collection } from "./collection.js";
import { GenericCollections } from "./generic-records.js";
import { ObservedMap } from "./observed-map.js";
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

/** A named world a workspace is seeded with instead of the usual one (seed/index.ts runs it). */
export type Scenario = MockControlComponents["schemas"]["Scenario"];

/** Every scenario the spec names, for a caller to check a name against (the CLI, a state file). */
export const SCENARIOS = ["every-variant"] as const satisfies readonly Scenario[];

// A scenario added to the spec but not to SCENARIOS fails the build here.
const everyScenarioListed: [Exclude<Scenario, (typeof SCENARIOS)[number]>] extends [never] ? true : false = true;
void everyScenarioListed;

export function isScenario(name: unknown): name is Scenario {
  return (SCENARIOS as readonly unknown[]).includes(name);
}

export interface WorkspaceOptions {
  workspaceId: string;
  apiKey: string;
  seed: number;
  empty: boolean;
  readOnly: boolean;
  /** Seeded with this scenario instead of the usual world (on reset too); absent: the usual world. */
  scenario?: Scenario;
}

/** What the creator of a workspace chooses (POST /__mock/workspaces); its id and key are generated. */
export type CreateOptions = Partial<Pick<WorkspaceOptions, "seed" | "empty" | "readOnly" | "scenario">>;

export class Workspace {
  readonly workspaceId: string;
  readonly apiKey: string;
  readonly readOnly: boolean;
  seed: number;
  readonly empty: boolean;
  /** Replaced only by a restore, or by another process's write (store/redis/fields.ts). */
  scenario: Scenario | undefined;
  readonly collections: Collections;
  /** The records of the collections the generic layer infers from the document (mock-server/generic/). */
  readonly generic: GenericCollections;
  readonly credentials: ObservedMap<string, IntegrationCredentials>;
  readonly trunks: ObservedMap<string, TrunkSecrets>;
  /** Scripted calls by callId, until each is final. */
  readonly callPlans: ObservedMap<string, CallPlan>;
  /** What is scheduled: calls, batch runs, chats, webhook attempts (sim/scheduler.ts runs it). */
  readonly tasks: Tasks;
  /** This workspace's webhook deliveries (webhooks/dispatcher.ts), oldest first. */
  readonly outbox: Collection<Delivery>;
  random: Random;
  /** Told of each entry about to change; NO_TRACKING (memory) skips the telling altogether. */
  private readonly tracker: ChangeTracker<WorkspaceChange> | undefined;

  constructor(
    options: WorkspaceOptions,
    /** This workspace's own time: its calls, batch runs and webhook retries run on it. */
    readonly clock: Clock,
    /** Told of every entry of the state before it changes (store/changes.ts); none in memory. */
    tracker: ChangeTracker<WorkspaceChange> = NO_TRACKING,
  ) {
    this.workspaceId = options.workspaceId;
    this.apiKey = options.apiKey;
    this.readOnly = options.readOnly;
    this.seed = options.seed;
    this.empty = options.empty;
    this.scenario = options.scenario;
    const t = (this.tracker = tracker === NO_TRACKING ? undefined : tracker);
    const tell = <K>(change: (key: K) => WorkspaceChange) => (t ? (key: K) => t.changed(change(key)) : undefined);
    this.collections = Object.fromEntries(
      collectionNames.map((name) => [
        name,
        new Collection(
          name,
          collectionOptions[name] as never,
          tell((id: string) => ({ kind: "record", collection: name, id })),
        ),
      ]),
    ) as unknown as Collections;
    this.generic = new GenericCollections(
      t && ((collection: string, id: string) => t.changed({ kind: "generic", collection, id })),
    );
    this.outbox = new Collection<Delivery>(
      "outbox",
      { idOf: (d) => d.deliveryId },
      tell((id: string) => ({ kind: "delivery", id })),
    );
    this.credentials = new ObservedMap(tell((id: string) => ({ kind: "credential", id })));
    this.trunks = new ObservedMap(tell((number: string) => ({ kind: "trunk", number })));
    this.callPlans = new ObservedMap(tell((callId: string) => ({ kind: "callPlan", callId })));
    this.tasks = new Tasks(tell((id: string) => ({ kind: "task", id })));
    if (t) clock.onSet = () => t.changed(CLOCK_CHANGE);
    this.random = this.newRandom();
  }

  private newRandom(): Random {
    const random = new Random(this.seed);
    const t = this.tracker;
    if (t) random.onDraw = () => t.changed(RANDOM_CHANGE);
    return random;
  }

  /** Empties the workspace (a reset before seeding): records, secrets, tasks, outbox; a new Random from the seed. */
  clear(): void {
    for (const name of collectionNames) this.collections[name].clear();
    this.generic.clear();
    this.credentials.clear();
    this.trunks.clear();
    this.callPlans.clear();
    this.tasks.clear();
    this.outbox.clear();
    this.tracker?.changed(RANDOM_CHANGE);
    this.random = this.newRandom();
    // What was scheduled belongs to the records just dropped; seeding schedules anew.
    this.clock.stop();
  }

  counts(): Record<CollectionName, number> {
    return Object.fromEntries(collectionNames.map((n) => [n, this.collections[n].size])) as Record<
      CollectionName,
      number
    >;
  }
}

/** Fills a workspace just added or reset (seed/): its records, and the simulation of what is under way. */
export type Seeder = (workspace: Workspace) => void;
