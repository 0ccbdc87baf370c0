/**
 * The Redis store on its own (store/redis/redis-store.ts), two of them on one real redis-server as two
 * processes would be: what one writes the other reads, a conflicting write is undone and made again,
 * and what it queued learns of both; the registry read beside the workspace, so a read costs one round
 * trip; the journal written off the answer's path; the due index's hints and corrections.
 * Here rather than beside the unit: it starts a redis-server.
 */
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Clock } from "../../core/clock.js";
import { FaultRules } from "../../core/faults.js";
import { HINT_LEASE_MS } from "../../store/redis/due.js";
import { RedisJournal } from "../../store/redis/journal.js";
import { DUE_INDEX } from "../../store/redis/keys.js";
import { RedisLink } from "../../store/redis/redis.js";
import { RedisStore } from "../../store/redis/redis-store.js";
import type { Workspace } from "../../store/workspace.js";
import { startRedis, type RedisServer } from "../redis.js";
import { startRedisCluster } from "../redis-cluster.js";

let redis: RedisServer;
const links: RedisLink[] = [];
const stores: RedisStore[] = [];

beforeEach(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const link of links.splice(0)) await link.close();
  await redis.stop();
});

/** A store as one process has it, with a seed of one agent per workspace. */
async function process(): Promise<{ store: RedisStore; faults: FaultRules; link: RedisLink }> {
  const link = await RedisLink.open(redis.url, () => undefined);
  links.push(link);
  const faults = new FaultRules(new Map([["listCalls", { operationId: "listCalls" }]]) as never, () => true);
  const store = new RedisStore(link, {
    clock: new Clock({ mode: "virtual" }),
    seed: (w) => void w.collections.agents.create({ agentId: `agent-of-${w.workspaceId}` } as never),
    added: () => undefined,
    runDue: async () => undefined,
    faults,
  });
  stores.push(store);
  return { store, faults, link };
}

/** Two processes on one store, seeded and joined, each with the default workspace read once. */
async function twoProcesses() {
  const a = await process();
  const b = await process();
  await a.store.open(() => a.store.add(DEFAULT));
  await b.store.open(() => b.store.add(DEFAULT));
  await a.store.authenticate("key-default");
  await b.store.authenticate("key-default");
  return { a, b };
}

/** The units each of the link's reads asked for, from now on. */
function unitsRead(link: RedisLink): string[][] {
  const reads: string[][] = [];
  const sync = link.sync.bind(link);
  vi.spyOn(link, "sync").mockImplementation((units) => {
    reads.push(units.map((u) => u.unit));
    return sync(units);
  });
  return reads;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!check()) throw new Error(`never: ${what}`);
}

const DEFAULT = { workspaceId: "default", apiKey: "key-default", seed: 1, empty: false, readOnly: false };
const agentIds = (w: Workspace) => w.collections.agents.all().map((a) => (a as { agentId: string }).agentId);

