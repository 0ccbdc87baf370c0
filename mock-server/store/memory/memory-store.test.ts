import { describe, expect, it } from "vitest";
import { Clock } from "../../core/clock.js";
import { Random } from "../../core/random.js";
import { webCryptoSha256 } from "../registry.js";
import type { Sha256 } from "../store.js";
import type { Workspace } from "../workspace.js";
import { MemoryStore } from "./memory-store.js";

const options = (workspaceId: string, apiKey = `key-${workspaceId}`) => ({
  workspaceId,
  apiKey,
  seed: 1,
  empty: false,
  readOnly: false,
});

function store(sha256?: Sha256) {
  const seeded: string[] = [];
  const added: string[] = [];
  const memory = new MemoryStore({
    clock: new Clock({ mode: "virtual" }),
    seed: (w) => void seeded.push(w.workspaceId),
    added: (w) => void added.push(w.workspaceId),
    sha256,
  });
  return { memory, seeded, added };
}

describe("MemoryStore", () => {
  it("opens by seeding at once, and tells of each workspace added before seeding it", async () => {
    const { memory, seeded, added } = store();
    const opened = memory.open(() => memory.add(options("default")));
    expect(memory.get("default")).toBeDefined();
    expect(await opened).toBe("seeded");
    memory.add(options("quiet"), { seed: false });
    expect(added).toEqual(["default", "quiet"]);
    expect(seeded).toEqual(["default"]);
  });

  it("authenticates a key added just before, also while Web Crypto hashes asynchronously", async () => {
    const { memory } = store(webCryptoSha256);
    const a = memory.add(options("a"));
    const first = memory.authenticate("key-a");
    const b = memory.add(options("b"));
    expect(await first).toBe(a);
    expect(await memory.authenticate("key-b")).toBe(b);
    expect(await memory.authenticate("key-c")).toBeUndefined();
    memory.delete(b);
    expect(await memory.authenticate("key-b")).toBeUndefined();
  });

  it("starts what work queued once it is done, even when the work failed after its writes", async () => {
    const { memory } = store();
    const w = memory.add(options("a"));
    const started: string[] = [];
    const result = await memory.transact(w, () => {
      memory.afterCommit(w, (undone) => started.push(`first ${undone}`));
      expect(started).toEqual([]);
      return 7;
    });
    expect(result).toBe(7);
    expect(started).toEqual(["first false"]);
    await expect(
      memory.transactBackground(w, () => {
        memory.afterCommit(w, (undone) => started.push(`second ${undone}`));
        throw new Error("late failure");
      }),
    ).rejects.toThrow("late failure");
    expect(started).toEqual(["first false", "second false"]);
  });

  it("runs the synchronous part of a request's work at once, and resolves to what an async one returns", async () => {
    const { memory } = store();
    const w = memory.add(options("a"));
    let ran = false;
    const pending = memory.transact(w, async () => {
      ran = true;
      await Promise.resolve();
      return "later";
    });
    expect(ran).toBe(true);
    expect(await pending).toBe("later");
  });

  it("moves a workspace's generation on reset and delete, not on its own writes", async () => {
    const { memory } = store();
    const w: Workspace = memory.add(options("a"));
    const at = memory.generationOf(w);
    await memory.transact(w, () => w.collections.agents.create({ agentId: "x" } as never));
    expect(memory.generationOf(w)).toBe(at);
    memory.resetOne(w, 5);
    expect(w.seed).toBe(5);
    expect(w.collections.agents.size).toBe(0);
    expect(memory.generationOf(w)).toBe(at + 1);
    memory.delete(w);
    expect(memory.generationOf(w)).toBe(at + 2);
    expect(memory.get("a")).toBeUndefined();
  });

  it("creates workspaces with ids counted on and keys drawn from the Random given", () => {
    const { memory } = store();
    const random = new Random(3);
    const one = memory.create({}, random);
    const two = memory.create({ empty: true, readOnly: true }, random);
    expect(one.workspaceId).toMatch(/^ws-1-[0-9a-f]{8}$/);
    expect(two.workspaceId).toMatch(/^ws-2-[0-9a-f]{8}$/);
    expect(two.apiKey).toMatch(/^mock_[0-9a-f]{32}$/);
    expect([two.seed, two.empty, two.readOnly]).toEqual([2, true, true]);
  });

  it("never hands out a key a live workspace holds, even when the Random it draws from starts over", async () => {
    const { memory } = store();
    const first = memory.create({ empty: true }, new Random(3));
    // A reset of the default workspace starts its Random over: the same draws come again.
    const second = memory.create({ empty: true }, new Random(3));
    expect(second.apiKey).not.toBe(first.apiKey);
    expect(second.workspaceId).not.toBe(first.workspaceId);
    expect(await memory.authenticate(first.apiKey)).toBe(first);
    expect(await memory.authenticate(second.apiKey)).toBe(second);
  });
});
