/**
 * A Redis in this process for the store's unit tests (which start no server): the link's scripts as
 * their comments in scripts.ts state them, over plain maps, one atomic step per call as in Redis. Every
 * call first awaits `gate`, so a test decides when each call reaches "Redis": to open the window between
 * two steps of a commit on purpose, or to let fast-check's scheduler order the calls of two processes.
 * The real scripts run against a real redis-server in mock-server/test/shared-store/redis-store.test.ts.
 */
import { Clock } from "../../../core/clock.js";
import { FaultRules } from "../../../core/faults.js";
import type { Workspace } from "../../workspace.js";
import { RedisLink, type LinkClient } from "../redis.js";
import { RedisStore } from "../redis-store.js";
import type { ScriptName } from "../scripts.js";

type Hash = Map<string, string>;
/** A sorted set: member -> score. */
type ZSet = Map<string, number>;

export interface FakeRedis {
  /** The link a store uses, as if connected to this Redis. */
  link(): RedisLink;
  /** Awaited before each call is applied; replace it to hold calls back. */
  gate: (command: ScriptName | string, args: (string | number)[]) => Promise<void>;
  hashes: Map<string, Hash>;
  zsets: Map<string, ZSet>;
  /** Redis's clock (TIME), in ms. */
  now: number;
}

export function fakeRedis(): FakeRedis {
  const hashes = new Map<string, Hash>();
  const zsets = new Map<string, ZSet>();
  const hash = (key: string) => hashes.get(key) ?? hashes.set(key, new Map()).get(key)!;
  const zset = (key: string) => zsets.get(key) ?? zsets.set(key, new Map()).get(key)!;
  const num = (text: string | undefined) => Number(text ?? "0");

  const scripts: Record<string, (keys: string[], argv: (string | number)[]) => unknown> = {
    mockSync([meta, values, versions], [since]) {
      const m = hash(meta);
      const [v, b, g] = [num(m.get("v")), num(m.get("b")), num(m.get("g"))];
      const from = Number(since);
      if (from === v) return [v, 0, [], g];
      if (from < b || from > v) return [v, 1, [...hash(values)].flat(), g];
      const flat: string[] = [];
      for (const [field, version] of zset(versions))
        if (version > from) flat.push(field, hash(values).get(field) ?? "");
      return [v, 2, flat, g];
    },
    mockCommit([meta, values, versions, coverage], [expected, mode, gen, deadline, ...pairs]) {
      const m = hash(meta);
      const [cur, g] = [num(m.get("v")), num(m.get("g"))];
      const tombstone = m.has("d") && Number(mode) === 0;
      if (Number(expected) >= 0 && (cur !== Number(expected) || tombstone)) return [0, cur];
      if (Number(gen) > 0 && g >= Number(gen)) return [2, cur];
      if (Number(deadline) > 0 && state.now > Number(deadline)) return [3, cur];
      const v = cur + 1;
      if (Number(mode) === 2) {
        for (const key of [meta, values, coverage]) hashes.delete(key);
        zsets.delete(versions);
        hashes.set(
          meta,
          new Map([
            ["v", String(v)],
            ["b", String(v)],
            ["g", String(gen)],
            ["d", "1"],
          ]),
        );
        return [1, 0];
      }
      if (Number(mode) === 1) {
        hashes.delete(values);
        zsets.delete(versions);
        m.set("b", String(v));
        m.delete("d");
        if (Number(gen) > 0) m.set("g", String(gen));
      }
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        const [field, value] = [String(pairs[i]), String(pairs[i + 1])];
        if (value === "") hash(values).delete(field);
        else hash(values).set(field, value);
        zset(versions).set(field, v);
      }
      m.set("v", String(v));
      return [1, v];
    },
    mockDueHint([index], argv) {
      for (let i = 0; i + 2 < argv.length; i += 3) {
        const [id, score] = [String(argv[i]), Number(argv[i + 1])];
        const current = zset(index).get(id);
        if (current === undefined || score < current) zset(index).set(id, score);
      }
      return state.now;
    },
    mockDueCorrect([index], [id, score]) {
      if (score === "") zset(index).delete(String(id));
      else zset(index).set(String(id), Number(score));
      return 1;
    },
    mockDueForget([index], ids) {
      for (const id of ids) zset(index).delete(String(id));
      return ids.length;
    },
    mockJournalAdd: () => 1,
    mockJournalDrop: () => 0,
  };
  const KEYS: Record<string, number> = {
    mockSync: 3,
    mockCommit: 4,
    mockDueHint: 2,
    mockDueCorrect: 2,
    mockDueForget: 2,
    mockJournalAdd: 2,
    mockJournalDrop: 1,
  };

  const state: FakeRedis = {
    hashes,
    zsets,
    now: 1_000_000,
    gate: async () => undefined,
    link: () => RedisLink.over(client as unknown as LinkClient),
  };
  const client: Record<string, (...args: (string | number)[]) => Promise<unknown>> = {};
  for (const [name, run] of Object.entries(scripts))
    client[name] = async (...args) => {
      await state.gate(name, args);
      const keys = args.slice(0, KEYS[name]).map(String);
      return run(keys, args.slice(KEYS[name]));
    };
  client.zrangebyscore = async (key, _min, max) => {
    await state.gate("zrangebyscore", [key]);
    return [...zset(String(key))].filter(([, score]) => score <= Number(max)).map(([id]) => id);
  };
  client.smembers = async () => [];
  client.sadd = async () => 1;
  client.lrange = async () => [];
  client.del = async (...keys) => {
    for (const key of keys) hashes.delete(String(key));
    return keys.length;
  };
  return state;
}

/** Lets `count` pending event-loop turns pass (the store's awaits), without a timer. */
export async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The default workspace every test store opens with. */
export const DEFAULT = { workspaceId: "default", apiKey: "key-default", seed: 1, empty: false, readOnly: false };

/**
 * A RedisStore as one process has it, on `redis`: a virtual clock, each workspace seeded with one agent
 * named after it, and tasks run by `runDue` (none by default).
 */
export function storeOn(redis: FakeRedis): { store: RedisStore; faults: FaultRules } {
  const faults = new FaultRules(new Map([["listCalls", { operationId: "listCalls" }]]) as never, () => true);
  const store = new RedisStore(redis.link(), {
    clock: new Clock({ mode: "virtual" }),
    seed: (w) => void w.collections.agents.create({ agentId: `agent-of-${w.workspaceId}` } as never),
    added: () => undefined,
    runDue: async () => undefined,
    faults,
    sha256: (text) => new TextEncoder().encode(text.padEnd(32, "-")),
  });
  return { store, faults };
}

/** `count` processes on `redis`, the first seeding it, each with the default workspace read. */
export async function processesOn(redis: FakeRedis, count: number) {
  const all = [];
  for (let i = 0; i < count; i++) {
    const p = storeOn(redis);
    await p.store.open(() => p.store.add(DEFAULT));
    await p.store.authenticate(DEFAULT.apiKey);
    all.push(p);
  }
  return all;
}

export const agentIds = (w: Workspace) => w.collections.agents.all().map((a) => (a as { agentId: string }).agentId);
