/**
 * The Redis store on its own (store/redis/redis-store.ts), two of them on one real redis-server as two
 * processes would be: what one writes the other reads, a conflicting write is undone and made again,
 * and what it queued learns of both. Here rather than beside the unit: it starts a redis-server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Clock } from "../../core/clock.js";
import { FaultRules } from "../../core/faults.js";
import { RedisLink } from "../../store/redis/redis.js";
import { RedisStore } from "../../store/redis/redis-store.js";
import type { Workspace } from "../../store/workspace.js";
import { startRedis, type RedisServer } from "../redis.js";

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
async function process(): Promise<{ store: RedisStore; faults: FaultRules }> {
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
  return { store, faults };
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