describe("RedisStore", () => {
  it("is seeded by the first process and joined by the next, which reads the seeded workspace", async () => {
    const a = await process();
    const b = await process();
    expect(await a.store.open(() => a.store.add(DEFAULT))).toBe("seeded");
    expect(await b.store.open(() => b.store.add(DEFAULT))).toBe("joined");
    const copy = await b.store.authenticate("key-default");
    expect(copy?.workspaceId).toBe("default");
    expect(agentIds(copy!)).toEqual(["agent-of-default"]);
  });

  it("shows a process every write the other acknowledged, and moves the generation of what it applied", async () => {
    const a = await process();
    const b = await process();
    await a.store.open(() => a.store.add(DEFAULT));
    await b.store.open(() => b.store.add(DEFAULT));
    const wa = (await a.store.authenticate("key-default"))!;
    const wb = (await b.store.authenticate("key-default"))!;
    const generation = b.store.generationOf(wb);
    await a.store.transact(wa, () => wa.collections.agents.create({ agentId: "from-a" } as never));
    expect(agentIds(wb)).toEqual(["agent-of-default"]);
    await b.store.authenticate("key-default");
    expect(agentIds(wb)).toEqual(["agent-of-default", "from-a"]);
    expect(b.store.generationOf(wb)).toBeGreaterThan(generation);
  });

  it("undoes a write made on a stale copy, runs the work again on the fresh one, and tells what it queued", async () => {
    const a = await process();
    const b = await process();
    await a.store.open(() => a.store.add(DEFAULT));
    await b.store.open(() => b.store.add(DEFAULT));
    const wa = (await a.store.authenticate("key-default"))!;
    const wb = (await b.store.authenticate("key-default"))!;
    await a.store.transact(wa, () => wa.collections.agents.create({ agentId: "from-a" } as never));
    // b's copy is stale now: its write conflicts, is undone, and made again after reading a's.
    const told: boolean[] = [];
    let runs = 0;
    const seenOnRun: string[][] = [];
    await b.store.transact(wb, () => {
      runs++;
      seenOnRun.push(agentIds(wb));
      wb.collections.agents.create({ agentId: `from-b-${runs}` } as never);
      b.store.afterCommit(wb, (undone) => void told.push(undone));
    });
    expect(runs).toBe(2);
    expect(seenOnRun).toEqual([["agent-of-default"], ["agent-of-default", "from-a"]]);
    expect(told).toEqual([true, false]);
    expect(agentIds(wb)).toEqual(["agent-of-default", "from-a", "from-b-2"]);
    await a.store.authenticate("key-default");
    expect(agentIds(wa)).toEqual(["agent-of-default", "from-a", "from-b-2"]);
  });

  it("undoes every change of work that throws, and writes none of it", async () => {
    const a = await process();
    const b = await process();
    await a.store.open(() => a.store.add(DEFAULT));
    await b.store.open(() => b.store.add(DEFAULT));
    const wa = (await a.store.authenticate("key-default"))!;
    const before = wa.random.state;
    await expect(
      a.store.transact(wa, () => {
        wa.collections.agents.create({ agentId: "doomed" } as never);
        wa.random.next();
        throw new Error("handler failed");
      }),
    ).rejects.toThrow("handler failed");
    expect(agentIds(wa)).toEqual(["agent-of-default"]);
    expect(wa.random.state).toBe(before);
    const wb = (await b.store.authenticate("key-default"))!;
    expect(agentIds(wb)).toEqual(["agent-of-default"]);
  });

  it("shares the registry and the fault rules: a workspace created and a rule added through one are in the other", async () => {
    const a = await process();
    const b = await process();
    await a.store.open(() => a.store.add(DEFAULT));
    await b.store.open(() => b.store.add(DEFAULT));
    const created = await a.store.control(() => {
      a.faults.add({ kind: "reset", operationId: "listCalls" });
      return a.store.create({ seed: 9 }, a.store.get("default")!.random);
    });
    const copy = await b.store.authenticate(created.apiKey);
    expect(copy?.workspaceId).toBe(created.workspaceId);
    expect(agentIds(copy!)).toEqual([`agent-of-${created.workspaceId}`]);
    await b.store.catchUp();
    expect(b.faults.list().map((r) => r.faultId)).toEqual(["fault-1"]);
    // A reset through b reaches a's copy once a reads again.
    await b.store.control(() => b.store.resetOne(copy!));
    const again = (await a.store.authenticate(created.apiKey))!;
    expect(agentIds(again)).toEqual([`agent-of-${created.workspaceId}`]);
    await b.store.control(() => b.store.delete(copy!));
    expect(await a.store.authenticate(created.apiKey)).toBeUndefined();
  });
});

