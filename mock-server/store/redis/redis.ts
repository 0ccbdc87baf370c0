/**
 * The link to Redis: one connection per process (a Cluster client on a Redis Cluster), a second one
 * that listens for registry changes, and the calls the store and the journal make, each one script or
 * one command on the keys of one hash slot (keys.ts, scripts.ts), so the same calls work on one Redis
 * and on a Cluster.
 *
 * Round trips: `roundTrips` counts what a caller waits for; commands sent together and awaited together
 * (a registry read beside a workspace read) are one, as they travel together. The journal's writes,
 * which nobody waits for on the answer's path, are counted in `sent` instead.
 *
 * Invalidation: every registry commit publishes its new version on the registry's channel (its database's:
 * Pub/Sub does not see databases, and two mocks may share a Redis); the listener keeps
 * the newest seen (`registry.published`). Each time it (re)subscribes, `registry.epoch` moves: what a
 * process read of the registry before then may have missed a message. While it is not subscribed,
 * `registry.listening` is false and the store reads the registry on every request.
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import { ApiError } from "../../core/errors.js";
import { parseStoreAddress, where } from "./address.js";
import {
  COVERAGE_INDEX,
  coverageKey,
  DUE_GUARDS,
  DUE_INDEX,
  JOURNAL_LIST,
  JOURNAL_SEQ,
  REGISTRY_CHANNEL,
  REGISTRY_UNIT,
  slotOf,
  unitKeys,
} from "./keys.js";
import { SCRIPTS, type ScriptName } from "./scripts.js";

export interface UnitWrite {
  unit: string;
  /** The version the writer's copy had; -1 writes whatever the version is (guarded by `gen` instead). */
  expected: number;
  mode: "fields" | "whole" | "drop";
  /** field -> JSON text, '' when deleted. */
  values: [string, string][];
  /** Written (whole or dropped) only if the unit was last written whole for an older generation. */
  gen?: number;
  /** Redis ms after which the write is refused (a due hint's lease ran out: see due.ts). */
  deadline?: number;
}

export type CommitResult =
  | { kind: "written"; version: number }
  /** Its version moved: nothing was written. */
  | { kind: "conflict" }
  /** A write for this generation or a newer one is there already: nothing was written. */
  | { kind: "superseded" }
  /** Past its deadline: nothing was written. */
  | { kind: "late" };

export type SyncResult = { version: number; gen: number } & (
  | { kind: "same" }
  | { kind: "whole" | "changes"; values: [string, string][] }
);

/** What the link needs of an ioredis client (one Redis or a Cluster), with its scripts defined. */
export type LinkClient = Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>> & {
  zrangebyscore(
    key: string,
    min: string,
    max: number,
    limit: "LIMIT",
    offset: number,
    count: number,
  ): Promise<string[]>;
  smembers(key: string): Promise<string[]>;
  sadd(key: string, ...members: string[]): Promise<number>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  del(...keys: string[]): Promise<number>;
};

type Client = (Redis | Cluster) & LinkClient;

/** Registry invalidation, as the listener knows it. */
export interface RegistryNews {
  /** Subscribed now: a message published from here on arrives. */
  listening: boolean;
  /** Moves on each (re)subscription. */
  epoch: number;
  /** The newest registry version published since the last (re)subscription. */
  published: number;
}

const COMMAND_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 3_000;
/** How often a Cluster's listener checks it is still on the node that holds the registry's slot. */
const FOLLOW_MS = 1_000;
/** How long open() waits for the listener before serving without it (every request then reads the registry). */
const FIRST_SUBSCRIBE_MS = 2_000;

const retryStrategy = (times: number) => Math.min(50 * times, 1_000);

/**
 * ioredis is an optional peer of the kit (like express): loaded only when a store is asked for, so an
 * install that never uses --store does not carry it.
 */
async function loadClient(): Promise<{ Redis: typeof Redis; Cluster: typeof Cluster }> {
  try {
    const { Redis, Cluster } = await import("ioredis");
    return { Redis, Cluster };
  } catch {
    throw new Error("--store needs the ioredis package: npm install ioredis");
  }
}

const clusterHasNoDb = (shown: string, db: number | undefined) =>
  new Error(`--store ${shown}: a Redis Cluster has no databases; drop /${db}`);

