/**
 * The link to Redis: one connection per process, and the Lua scripts that make each read and each
 * write a single atomic step there. Layout, under the prefix `apm:`, for each unit (`m` for the
 * mock-wide registry, `w:<workspaceId>` for a workspace):
 *   <unit>:m  hash  v = version (one more per write), b = base (the version of its last whole write)
 *   <unit>:h  hash  field -> JSON value (fields.ts)
 *   <unit>:z  zset  field -> version of its last write; a deleted field stays, without a value, so
 *                    a reader learns of the delete
 * and `due` (zset: workspaceId -> wall-clock ms of its earliest task), `journal` (list, newest first)
 * and `journal:seq`. Several keys are written at once only inside one script, so a write is whole or
 * absent, whatever happens to the process that sent it.
 */
import type { Redis } from "ioredis";
import { ApiError } from "../../core/errors.js";

const PREFIX = "apm:";
/** The coverage index (a set of workspace ids); each workspace's variant keys are in `${COVERAGE}:<id>`. */
const COVERAGE = `${PREFIX}coverage`;

/** Per unit (3 keys each: m, h, z; one `since` each): what changed since that version. */
const SYNC = `
local out = {}
for i = 1, #ARGV do
  local m, h, z = KEYS[3*i-2], KEYS[3*i-1], KEYS[3*i]
  local v = tonumber(redis.call('HGET', m, 'v') or '0')
  local b = tonumber(redis.call('HGET', m, 'b') or '0')
  local since = tonumber(ARGV[i])
  if since == v then
    out[i] = {v, 0}
  elseif since < b or since > v then
    out[i] = {v, 1, redis.call('HGETALL', h)}
  else
    local fields = redis.call('ZRANGEBYSCORE', z, '(' .. since, '+inf')
    local pairs_ = {}
    for j, f in ipairs(fields) do
      pairs_[2*j-1] = f
      pairs_[2*j] = redis.call('HGET', h, f) or ''
    end
    out[i] = {v, 2, pairs_}
  end
end
return out`;

/**
 * ARGV: unit count, then per unit: expected version, mode (0 fields, 1 whole, 2 drop), field count,
 * field/value pairs ('' = deleted); then due count and workspaceId/score pairs ('' = none). KEYS: 3 per
 * unit, then `due`. Nothing is written unless every unit is still at the version its writer read.
 */
const COMMIT = `
local n = tonumber(ARGV[1])
local at = 2
local units = {}
for i = 1, n do
  local expected, mode, count = tonumber(ARGV[at]), tonumber(ARGV[at+1]), tonumber(ARGV[at+2])
  units[i] = {expected, mode, count, at + 3}
  at = at + 3 + 2 * count
  if tonumber(redis.call('HGET', KEYS[3*i-2], 'v') or '0') ~= expected then return {0, i} end
end
local versions = {1}
for i = 1, n do
  local m, h, z = KEYS[3*i-2], KEYS[3*i-1], KEYS[3*i]
  local expected, mode, count, first = units[i][1], units[i][2], units[i][3], units[i][4]
  local v = expected + 1
  if mode == 2 then
    redis.call('DEL', m, h, z)
    v = 0
  else
    if mode == 1 then
      redis.call('DEL', h, z)
      redis.call('HSET', m, 'b', v)
    end
    for j = 0, count - 1 do
      local f, value = ARGV[first + 2*j], ARGV[first + 2*j + 1]
      if value == '' then redis.call('HDEL', h, f) else redis.call('HSET', h, f, value) end
      redis.call('ZADD', z, v, f)
    end
    redis.call('HSET', m, 'v', v)
  end
  versions[i + 1] = v
end
local due = KEYS[3*n+1]
local dues = tonumber(ARGV[at])
for j = 1, dues do
  local id, score = ARGV[at + 2*j - 1], ARGV[at + 2*j]
  if score == '' then redis.call('ZREM', due, id) else redis.call('ZADD', due, score, id) end
end
return versions`;

/** KEYS: the unit's meta, due. ARGV: version read, workspaceId, score ('' = none). Only if nobody wrote the unit since. */
const SET_DUE = `
if tonumber(redis.call('HGET', KEYS[1], 'v') or '0') ~= tonumber(ARGV[1]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[2]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2]) end
return 1`;

/**
 * KEYS: journal, journal:seq[, the workspace's coverage set, the coverage index]. ARGV: entry JSON (an
 * object), capacity[, workspaceId, variant keys...]. The entry gets the next seq as its id; the variants its
 * answer showed join the workspace's set in the same step.
 */
