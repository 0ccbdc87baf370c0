/**
 * The store's promise, explored: three processes on one Redis (in this process) run a random mix of
 * control-plane work (create, reset, delete workspaces, fault rules), API writes and background tasks,
 * all at once, while fast-check's scheduler decides the order in which each of their Redis calls lands.
 * Whatever the order: nothing fails but a write on a workspace deleted meanwhile (401); every process
 * ends with the same state, the one in Redis; an acknowledged creation or write is there unless a later
 * reset or delete took it. A failure prints fast-check's seed and the shrunk list of commands.
 * The same promise is checked on real processes and real Redis by `npm run soak -- --replicas N`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Workspace } from "../workspace.js";
import { agentIds, DEFAULT, fakeRedis, processesOn } from "./test/fake-redis.js";

type Command =
  | { kind: "create"; by: number; seed: number }
  | { kind: "reset" | "delete"; by: number; target: number }
  | { kind: "fault"; by: number }
  | { kind: "write" | "task"; by: number; target: number };

const PROCESSES = 3;

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), by: fc.nat(PROCESSES - 1), seed: fc.nat(100) }),
  fc.record({
    kind: fc.constantFrom("reset" as const, "delete" as const),
    by: fc.nat(PROCESSES - 1),
    target: fc.nat(5),
  }),
  fc.record({ kind: fc.constant("fault" as const), by: fc.nat(PROCESSES - 1) }),
  fc.record({ kind: fc.constantFrom("write" as const, "task" as const), by: fc.nat(PROCESSES - 1), target: fc.nat(5) }),
);

/** What was acknowledged, per workspace id, to check the end state against. */
interface Acked {
  keys: Map<string, string>;
  /** Agents whose write was acknowledged, by workspace. */
  agents: Map<string, Set<string>>;
  /** Workspaces a reset or delete was acknowledged for, or may have reached (a write's loss is then allowed). */
  replaced: Set<string>;
  deleted: Set<string>;
}

/** The promise, over any commands from three processes landing in any order. */
const converges = () =>
  fc.asyncProperty(fc.scheduler(), fc.array(command, { minLength: 1, maxLength: 14 }), async (s, commands) => {
    const redis = fakeRedis();
    const processes = await processesOn(redis, PROCESSES);
    const acked: Acked = {
      keys: new Map([[DEFAULT.workspaceId, DEFAULT.apiKey]]),
      agents: new Map(),
      replaced: new Set(),
      deleted: new Set(),
    };
    const ids = () => [...acked.keys.keys()];
    const failures: string[] = [];
    redis.gate = (name) => s.schedule(Promise.resolve(), name);

    const run = async (c: Command, n: number): Promise<void> => {
      const { store, faults } = processes[c.by];
      const target = "target" in c ? ids()[c.target % ids().length] : DEFAULT.workspaceId;
      switch (c.kind) {
        case "create": {
          const made = await store.control(() => store.create({ seed: c.seed }, store.get("default")!.random));
          acked.keys.set(made.workspaceId, made.apiKey);
          return;
        }
        case "fault":
          await store.control(() => faults.add({ kind: "reset", operationId: "listCalls", times: 1 }));
          return;
        case "reset":
        case "delete": {
          if (target === DEFAULT.workspaceId && c.kind === "delete") return;
          acked.replaced.add(target);
          await store.control(() => {
            const workspace = store.get(target);
            if (!workspace) return;
            if (c.kind === "reset") store.resetOne(workspace);
            else store.delete(workspace);
          });
          if (c.kind === "delete") acked.deleted.add(target);
          return;
        }
        case "write":
        case "task": {
          const agentId = `agent-${n}`;
          const write = (w: Workspace) => () => w.collections.agents.create({ agentId } as never);
          let workspace: Workspace | undefined;
          if (c.kind === "write") workspace = await store.authenticate(acked.keys.get(target)!);
          else workspace = store.get(target);
          if (!workspace) return;
          const done = await (c.kind === "write"
            ? store.transact(workspace, write(workspace))
            : store.transactBackground(workspace, write(workspace))
          ).then(
            () => true,
            (error: { status?: number }) => {
              // Only a workspace deleted while the work ran may refuse it.
              if (error.status !== 401) failures.push(`${c.kind} on ${target}: ${String(error)}`);
              return false;
            },
          );
          if (done) acked.agents.set(target, (acked.agents.get(target) ?? new Set()).add(agentId));
        }
      }
    };
    const all = Promise.all(
      commands.map((c, n) => run(c, n).catch((error) => void failures.push(`${c.kind} by ${c.by}: ${String(error)}`))),
    );
    await s.waitFor(all);
    redis.gate = async () => undefined;
    expect(failures).toEqual([]);

    for (const { store } of processes) await store.catchUp();
    const views = processes.map(({ store }) =>
      Object.fromEntries(
        store
          .list()
          .map((w) => [w.workspaceId, agentIds(w).sort()] as const)
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      ),
    );
    // Every process sees the same thing.
    expect(views[1]).toEqual(views[0]);
    expect(views[2]).toEqual(views[0]);
    for (const [id] of acked.keys) {
      if (acked.deleted.has(id)) expect(views[0][id], `${id} deleted`).toBeUndefined();
      else expect(views[0][id], `${id} created`).toBeDefined();
    }
    for (const [id, agents] of acked.agents) {
      if (acked.replaced.has(id)) continue;
      for (const agentId of agents) expect(views[0][id], `${agentId} in ${id}`).toContain(agentId);
    }
  });

describe("RedisStore under any interleaving of three processes", () => {
  it("fails nothing but work on a deleted workspace, converges, and keeps every acknowledged write", async () => {
    await fc.assert(converges(), { numRuns: 1000 });
  }, 120_000);

  // Found by the run above, about one run in eight: a reset's whole write refused as superseded (a
  // repair by another process got there first) left the copy at version -1, and a write queued behind
  // the reset ran on it and was committed with expected -1, skipping the version check; the copy then
  // claimed Redis's version without another process's agent (commit.ts `attempt`). Replayed by
  // fast-check's seed and path: a later fast-check that generates differently replays another case.
  it("keeps a write another process made while this one's reset was superseded", async () => {
    await fc.assert(converges(), { seed: 1860340372, path: "985", numRuns: 1 });
  });
});

describe("RedisStore and the generic layer's records", () => {
  it("shares them between processes: created by one, changed by another, deleted by the first", async () => {
    const redis = fakeRedis();
    const [a, b] = await processesOn(redis, 2);
    const inA = (await a.store.authenticate(DEFAULT.apiKey))!;
    await a.store.transact(inA, () => inA.generic.collection("pets", "petId").create({ petId: 1, name: "Rex" }));
    const inB = (await b.store.authenticate(DEFAULT.apiKey))!;
    expect(inB.generic.collection("pets", "petId").get("1")).toEqual({ petId: 1, name: "Rex" });
    await b.store.transact(inB, () => inB.generic.collection("pets", "petId").replace("1", { petId: 1, name: "Max" }));
    const again = (await a.store.authenticate(DEFAULT.apiKey))!;
    expect(again.generic.collection("pets").get("1")).toEqual({ petId: 1, name: "Max" });
    await a.store.transact(again, () => again.generic.collection("pets").delete("1"));
    const last = (await b.store.authenticate(DEFAULT.apiKey))!;
    expect(last.generic.collection("pets").size).toBe(0);
  });
});
