/**
 * Repair (repair.ts): a workspace the registry names for a generation its own keys were not written
 * for, because its writer stopped between the registry's commit and its own, is rewritten by the next
 * reader; several readers write it once; a deleted workspace is never brought back.
 */
import { describe, expect, it } from "vitest";
import { agentIds, fakeRedis, type FakeRedis, processesOn } from "./test/fake-redis.js";

/** Every commit of a unit whose name starts with `prefix` never reaches Redis: its writer was killed. */
function killWritesOf(redis: FakeRedis, prefix: string): void {
  const previous = redis.gate;
  redis.gate = (command, args) =>
    command === "mockCommit" && String(args[0]).startsWith(`apm:{${prefix}`)
      ? new Promise<void>(() => undefined)
      : previous(command, args);
}

/** A workspace whose creation through `a` stopped after the registry's commit: its id, key and generation. */
async function bornBehind(redis: FakeRedis, a: Awaited<ReturnType<typeof processesOn>>[number]) {
  const gate = redis.gate;
  killWritesOf(redis, "w:ws-");
  void a.store.control(() => a.store.create({ seed: 7 }, a.store.get("default")!.random));
  // Until the registry's commit is in: then only the workspace's own write is left, and it never lands.
  const named = () => [...(redis.hashes.get("apm:{m}:h")?.keys() ?? [])].find((f) => f.startsWith("w:ws-"));
  while (!named()) await new Promise((resolve) => setImmediate(resolve));
  redis.gate = gate;
  const workspaceId = named()!.slice(2);
  const { apiKey } = a.store.get(workspaceId)!;
  const gen = JSON.parse(redis.hashes.get("apm:{m}:h")!.get(`w:${workspaceId}`)!).gen as number;
  return { workspaceId, apiKey, gen };
}

describe("repair", () => {
  it("rewrites a workspace left behind its generation, seeded as its writer would have, for that generation", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    const { workspaceId, apiKey, gen } = await bornBehind(redis, a);
    expect(redis.hashes.get(`apm:{w:${workspaceId}}:m`)?.get("g")).toBeUndefined();
    const copy = await b.store.authenticate(apiKey);
    expect(copy?.workspaceId).toBe(workspaceId);
    expect(agentIds(copy!)).toEqual([`agent-of-${workspaceId}`]);
    expect(Number(redis.hashes.get(`apm:{w:${workspaceId}}:m`)!.get("g"))).toBe(gen);
  });

  it("is written once when several readers find it behind at once; the others read that write", async () => {
    const redis = fakeRedis();
    const [a, b, c] = await processesOn(redis, 3);
    const { workspaceId, apiKey } = await bornBehind(redis, a);
    const [fromB, fromC] = await Promise.all([b.store.authenticate(apiKey), c.store.authenticate(apiKey)]);
    expect(agentIds(fromB!)).toEqual([`agent-of-${workspaceId}`]);
    expect(agentIds(fromC!)).toEqual([`agent-of-${workspaceId}`]);
    // One whole write: the unit's first version.
    expect(redis.hashes.get(`apm:{w:${workspaceId}}:m`)!.get("v")).toBe("1");
  });

  it("does not bring back a workspace deleted after a reader last read the registry", async () => {
    const redis = fakeRedis();
    const [a, b, c] = await processesOn(redis, 3);
    const { workspaceId } = await bornBehind(redis, a);
    // b learns of the workspace (and its generation) from the registry, without reading the workspace itself.
    await b.store.authenticate("key-default");
    const stale = b.store.get(workspaceId)!;
    // c deletes it; b has not read the registry since.
    await c.store.control(() => c.store.delete(c.store.get(workspaceId)!));
    // Work b runs on its copy (a task that fell due) reads the unit, finds it gone, and writes nothing.
    await expect(
      b.store.transactBackground(stale, () => stale.collections.agents.create({ agentId: "zombie" } as never)),
    ).rejects.toMatchObject({ status: 401 });
    expect(redis.hashes.get(`apm:{w:${workspaceId}}:h`)?.size ?? 0).toBe(0);
    expect(redis.hashes.get(`apm:{w:${workspaceId}}:m`)?.get("d")).toBe("1");
  });
});