const JOURNAL_ADD = `
local seq = redis.call('INCR', KEYS[2])
if tonumber(ARGV[2]) > 0 then
  redis.call('LPUSH', KEYS[1], '{"seq":' .. seq .. ',' .. string.sub(ARGV[1], 2))
  redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
end
if #KEYS > 2 and #ARGV > 3 then
  redis.call('SADD', KEYS[3], unpack(ARGV, 4))
  redis.call('SADD', KEYS[4], ARGV[3])
end
return seq`;

/** KEYS: the coverage index. Forgets every workspace's variants. */
const COVERAGE_CLEAR = `
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('DEL', KEYS[1] .. ':' .. id) end
redis.call('DEL', KEYS[1])
return 1`;

/** KEYS: journal. ARGV: workspaceId. Keeps the others' entries, in order. */
const JOURNAL_DROP = `
local kept = {}
for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if cjson.decode(item).workspaceId ~= ARGV[1] then kept[#kept + 1] = item end
end
redis.call('DEL', KEYS[1])
for i = 1, #kept do redis.call('RPUSH', KEYS[1], kept[i]) end
return #kept`;

export interface UnitWrite {
  unit: string;
  expected: number;
  mode: "fields" | "whole" | "drop";
  /** field -> JSON text, '' when deleted. */
  values: [string, string][];
}

export type SyncResult = { version: number } & (
  | { kind: "same" }
  | { kind: "whole" | "changes"; values: [string, string][] }
);

interface Scripts {
  mockSync(keys: number, ...args: (string | number)[]): Promise<unknown[]>;
  mockCommit(keys: number, ...args: (string | number)[]): Promise<number[]>;
  mockJournalAdd(keys: number, ...args: (string | number)[]): Promise<number>;
  mockJournalDrop(keys: number, ...args: (string | number)[]): Promise<number>;
  mockCoverageClear(keys: number, ...args: (string | number)[]): Promise<number>;
  mockSetDue(keys: number, ...args: (string | number)[]): Promise<number>;
}

const unitKeys = (unit: string) => [`${PREFIX}${unit}:m`, `${PREFIX}${unit}:h`, `${PREFIX}${unit}:z`];

/**
 * ioredis is an optional peer of the kit (like express): loaded only when a store is asked for, so an
 * install that never uses --store does not carry it.
 */
async function loadClient(): Promise<typeof Redis> {
  try {
    return (await import("ioredis")).Redis;
  } catch {
    throw new Error("--store needs the ioredis package: npm install ioredis");
  }
}

export class RedisLink {
  private readonly redis: Redis & Scripts;
  /** Round trips made, for `npm run bench` (Redis round trips per operation). */
  roundTrips = 0;
  private lastError = "";
  private connected = false;

  /** A link connected to `url`, or a rejection with one line saying why (the mock then exits 2). */
  static async open(url: string, log: (line: string) => void): Promise<RedisLink> {
    const link = new RedisLink(url, log, await loadClient());
    await link.connect();
    return link;
  }

  private constructor(
    readonly url: string,
    private readonly log: (line: string) => void,
    Client: typeof Redis,
  ) {
    this.redis = new Client(url, {
      lazyConnect: true,
      // While Redis is away a command fails at once (a 500 for its request) instead of waiting in a queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 2_000,
      connectTimeout: 3_000,
      retryStrategy: (times) => Math.min(50 * times, 1_000),
    }) as Redis & Scripts;
    this.redis.defineCommand("mockSync", { lua: SYNC });
    this.redis.defineCommand("mockCommit", { lua: COMMIT });
    this.redis.defineCommand("mockJournalAdd", { lua: JOURNAL_ADD });
    this.redis.defineCommand("mockJournalDrop", { lua: JOURNAL_DROP });
    this.redis.defineCommand("mockCoverageClear", { lua: COVERAGE_CLEAR });
    this.redis.defineCommand("mockSetDue", { lua: SET_DUE });
    this.redis.on("error", (error: Error) => {
      // One line per outage, not one per reconnection attempt; none before the first connection (connect says why).
      if (error.message !== this.lastError && this.connected)
        this.log(`shared store ${this.where()}: ${error.message}`);
      this.lastError = error.message;
    });
    this.redis.on("ready", () => {
      if (this.lastError) this.log(`shared store ${this.where()}: connected again`);
      this.lastError = "";
    });
  }

