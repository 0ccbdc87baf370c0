import { describe, expect, it } from "vitest";
import { coverageKey, hashTag, slotOf, unitKeys, workspaceUnit } from "./keys.js";
import { RedisLink, type LinkClient } from "./redis.js";
import { SCRIPTS, type ScriptName } from "./scripts.js";

/** Plain commands the link sends, and which of their arguments are keys. */
const PLAIN_KEYS: Record<string, (args: unknown[]) => unknown[]> = {
  zrangebyscore: (args) => args.slice(0, 1),
  smembers: (args) => args.slice(0, 1),
  sadd: (args) => args.slice(0, 1),
  lrange: (args) => args.slice(0, 1),
  del: (args) => args,
};

const ANSWERS: Record<ScriptName, unknown> = {
  mockSync: [3, 0, [], 0],
  mockCommit: [1, 4],
  mockDueHint: 1_000,
  mockDueCorrect: 1,
  mockDueForget: 1,
  mockJournalAdd: 7,
  mockJournalDrop: 0,
};

/** A client that answers every call and keeps each call's keys, as Redis (or a Cluster) would route them. */
function recordingClient(): { client: LinkClient; calls: { command: string; keys: string[] }[] } {
  const calls: { command: string; keys: string[] }[] = [];
  const client: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, script] of Object.entries(SCRIPTS))
    client[name] = async (...args) => {
      calls.push({ command: name, keys: args.slice(0, script.keys) as string[] });
      return ANSWERS[name as ScriptName];
    };
  for (const [name, keysOf] of Object.entries(PLAIN_KEYS))
    client[name] = async (...args) => {
      calls.push({ command: name, keys: keysOf(args) as string[] });
      return name === "smembers" ? ["ws-1", "ws-2"] : name === "lrange" ? [] : 1;
    };
  return { client: client as unknown as LinkClient, calls };
}

describe("one hash slot per call", () => {
  it("reads Redis's hash tag rule: the first {...}, when not empty", () => {
    expect(hashTag("apm:{w:ws-1}:m")).toBe("w:ws-1");
    expect(hashTag("apm:{w:a}b}:m")).toBe("w:a");
    expect(hashTag("apm:{}:m")).toBe("apm:{}:m");
    expect(hashTag("plain")).toBe("plain");
    // Ids with braces still keep a unit's keys together.
    for (const id of ["a}b", "{x}", "w{1"]) expect(new Set(unitKeys(workspaceUnit(id)).map(hashTag)).size).toBe(1);
    expect(hashTag(coverageKey("ws-1"))).toBe(hashTag(unitKeys("w:ws-1")[0]));
  });

  it("computes a key's slot as Redis Cluster does (its documentation's examples)", () => {
    expect(slotOf("somekey")).toBe(11058);
    expect(slotOf("foo{hash_tag}")).toBe(2515);
    expect(slotOf("hash_tag")).toBe(2515);
  });

  it("gives every call the link makes keys of one hash tag, each unit its own", async () => {
    const { client, calls } = recordingClient();
    const link = RedisLink.over(client);
    await link.sync([
      { unit: "m", since: 1 },
      { unit: "w:default", since: 2 },
    ]);
    await link.commit([
      { unit: "m", expected: 1, mode: "fields", values: [["w:ws-1", "{}"]] },
      { unit: "w:ws-1", expected: -1, mode: "whole", values: [["clock", "{}"]], gen: 2, deadline: 5 },
      { unit: "w:ws-2", expected: -1, mode: "drop", values: [], gen: 2 },
    ]);
    await link.dueHint([
      { workspaceId: "ws-1", wallMs: 10, version: 2 },
      { workspaceId: "ws-2", wallMs: 11, version: 3 },
    ]);
    await link.dueCorrect("ws-1", 2, undefined, 100);
    await link.dueCorrect("ws-1", 2, 5, 100, false);
    await link.dueForget(["ws-1", "ws-2"]);
    await link.dueBy(10);
    await link.journalSend('{"a":1}', 10);
    await link.coverageSend("ws-1", ["k1", "k2"], true);
    await link.coverageOf("ws-1");
    await link.journalAll();
    await link.journalClear("ws-1");
    await link.journalClear();

    const commands = new Set(calls.map((c) => c.command));
    for (const name of Object.keys(SCRIPTS)) expect(commands.has(name), `${name} was called`).toBe(true);
    for (const call of calls) {
      expect(call.keys.length, `${call.command} has keys`).toBeGreaterThan(0);
      expect(new Set(call.keys.map(hashTag)).size, `${call.command} ${call.keys.join(" ")}`).toBe(1);
    }
    const tags = new Set(calls.map((c) => hashTag(c.keys[0])));
    expect([...tags].sort()).toEqual(["cov", "due", "j", "m", "w:default", "w:ws-1", "w:ws-2"]);
  });

  it("has scripts that reach keys only through KEYS, within the count each declares", () => {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      // A key name built inside a script could be in any slot.
      expect(script.lua, name).not.toMatch(/KEYS\[[^\]]+\]\s*\.\./);
      expect(script.lua, name).not.toMatch(/['"]apm:/);
      const used = [...script.lua.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(Math.max(...used), name).toBeLessThanOrEqual(script.keys);
      expect(script.lua, name).not.toMatch(/KEYS\[[^\d]/);
      expect(script.lua, name).not.toMatch(/#KEYS/);
    }
  });
});
