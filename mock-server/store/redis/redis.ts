/**
 * The link to Redis: one connection per process (a Cluster client on a Redis Cluster), and the calls the
 * store and the journal make, each one script or
 * one command on the keys of one hash slot (keys.ts, scripts.ts), so the same calls work on one Redis
 * and on a Cluster.
 *
 * Round trips: `roundTrips` counts what a caller waits for; commands sent together and awaited together
 * (a registry read beside a workspace read) are one, as they travel together. The journal's writes,
 * which nobody waits for on the answer's path, are counted in `sent` instead.
 *
 * Writes: every command goes through the outbox (outbox.ts), which writes each turn of the event loop's
 * commands in one write per node: a request's reads are one write, its commit one, its journal entry
 * with its coverage one (writes.test.ts counts them, per node on a Cluster), shared with the other
 * requests of the turn. A journal entry's answer waits until its write is done (`whenWritten`).
 */
import type { Writable } from "node:stream";
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import { ApiError } from "../../core/errors.js";
import { parseStoreAddress, where } from "./address.js";
import { Outbox } from "./outbox.js";
import { COVERAGE_INDEX, coverageKey, DUE_GUARDS, DUE_INDEX, JOURNAL_LIST, JOURNAL_SEQ, unitKeys } from "./keys.js";
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

const COMMAND_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 3_000;

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
  private lastError = "";
  private connected = false;
  /** Holds each turn's commands for one write per node (outbox.ts). */
  private readonly outbox: Outbox;

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
      link = new RedisLink(shown, log, defineScripts(single), "redis");
      await link.connect().catch((error: Error) => {
        // A Cluster node refuses SELECT: say what is wrong with the address instead.
        throw /SELECT is not allowed in cluster mode/.test(error.message) ? clusterHasNoDb(shown, address.db) : error;
      });
      if (!(await link.isCluster())) return link;
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
    return link;
  }

  /** A link over a client already made (tests: a recording client, see slots.test.ts). */
  static over(client: LinkClient, shown = "redis"): RedisLink {
    return new RedisLink(shown, () => undefined, client as Client, "redis");
  }

  private constructor(
    private readonly shown: string,
    /** Where the mock's log lines go (the journal says there what it had to drop). */
    readonly log: (line: string) => void,
    private readonly client: Client,
    readonly kind: "redis" | "redis-cluster",
  ) {
    this.outbox = new Outbox(() => this.sockets(), {
      journal: (capacity, entries) =>
        this.client.mockJournalAdd(JOURNAL_LIST, JOURNAL_SEQ, capacity, ...entries) as Promise<number>,
      coverage: (workspaceId, keys, index) => {
        const added = this.client.sadd(coverageKey(workspaceId), ...keys);
        return index ? Promise.all([added, this.client.sadd(COVERAGE_INDEX, workspaceId)]) : added;
      },
    });
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
      // A Redis that restarted has no scripts loaded; one that was away may be a new node.
      if (this.connected) void this.warm().catch(() => undefined);
    });
  }

  /**
   * Loads every script on every master, which also opens a Cluster's connection to each: then a send
   * the journal does not wait for goes out in its turn's write (outbox.ts; ioredis would otherwise first try
   * EVALSHA, meet NOSCRIPT and send the script again a round trip later, or queue the command until a
   * new node's connection opens), so it reaches Redis before the answer that follows it reaches a client.
   */
  private async warm(): Promise<void> {
    const masters: Redis[] =
      this.kind === "redis-cluster" ? (this.client as Cluster).nodes("master") : [this.client as Redis];
    await Promise.all(
      masters.map((node) => Promise.all(Object.values(SCRIPTS).map((script) => node.script("LOAD", script.lua)))),
    );
  }

  private async connect(): Promise<void> {
    try {
      await this.client.connect();
      await this.client.ping();
      await this.warm();
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

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** The address without a password. */
  where(): string {
    return this.shown;
  }

  /** Sends what `issue` sends, and writes it with all this turn holds before returning (outbox.ts). */
  together<T>(issue: () => T): T {
    return this.outbox.together(issue);
  }

  /** Calls `written` once what this turn holds is written (outbox.ts): at once when it holds nothing. */
  whenWritten(written: () => void): void {
    this.outbox.whenWritten(written);
  }

  /** The sockets open to Redis now: one, or one per node of a Cluster; none for a client without (tests). */
  private sockets(): Writable[] {
    if (this.kind === "redis") {
      const stream = (this.client as Redis).stream as Writable | undefined;
      return stream?.writable ? [stream] : [];
    }
    const sockets: Writable[] = [];
    for (const node of (this.client as Cluster).nodes("all")) {
      const stream = node.stream as Writable | undefined;
      if (stream?.writable) sockets.push(stream);
    }
    return sockets;
  }

  /** Units brought up to date: one script each, sent together (one round trip). */
  async sync(units: { unit: string; since: number }[]): Promise<SyncResult[]> {
    if (units.length === 0) return [];
    // A unit read at the same version by another request of this turn shares that read (outbox.ts).
    const raw = await this.callAll(
      units.map(
        (u) => () =>
          this.outbox.read(
            u.unit,
            u.since,
            () => this.client.mockSync(...unitKeys(u.unit).slice(0, 3), u.since) as Promise<unknown[]>,
          ),
      ),
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
    return (wait ? this.call(command) : this.failing(this.outbox.later(command))).then((applied) => applied === 1);
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
   * Sends a journal entry, with this turn's others in one script call (outbox.ts: `whenWritten` says when
   * it is written; at once inside `together`); the promise says its seq. Not counted as a round trip:
   * nobody on the answer's path waits for it.
   */
  journalSend(entryJson: string, capacity: number): Promise<number> {
    this.sent++;
    return this.failing(this.outbox.journal(capacity, entryJson));
  }

  /** The variants a workspace's answer showed, into its coverage set (its slot); `index` the first time. */
  coverageSend(workspaceId: string, keys: readonly string[], index: boolean): Promise<unknown> {
    this.sent++;
    return this.failing(this.outbox.coverage(workspaceId, keys, index));
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
    return this.failing(this.outbox.later(command));
  }

  /** Commands sent together (in this turn's write) and awaited together: one round trip. */
  private callAll<T>(commands: (() => Promise<T>)[]): Promise<T[]> {
    if (commands.length === 0) return Promise.resolve([]);
    this.roundTrips++;
    return this.failing(Promise.all(this.outbox.later(() => commands.map((command) => command()))));
  }

  private async failing<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      throw new ApiError(500, `The shared store (${this.where()}) is unavailable: ${(error as Error).message}`);
    }
  }
}
