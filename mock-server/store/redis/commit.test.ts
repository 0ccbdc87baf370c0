/**
 * The commit protocol (commit.ts) through the store, on a Redis in this process whose calls the test
 * holds back: the window between the registry's commit and a new workspace's own write is opened on
 * purpose, and what else a process does meanwhile must neither fail nor see the workspace half-written.
 */
import { describe, expect, it } from "vitest";
import { agentIds, DEFAULT, fakeRedis, type FakeRedis, processesOn, turns } from "./test/fake-redis.js";

/**
 * Holds back the next commit of a unit whose name starts with `prefix` (other calls go on, through any
 * hold set before); `open()` lets it through.
 */
function holdCommit(redis: FakeRedis, prefix: string): { reached: Promise<void>; open: () => void } {
  let open!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reachedP = new Promise<void>((resolve) => (reached = resolve));
  let armed = true;
  const previous = redis.gate;
  redis.gate = async (command, args) => {
    if (armed && command === "mockCommit" && String(args[0]).startsWith(`apm:{${prefix}`)) {
      armed = false;
      reached();
      await gate;
    } else await previous(command, args);
  };
  return { reached: reachedP, open };
}

describe("commits", () => {
  it("holds a workspace it makes until its write is in: a task on it waits, then runs on it whole", async () => {
    const redis = fakeRedis();
    const [a] = await processesOn(redis, 1);
    const step4 = holdCommit(redis, "w:ws-");
    const created = a.store.control(() => a.store.create({ seed: 5 }, a.store.get("default")!.random));
    await step4.reached;
    // The registry names it now, in this process; its own write is not in.
    const born = a.store.list().find((w) => w.workspaceId.startsWith("ws-"))!;
    let ranOn: string[] | undefined;
    const task = a.store.transactBackground(born, () => void (ranOn = agentIds(born)));
    await turns();
    expect(ranOn).toBeUndefined();
    step4.open();
    const workspace = await created;
    await task;
    expect(ranOn).toEqual([`agent-of-${workspace.workspaceId}`]);
  });

  it("keeps other work out of a repair under way: a task on another workspace meanwhile writes only its own", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    // a's creation stops after the registry's commit, as if a was killed there: its workspace is behind.
    const step4 = holdCommit(redis, "w:ws-");
    const created = a.store.control(() => a.store.create({ seed: 5 }, a.store.get("default")!.random));
    await step4.reached;
    const { apiKey, workspaceId } = a.store.list().find((w) => w.workspaceId.startsWith("ws-"))!;
    // b reads it, finds it behind and repairs it; its repair's write is held too.
    const repairWrite = holdCommit(redis, "w:ws-");
    const found = b.store.authenticate(apiKey);
    await repairWrite.reached;
    // Before the fix this write took the half-repaired workspace into its own and failed
    // ("a workspace was replaced outside the control plane", or a TypeError in writeOf).
    const workspace = b.store.get(DEFAULT.workspaceId)!;
    await b.store.transactBackground(workspace, () =>
      workspace.collections.agents.create({ agentId: "task" } as never),
    );
    repairWrite.open();
    expect(agentIds((await found)!)).toEqual([`agent-of-${workspaceId}`]);
    // a's own write comes late: the repair's is there for the generation, and a reads it.
    step4.open();
    await created;
    expect(agentIds((await a.store.authenticate(apiKey))!)).toEqual([`agent-of-${workspaceId}`]);
    expect(agentIds((await a.store.authenticate(DEFAULT.apiKey))!)).toContain("task");
  });

  it("creates workspaces through two processes while each runs tasks: every creation answers, once", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const [creator, other] = i % 2 === 0 ? [a, b] : [b, a];
      const busy = other.store
        .list()
        .map((w) =>
          other.store.transactBackground(w, () => w.collections.agents.create({ agentId: `t${i}` } as never)),
        );
      const made = await creator.store.control(() =>
        creator.store.create({ seed: i }, creator.store.get("default")!.random),
      );
      await Promise.all(busy);
      ids.push(made.workspaceId);
    }
    expect(new Set(ids).size).toBe(20);
    await a.store.catchUp();
    await b.store.catchUp();
    for (const id of ids) {
      expect(agentIds(a.store.get(id)!)[0]).toBe(`agent-of-${id}`);
      expect(agentIds(b.store.get(id)!)[0]).toBe(`agent-of-${id}`);
    }
  });

  it("undoes the whole attempt when the registry moved, and runs it again on the registry read anew", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    // a's registry commit waits until b has written the registry: a's version check then fails.
    const registryWrite = holdCommit(redis, "m}");
    let runs = 0;
    const making = a.store.control(() => {
      runs++;
      return a.store.create({ seed: 3 }, a.store.get("default")!.random);
    });
    await registryWrite.reached;
    await b.store.control(() => b.faults.add({ kind: "reset", operationId: "listCalls" }));
    registryWrite.open();
    const made = await making;
    expect(runs).toBe(2);
    expect(a.store.stats().conflicts).toBe(1);
    expect(a.faults.list()).toHaveLength(1);
    expect(await b.store.authenticate(made.apiKey)).toBe(b.store.get(made.workspaceId));
    expect(a.store.list().filter((w) => w.workspaceId.startsWith("ws-"))).toHaveLength(1);
  });

  it("refuses work outside the control plane that replaces a workspace, and writes none of it", async () => {
    const redis = fakeRedis();
    const [a] = await processesOn(redis, 1);
    const workspace = a.store.get(DEFAULT.workspaceId)!;
    await expect(
      a.store.transact(workspace, () => {
        workspace.collections.agents.create({ agentId: "lost" } as never);
        a.store.resetOne(workspace);
      }),
    ).rejects.toThrow("replaced outside the control plane");
    const [b] = [await processesOn(redis, 1)].flat();
    expect(agentIds((await b.store.authenticate(DEFAULT.apiKey))!)).toEqual(["agent-of-default"]);
  });

  it("ends work on a workspace another process deleted meanwhile as WorkspaceGone (401), writing nothing", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    const made = await a.store.control(() => a.store.create({ seed: 4 }, a.store.get("default")!.random));
    const copy = (await b.store.authenticate(made.apiKey))!;
    await a.store.control(() => a.store.delete(a.store.get(made.workspaceId)!));
    await expect(
      b.store.transact(copy, () => copy.collections.agents.create({ agentId: "zombie" } as never)),
    ).rejects.toMatchObject({ status: 401 });
    // Only the tombstone of its generation is left: no record of it.
    expect(redis.hashes.get(`apm:{w:${made.workspaceId}}:h`)?.size ?? 0).toBe(0);
    expect(redis.hashes.get(`apm:{w:${made.workspaceId}}:m`)?.get("g")).toBeDefined();
  });
});