  private async connect(): Promise<void> {
    try {
      await this.redis.connect();
      await this.redis.ping();
      this.connected = true;
    } catch (error) {
      this.redis.disconnect();
      // The socket's own error (ECONNREFUSED) says more than the client's "Connection is closed".
      throw new Error(
        `Cannot reach the shared store at ${this.where()}: ${this.lastError || (error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** The URL without a password. */
  where(): string {
    try {
      const url = new URL(this.url);
      url.password = "";
      return url.href.replace(/\/$/, "");
    } catch {
      return "redis";
    }
  }

  async sync(units: { unit: string; since: number }[]): Promise<SyncResult[]> {
    if (units.length === 0) return [];
    const keys = units.flatMap((u) => unitKeys(u.unit));
    const raw = await this.call(() => this.redis.mockSync(keys.length, ...keys, ...units.map((u) => u.since)));
    return raw.map((entry) => {
      const [version, kind, flat] = entry as [number, number, string[] | undefined];
      if (kind === 0) return { version, kind: "same" };
      const values: [string, string][] = [];
      for (let i = 0; i < (flat?.length ?? 0); i += 2) values.push([flat![i], flat![i + 1]]);
      return { version, kind: kind === 1 ? "whole" : "changes", values };
    });
  }

  /** The new version of each unit, or undefined when one had moved on (nothing was written). */
  async commit(writes: UnitWrite[], due: [string, number | undefined][]): Promise<number[] | undefined> {
    const keys = [...writes.flatMap((w) => unitKeys(w.unit)), `${PREFIX}due`];
    const args: (string | number)[] = [writes.length];
    for (const w of writes) {
      args.push(w.expected, w.mode === "fields" ? 0 : w.mode === "whole" ? 1 : 2, w.values.length);
      for (const [field, value] of w.values) args.push(field, value);
    }
    args.push(due.length);
    for (const [id, score] of due) args.push(id, score === undefined ? "" : score);
    const result = await this.call(() => this.redis.mockCommit(keys.length, ...keys, ...args));
    return result[0] === 1 ? result.slice(1) : undefined;
  }

  /** Workspaces whose earliest task is due by `wallMs`. */
  async dueBy(wallMs: number): Promise<string[]> {
    return this.call(() => this.redis.zrangebyscore(`${PREFIX}due`, "-inf", wallMs, "LIMIT", 0, 50));
  }

  /** Corrects a workspace's due time, unless the workspace was written since `version` (that write set it). */
  async setDue(workspaceId: string, version: number, wallMs: number | undefined): Promise<void> {
    const [meta] = unitKeys(`w:${workspaceId}`);
    await this.call(() => this.redis.mockSetDue(2, meta, `${PREFIX}due`, version, workspaceId, wallMs ?? ""));
  }

  /** `variants`: keys the answer showed, for the workspace's coverage set (one round trip either way). */
  async journalAdd(
    entry: object,
    capacity: number,
    variants?: { workspaceId: string; keys: readonly string[] },
  ): Promise<number> {
    const journal = [`${PREFIX}journal`, `${PREFIX}journal:seq`];
    return this.call(() =>
      variants && variants.keys.length > 0
        ? this.redis.mockJournalAdd(
            4,
            ...journal,
            `${COVERAGE}:${variants.workspaceId}`,
            COVERAGE,
            JSON.stringify(entry),
            capacity,
            variants.workspaceId,
            ...variants.keys,
          )
        : this.redis.mockJournalAdd(2, ...journal, JSON.stringify(entry), capacity),
    );
  }

  async coverageAdd(workspaceId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.journalAdd({}, 0, { workspaceId, keys });
  }

  async coverageOf(workspaceId: string): Promise<string[]> {
    return this.call(() => this.redis.smembers(`${COVERAGE}:${workspaceId}`));
  }

  async journalAll(): Promise<string[]> {
    return this.call(() => this.redis.lrange(`${PREFIX}journal`, 0, -1));
  }

  /** The journal's entries, and the coverage the same traffic built: every workspace's, or one's. */
  async journalClear(workspaceId?: string): Promise<void> {
    await this.call(() =>
      workspaceId === undefined
        ? this.redis.del(`${PREFIX}journal`)
        : this.redis.mockJournalDrop(1, `${PREFIX}journal`, workspaceId),
    );
    await this.call<unknown>(() =>
      workspaceId === undefined
        ? this.redis.mockCoverageClear(1, COVERAGE)
        : this.redis.multi().del(`${COVERAGE}:${workspaceId}`).srem(COVERAGE, workspaceId).exec(),
    );
  }

  /** Every command goes through here: counted, and a failure becomes the 500 its request answers. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    this.roundTrips++;
    try {
      return await command();
    } catch (error) {
      throw new ApiError(500, `The shared store (${this.where()}) is unavailable: ${(error as Error).message}`);
    }
  }
}