describe("the commit script's tombstone", () => {
  it("leaves a dropped workspace's generation behind: field writes and older generations are refused, a newer birth is not", async () => {
    const link = await RedisLink.open(redis.url, () => undefined);
    links.push(link);
    const unit = "w:gone";
    const [born] = await link.commit([{ unit, expected: -1, mode: "whole", values: [["clock", "1"]], gen: 3 }]);
    expect(born).toEqual({ kind: "written", version: 1 });
    const [dropped] = await link.commit([{ unit, expected: -1, mode: "drop", values: [], gen: 5 }]);
    expect(dropped).toEqual({ kind: "written", version: 0 });
    // A writer whose copy had read the tombstone still cannot write fields into it.
    const [read] = await link.sync([{ unit, since: 1 }]);
    expect(read).toMatchObject({ kind: "whole", values: [], gen: 5 });
    expect((await link.commit([{ unit, expected: read.version, mode: "fields", values: [["x", "1"]] }]))[0].kind).toBe(
      "conflict",
    );
    // A late repair for the generation before the drop is refused.
    expect((await link.commit([{ unit, expected: -1, mode: "whole", values: [["x", "1"]], gen: 4 }]))[0].kind).toBe(
      "superseded",
    );
    // A workspace of the same id born later is written, and takes field writes again.
    const [again] = await link.commit([{ unit, expected: -1, mode: "whole", values: [["x", "2"]], gen: 6 }]);
    expect(again.kind).toBe("written");
    const version = (again as { version: number }).version;
    expect((await link.commit([{ unit, expected: version, mode: "fields", values: [["x", "3"]] }]))[0].kind).toBe(
      "written",
    );
  });
});

describe("RedisStore's registry copy", () => {
  it("reads the registry beside the workspace: a read costs one round trip", async () => {
    const { b } = await twoProcesses();
    const reads = unitsRead(b.link);
    const before = b.link.roundTrips;
    const workspace = (await b.store.authenticate("key-default"))!;
    const agents = await b.store.transact(workspace, () => agentIds(workspace));
    expect(agents).toEqual(["agent-of-default"]);
    expect(b.link.roundTrips - before).toBe(1);
    expect(reads).toEqual([["m", "w:default"]]);
  });

  it("sees another process's registry write on its very next request, every time", async () => {
    const { a, b } = await twoProcesses();
    // A fault rule made through one process is there for the next request through the other, 50 times
    // over: no window where a copy lags (a Pub/Sub message can arrive after the request that follows).
    for (let i = 0; i < 50; i++) {
      await a.store.control(() => a.faults.add({ kind: "reset", operationId: "listCalls", times: 1 }));
      await b.store.authenticate("key-default");
      expect(b.faults.size, `round ${i}`).toBe(1);
      await b.store.control(() => b.faults.clear());
      await a.store.authenticate("key-default");
      expect(a.faults.size, `round ${i}`).toBe(0);
    }
  });

  it("finds a key its copy does not know, and a workspace deleted elsewhere", async () => {
    const { a, b } = await twoProcesses();
    const created = await a.store.control(() => a.store.create({ seed: 4 }, a.store.get("default")!.random));
    const found = await b.store.authenticate(created.apiKey);
    expect(found?.workspaceId).toBe(created.workspaceId);
    expect(agentIds(found!)).toEqual([`agent-of-${created.workspaceId}`]);
    await a.store.control(() => a.store.delete(a.store.get(created.workspaceId)!));
    expect(await b.store.authenticate(created.apiKey)).toBeUndefined();
  });
});

describe("RedisStore's multi-unit writes", () => {
  it("repairs a workspace the registry names for a generation it was not written for", async () => {
    const { a, b } = await twoProcesses();
    const created = await a.store.control(() => a.store.create({ seed: 5 }, a.store.get("default")!.random));
    // As if a's process died between the registry's commit and the workspace's write: its keys are gone.
    const admin = new Redis(redis.url);
    try {
      await admin.del(...["m", "h", "z"].map((k) => `apm:{w:${created.workspaceId}}:${k}`));
    } finally {
      admin.disconnect();
    }
    const copy = await b.store.authenticate(created.apiKey);
    expect(agentIds(copy!)).toEqual([`agent-of-${created.workspaceId}`]);
    // Written back: a third process reads it whole.
    const c = await process();
    await c.store.open(() => c.store.add(DEFAULT));
    const third = await c.store.authenticate(created.apiKey);
    expect(agentIds(third!)).toEqual([`agent-of-${created.workspaceId}`]);
  });
});