function defineScripts(client: Redis | Cluster): Client {
  for (const [name, script] of Object.entries(SCRIPTS))
    client.defineCommand(name, { lua: script.lua, numberOfKeys: script.keys });
  return client as Client;
}

export class RedisLink {
  /** Round trips a caller waited for (see the file's comment). */
  roundTrips = 0;
  /** Commands sent without waiting (the journal's). */
  sent = 0;
  /** Journal entries sent and not yet confirmed, or kept to be sent again (the journal keeps it). */
  journalPending = 0;
  readonly registry: RegistryNews = { listening: false, epoch: 0, published: 0 };
  private lastError = "";
  private connected = false;
  private listener: Redis | undefined;
  /** On a Cluster, the node ("host:port") the listener is on. */
  private listenerNode: string | undefined;
  private follower: ReturnType<typeof setInterval> | undefined;

  /**
   * A link connected to `url`, or a rejection with one line saying why (the mock then exits 2). Several
   * addresses, or one that says `cluster_enabled:1`, are a Redis Cluster.
   */
  static async open(url: string, log: (line: string) => void): Promise<RedisLink> {
    const address = parseStoreAddress(url);
    const ioredis = await loadClient();
    const shown = where(url);
    const nodeOptions: RedisOptions = {
      ...(address.username && { username: address.username }),
      ...(address.password && { password: address.password }),
      ...(address.tls && { tls: {} }),
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
    };
    let link: RedisLink;
    if (address.seeds.length === 1) {
      const single = new ioredis.Redis(url, {
        ...nodeOptions,
        lazyConnect: true,
        // While Redis is away a command fails at once (a 500 for its request) instead of waiting in a queue.
        enableOfflineQueue: false,
        retryStrategy,
      });
      link = new RedisLink(shown, log, defineScripts(single), "redis", address.db);
      await link.connect().catch((error: Error) => {
        // A Cluster node refuses SELECT: say what is wrong with the address instead.
        throw /SELECT is not allowed in cluster mode/.test(error.message) ? clusterHasNoDb(shown, address.db) : error;
      });
      if (!(await link.isCluster()))
        return link.listen(() =>
          single.duplicate({ enableReadyCheck: false, lazyConnect: false, enableOfflineQueue: true }),
        );
      await link.close();
    }
    if (address.db !== undefined) throw clusterHasNoDb(shown, address.db);
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: retryStrategy,
      slotsRefreshTimeout: COMMAND_TIMEOUT_MS,
      redisOptions: nodeOptions,
    };
    const cluster = new ioredis.Cluster(address.seeds, clusterOptions);
    link = new RedisLink(shown, log, defineScripts(cluster), "redis-cluster");
    await link.connect();
    // On the node that runs the registry's commits: it writes each message to its subscribers before the
    // commit's answer, as one Redis does (the Cluster bus would pass it on to other nodes later).
    const registrySlot = slotOf(unitKeys(REGISTRY_UNIT)[0]);
    const [seed] = address.seeds;
    return link.listen(
      (node) => {
        const at = node?.lastIndexOf(":") ?? -1;
        const host = node && at > 0 ? node.slice(0, at) : seed.host;
        const port = node && at > 0 ? Number(node.slice(at + 1)) : seed.port;
        return new ioredis.Redis({ ...nodeOptions, host, port, enableReadyCheck: false, retryStrategy });
      },
      () => cluster.slots[registrySlot]?.[0],
    );
  }

  /** A link over a client already made (tests: a recording client, see slots.test.ts). */
  static over(client: LinkClient, shown = "redis"): RedisLink {
    return new RedisLink(shown, () => undefined, client as Client, "redis");
  }

  /** Where registry commits publish their versions. */
  private readonly channel: string;

  private constructor(
    private readonly shown: string,
    /** Where the mock's log lines go (the journal says there what it had to drop). */
    readonly log: (line: string) => void,
    private readonly client: Client,
    readonly kind: "redis" | "redis-cluster",
    db = 0,
  ) {
    this.channel = `${REGISTRY_CHANNEL}:${db}`;
    if (typeof (client as Redis).on !== "function") return;
    client.on("error", (error: Error) => {
      // One line per outage, not one per reconnection attempt; none before the first connection (connect says why).
      if (error.message !== this.lastError && this.connected)
        this.log(`shared store ${this.where()}: ${error.message}`);
      this.lastError = error.message;
    });
    client.on("ready", () => {
      if (this.lastError) this.log(`shared store ${this.where()}: connected again`);
      this.lastError = "";
    });
  }

  private async connect(): Promise<void> {
    try {
      await this.client.connect();
      await this.client.ping();
      this.connected = true;
    } catch (error) {
      this.client.disconnect();
      // The socket's own error (ECONNREFUSED) says more than the client's "Connection is closed".
      throw new Error(
        `Cannot reach the shared store at ${this.where()}: ${this.lastError || (error as Error).message}`,
      );
    }
  }

  private async isCluster(): Promise<boolean> {
    const info = await (this.client as Redis).info("cluster").catch(() => "");
    return /^cluster_enabled:1/m.test(info);
  }

  /**
   * Starts the listener (a connection of its own: a subscribed connection runs nothing else) and waits a
   * little for its first subscription. `owner`: on a Cluster, the node that holds the registry's slot;
   * the listener follows it when it moves (a failover, a resharding).
   */
  private async listen(connect: (node?: string) => Redis, owner?: () => string | undefined): Promise<RedisLink> {
    const node = owner?.();
    const subscribed = this.attach(connect(node), node);
    if (owner) {
      this.follower = setInterval(() => {
        const now = owner();
        if (!now || now === this.listenerNode) return;
        this.listener?.disconnect();
        this.registry.listening = false;
        void this.attach(connect(now), now);
      }, FOLLOW_MS);
      this.follower.unref();
    }
    await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, FIRST_SUBSCRIBE_MS).unref())]);
    return this;
  }

  /** Makes `listener` the one; resolves at its first subscription. */
  private attach(listener: Redis, node: string | undefined): Promise<void> {
    this.listener = listener;
    this.listenerNode = node;
    const current = () => this.listener === listener;
    listener.on("error", () => undefined);
    listener.on("close", () => {
      if (current()) this.registry.listening = false;
    });
    listener.on("message", (_channel: string, message: string) => {
      const version = Number(message);
      if (current() && version > this.registry.published) this.registry.published = version;
    });
    return new Promise<void>((resolve) => {
      listener.on("ready", () => {
        listener.subscribe(this.channel).then(
          () => {
            if (!current()) return;
            // What was read before may have missed a message: the next request reads the registry.
            this.registry.published = 0;
            this.registry.epoch++;
            this.registry.listening = true;
            resolve();
          },
          () => undefined,
        );
      });
    });
  }

  async close(): Promise<void> {
    if (this.follower) clearInterval(this.follower);
    this.listener?.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** The address without a password. */
  where(): string {
    return this.shown;
  }

  /** Units brought up to date: one script each, sent together (one round trip). */
  async sync(units: { unit: string; since: number }[]): Promise<SyncResult[]> {
    if (units.length === 0) return [];
    const raw = await this.callAll(
      units.map((u) => () => this.client.mockSync(...unitKeys(u.unit).slice(0, 3), u.since) as Promise<unknown[]>),
    );
    return raw.map((entry) => {
      const [version, kind, flat, gen] = entry as [number, number, string[], number];
      if (kind === 0) return { version, gen, kind: "same" };
      const values: [string, string][] = [];
      for (let i = 0; i < flat.length; i += 2) values.push([flat[i], flat[i + 1]]);
      return { version, gen, kind: kind === 1 ? "whole" : "changes", values };
    });
  }

  /** Writes, one script each, sent together (one round trip); each written whole or not at all. */
  async commit(writes: UnitWrite[]): Promise<CommitResult[]> {
    return this.callAll(writes.map((w) => () => this.commitOne(w)));
  }

  private async commitOne(write: UnitWrite): Promise<CommitResult> {
    const mode = write.mode === "fields" ? 0 : write.mode === "whole" ? 1 : 2;
    const args: (string | number)[] = [
      ...unitKeys(write.unit),
      write.expected,
      mode,
      write.gen ?? 0,
      write.deadline ?? 0,
      write.unit === REGISTRY_UNIT ? this.channel : "",
    ];
    for (const [field, value] of write.values) args.push(field, value);
    const [status, version] = (await this.client.mockCommit(...args)) as [number, number];
    if (status === 1) return { kind: "written", version };
    return { kind: status === 0 ? "conflict" : status === 2 ? "superseded" : "late" };
  }

  /** Due hints (due.ts), one script on the due slot; resolves to Redis's time of them (ms). */
  async dueHint(hints: { workspaceId: string; wallMs: number; version: number }[]): Promise<number> {
    const args = hints.flatMap((h) => [h.workspaceId, Math.round(h.wallMs), h.version]);
    return (await this.call(() => this.client.mockDueHint(DUE_INDEX, DUE_GUARDS, ...args))) as number;
  }

  /**
   * Sets a workspace's due entry to what `version` holds, unless a younger hint for a later version is
   * pending. `wait` false: sent from a response's path, which does not wait for it (counted in `sent`).
   */
  dueCorrect(workspaceId: string, version: number, wallMs: number | undefined, leaseMs: number, wait = true) {
    const score = wallMs === undefined ? "" : Math.round(wallMs);
    const command = () => this.client.mockDueCorrect(DUE_INDEX, DUE_GUARDS, workspaceId, score, version, leaseMs);
    if (!wait) this.sent++;
    return (wait ? this.call(command) : this.failing(command())).then((applied) => applied === 1);
  }

  async dueForget(workspaceIds: string[]): Promise<void> {
    if (workspaceIds.length > 0)
      await this.call(() => this.client.mockDueForget(DUE_INDEX, DUE_GUARDS, ...workspaceIds));
  }

  /** Workspaces whose earliest task may be due by `wallMs`. */
  async dueBy(wallMs: number): Promise<string[]> {
    return this.call(() => this.client.zrangebyscore(DUE_INDEX, "-inf", wallMs, "LIMIT", 0, 50));
  }

  /**
   * Sends a journal entry now (the command is on its way when this returns); the promise says its seq.
   * Not counted as a round trip: nobody on the answer's path waits for it.
   */
  journalSend(entryJson: string, capacity: number): Promise<number> {
    this.sent++;
    return this.failing(this.client.mockJournalAdd(JOURNAL_LIST, JOURNAL_SEQ, capacity, entryJson) as Promise<number>);
  }

  /** The variants a workspace's answer showed, into its coverage set (its slot); `index` the first time. */
  coverageSend(workspaceId: string, keys: readonly string[], index: boolean): Promise<unknown> {
    this.sent++;
    const added = this.client.sadd(coverageKey(workspaceId), ...keys);
    return this.failing<unknown>(index ? Promise.all([added, this.client.sadd(COVERAGE_INDEX, workspaceId)]) : added);
  }

  async coverageOf(workspaceId: string): Promise<string[]> {
    return this.call(() => this.client.smembers(coverageKey(workspaceId)));
  }

  async journalAll(): Promise<string[]> {
    return this.call(() => this.client.lrange(JOURNAL_LIST, 0, -1));
  }

  /** The journal's entries, and the coverage the same traffic built: every workspace's, or one's. */
  async journalClear(workspaceId?: string): Promise<void> {
    if (workspaceId !== undefined) {
      await this.callAll([
        () => this.client.mockJournalDrop(JOURNAL_LIST, workspaceId),
        () => this.client.del(coverageKey(workspaceId)),
      ]);
      return;
    }
    const [, ids] = await this.callAll<unknown>([
      () => this.client.del(JOURNAL_LIST),
      () => this.client.smembers(COVERAGE_INDEX),
    ]);
    // One command per workspace: each set is in its workspace's slot. The index keeps the ids (see journal.ts).
    await this.callAll((ids as string[]).map((id) => () => this.client.del(coverageKey(id))));
  }

  /** One command: counted, and a failure becomes the 500 its request answers. */
  private call<T>(command: () => Promise<T>): Promise<T> {
    this.roundTrips++;
    return this.failing(command());
  }

  /** Commands sent together and awaited together: one round trip. */
  private callAll<T>(commands: (() => Promise<T>)[]): Promise<T[]> {
    if (commands.length === 0) return Promise.resolve([]);
    this.roundTrips++;
    return this.failing(Promise.all(commands.map((command) => command())));
  }

  private async failing<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      throw new ApiError(500, `The shared store (${this.where()}) is unavailable: ${(error as Error).message}`);
    }
  }
}