describe("RedisJournal", () => {
  const entry = (i: number) => ({
    atMs: i,
    method: "GET",
    url: `/v1/agents?i=${i}`,
    operationId: "listAgents",
    workspaceId: "default",
    status: 200,
    durationMs: 1,
    faultId: null,
  });

  it("sends without waiting, at most so many unconfirmed, and flushes before it is read", async () => {
    const link = await RedisLink.open(redis.url, () => undefined);
    links.push(link);
    const journal = new RedisJournal(link, 100, { maxInFlight: 2 });
    const before = link.roundTrips;
    const seqs = [journal.add(entry(1)), journal.add(entry(2))];
    expect(journal.sending()).toBeUndefined();
    expect(link.journalPending).toBe(2);
    // No room: this one waits, and so would its answer.
    seqs.push(journal.add(entry(3)));
    const waiting = journal.sending();
    expect(waiting).toBeInstanceOf(Promise);
    expect(link.journalPending).toBe(3);
    await waiting;
    for (let i = 4; i <= 10; i++) seqs.push(journal.add(entry(i)));
    expect(link.roundTrips).toBe(before);
    await journal.flush();
    expect(link.journalPending).toBe(0);
    expect(await Promise.all(seqs)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await journal.list()).map((e) => e.path)).toHaveLength(10);
  });

  it("keeps what it could not send while the store is away and sends it when it is back", async () => {
    const link = await RedisLink.open(redis.url, () => undefined);
    links.push(link);
    const journal = new RedisJournal(link, 100, { retryMs: 50 });
    await redis.stop();
    const seq = journal.add(entry(1));
    journal.add(entry(2));
    await until(() => link.journalPending === 2 && journal.sending() === undefined, "both kept");
    await expect(journal.flush()).rejects.toThrow(/unavailable/);
    await redis.restart();
    await until(() => link.journalPending === 0, "both sent again");
    await journal.flush();
    // Its seq was not known when its answer went: the entry is there all the same.
    expect(await seq).toBeUndefined();
    expect(await journal.count()).toBe(2);
  });
});

describe("the due index", () => {
  it("keeps a hint from corrections read before it, until its lease runs out", async () => {
    const link = await RedisLink.open(redis.url, () => undefined);
    links.push(link);
    const admin = new Redis(redis.url);
    try {
      const score = async () => Number(await admin.zscore(DUE_INDEX, "ws-1"));
      await link.dueHint([{ workspaceId: "ws-1", wallMs: 5_000, version: 4 }]);
      // The earlier of two hints stays.
      await link.dueHint([{ workspaceId: "ws-1", wallMs: 9_000, version: 4 }]);
      expect(await score()).toBe(5_000);
      // Read before the hinted commit: refused; read at it or after: applied.
      expect(await link.dueCorrect("ws-1", 3, undefined, HINT_LEASE_MS)).toBe(false);
      expect(await score()).toBe(5_000);
      expect(await link.dueCorrect("ws-1", 4, 7_000, HINT_LEASE_MS)).toBe(true);
      expect(await score()).toBe(7_000);
      // A correction older than the last applied one cannot undo it.
      expect(await link.dueCorrect("ws-1", 3, undefined, HINT_LEASE_MS)).toBe(false);
      // A hint whose commit never came no longer holds back, after its lease, a correction read at the
      // version that commit expected; an older read stays refused.
      await link.dueHint([{ workspaceId: "ws-1", wallMs: 1_000, version: 5 }]);
      expect(await link.dueCorrect("ws-1", 4, undefined, HINT_LEASE_MS)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await link.dueCorrect("ws-1", 3, undefined, 10)).toBe(false);
      expect(await link.dueCorrect("ws-1", 4, undefined, 10)).toBe(true);
      expect(await admin.zscore(DUE_INDEX, "ws-1")).toBeNull();
    } finally {
      admin.disconnect();
    }
  });

  it("refuses a commit past its hint's deadline", async () => {
    const link = await RedisLink.open(redis.url, () => undefined);
    links.push(link);
    const now = await link.dueHint([{ workspaceId: "ws-1", wallMs: 1, version: 1 }]);
    const write = {
      unit: "w:ws-1",
      expected: 0,
      mode: "fields" as const,
      values: [["clock", "{}"]] as [string, string][],
    };
    expect(await link.commit([{ ...write, deadline: now - 1 }])).toEqual([{ kind: "late" }]);
    expect(await link.commit([{ ...write, deadline: now + 10_000 }])).toEqual([{ kind: "written", version: 1 }]);
  });
});

describe("RedisStore on a Redis Cluster", () => {
  it("runs the same store: every call on one slot, a read in one round trip", {
    timeout: 60_000,
  }, async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    try {
      const open = async (url: string) => {
        const link = await RedisLink.open(url, () => undefined);
        links.push(link);
        return link;
      };
      // One seed that says cluster_enabled:1 is a Cluster too; a database is refused.
      const [first] = cluster.nodes;
      expect((await open(`redis://127.0.0.1:${first.port}`)).kind).toBe("redis-cluster");
      for (const url of [`${cluster.url}/2`, `redis://127.0.0.1:${first.port}/2`])
        await expect(RedisLink.open(url, () => undefined)).rejects.toThrow(
          /a Redis Cluster has no databases; drop \/2/,
        );
      const made = async () => {
        const link = await open(cluster.url);
        const faults = new FaultRules(new Map() as never, () => true);
        const store = new RedisStore(link, {
          clock: new Clock({ mode: "virtual" }),
          seed: (w) => void w.collections.agents.create({ agentId: `agent-of-${w.workspaceId}` } as never),
          added: () => undefined,
          runDue: async () => undefined,
          faults,
        });
        stores.push(store);
        return { store, link };
      };
      const a = await made();
      const b = await made();
      expect(a.store.kind).toBe("redis-cluster");
      expect(await a.store.open(() => a.store.add(DEFAULT))).toBe("seeded");
      expect(await b.store.open(() => b.store.add(DEFAULT))).toBe("joined");
      const created = await a.store.control(() => a.store.create({ seed: 2 }, a.store.get("default")!.random));
      const wa = (await a.store.authenticate(created.apiKey))!;
      await a.store.transact(wa, () => wa.collections.agents.create({ agentId: "from-a" } as never));
      const wb = (await b.store.authenticate(created.apiKey))!;
      expect(agentIds(wb)).toEqual([`agent-of-${created.workspaceId}`, "from-a"]);
      const before = b.link.roundTrips;
      await b.store.authenticate(created.apiKey);
      expect(b.link.roundTrips - before).toBe(1);
      const journal = new RedisJournal(b.link, 10);
      journal.add({ ...DEFAULT_ENTRY, variants: ["status:404"] });
      expect(await journal.count()).toBe(1);
      expect([...(await journal.variantsSeen("default"))]).toEqual(["status:404"]);
      await journal.clear();
      expect(await journal.count()).toBe(0);
      await a.store.control(() => a.store.delete(wa));
      expect(await b.store.authenticate(created.apiKey)).toBeUndefined();
    } finally {
      for (const store of stores.splice(0)) await store.close();
      for (const link of links.splice(0)) await link.close();
      await cluster.stop();
    }
  });
});

const DEFAULT_ENTRY = {
  atMs: 1,
  method: "GET",
  url: "/v1/agents",
  operationId: "listAgents",
  workspaceId: "default",
  status: 200,
  durationMs: 1,
  faultId: null,
};
