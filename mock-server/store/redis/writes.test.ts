/**
 * A request's commands to Redis leave in as few socket writes as its steps allow (issue 37): its reads
 * (the registry beside its workspace) in one write, its commit in one, its journal entry with the
 * coverage its answer showed in one; on a Redis Cluster one write per node each. Counted on the mock's
 * real path (server.ts on one real redis-server, then on a Cluster) by wrapping every socket's write to
 * a Redis port and reading back the commands each write carried.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { startRedisCluster } from "../../test/redis-cluster.js";
import { redisAvailable, startRedis, type RedisServer } from "../../test/redis.js";
import { COVERAGE_INDEX, coverageKey } from "./keys.js";
import { RedisLink } from "./redis.js";
import { SCRIPTS, type ScriptName } from "./scripts.js";
import { createHash } from "node:crypto";

type Step = "read" | "commit" | "journal" | "other";

/** Each script by what a call names it with: its sha (EVALSHA) or its text (EVAL, a socket's first call). */
const SCRIPT_OF = new Map<string, ScriptName>();
for (const [name, script] of Object.entries(SCRIPTS) as [ScriptName, { lua: string }][]) {
  SCRIPT_OF.set(script.lua, name);
  SCRIPT_OF.set(createHash("sha1").update(script.lua).digest("hex"), name);
}

/** Which step of a request a command belongs to. */
function stepOf(args: string[]): Step {
  const name = args[0].toLowerCase();
  const script = name === "eval" || name === "evalsha" ? SCRIPT_OF.get(args[1]) : undefined;
  if (script === "mockSync") return "read";
  if (script === "mockCommit") return "commit";
  if (script === "mockJournalAdd" || name === "sadd") return "journal";
  return "other";
}

/** The commands (RESP arrays of bulk strings, as a client sends them) in one write's bytes. */
function commandsIn(data: Buffer): string[][] {
  const commands: string[][] = [];
  let at = 0;
  const line = () => {
    const end = data.indexOf("\r\n", at);
    const text = data.toString("latin1", at, end);
    at = end + 2;
    return text;
  };
  while (at < data.length) {
    const count = Number(line().slice(1));
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      const length = Number(line().slice(1));
      args.push(data.toString("utf8", at, at + length));
      at += length + 2;
    }
    commands.push(args);
  }
  return commands;
}

interface Write {
  /** The Redis port it went to (a node's, on a Cluster). */
  port: number;
  steps: Step[];
  commands: string[][];
}

type Chunk = { chunk: Buffer | string; encoding: BufferEncoding };
const bytesOf = ({ chunk, encoding }: Chunk) => (typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk);

/**
 * Every write a socket of this process hands the kernel while `work` runs (Node's `_write` for one
 * chunk, `_writev` for several at once: one system call either way), to any of `ports`.
 */
async function writesDuring(ports: number[], work: () => Promise<void>): Promise<Write[]> {
  const socket = net.Socket.prototype as unknown as {
    _write(chunk: Buffer | string, encoding: BufferEncoding, done: () => void): void;
    _writev(chunks: Chunk[], done: () => void): void;
  };
  const { _write, _writev } = socket;
  const writes: Write[] = [];
  const record = (to: net.Socket, data: Buffer) => {
    if (to.remotePort === undefined || !ports.includes(to.remotePort)) return;
    const commands = commandsIn(data);
    writes.push({ port: to.remotePort, steps: commands.map(stepOf), commands });
  };
  socket._write = function (this: net.Socket, chunk, encoding, done) {
    record(this, bytesOf({ chunk, encoding }));
    return _write.call(this, chunk, encoding, done);
  };
  socket._writev = function (this: net.Socket, chunks, done) {
    record(this, Buffer.concat(chunks.map(bytesOf)));
    return _writev.call(this, chunks, done);
  };
  try {
    await work();
  } finally {
    Object.assign(socket, { _write, _writev });
  }
  return writes;
}

/** For each step, the writes to each node that carried it: one each when a step's commands leave together. */
function writesPerStepAndNode(writes: Write[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const write of writes)
    for (const step of new Set(write.steps)) {
      const at = `${step} -> :${write.port}`;
      counts[at] = (counts[at] ?? 0) + 1;
    }
  return counts;
}

let mock: RunningMock | undefined;
let redis: RedisServer | undefined;

afterEach(async () => {
  await mock?.close();
  await redis?.stop();
  mock = redis = undefined;
});

async function firstId(collection: string, field: string): Promise<string> {
  const records = (await (await fetch(`${mock!.url}/__mock/workspaces/default/${collection}`)).json()) as any[];
  return records[0][field];
}

/** A GET of one call and a PATCH of one integration, each after a few of its kind (scripts loaded, copies read). */
async function requestsOn(store: RedisServer, ports: number[]) {
  redis = store;
  mock = await startMock({ store: store.url, log: () => undefined });
  const headers = { "X-API-Key": mock.apiKey, "Content-Type": "application/json" };
  const [callId, integrationId] = [await firstId("calls", "callId"), await firstId("integrations", "integrationId")];
  const get = async () => {
    const res = await fetch(`${mock!.url}/v1/calls/${callId}`, { headers });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };
  const patch = async () => {
    const body = JSON.stringify({ name: "CRM", description: "Renamed" });
    const res = await fetch(`${mock!.url}/v1/integrations/${integrationId}`, { method: "PATCH", headers, body });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };
  // The first answer with coverage also puts the workspace in the coverage index: three journal commands.
  const first = await writesDuring(ports, get);
  for (let i = 0; i < 3; i++) {
    await get();
    await patch();
  }
  return { first, get: await writesDuring(ports, get), patch: await writesDuring(ports, patch) };
}

const allOnce = (counts: Record<string, number>) => Object.values(counts).every((n) => n === 1);

describe.skipIf(!redisAvailable() && !process.env.CI)("a request's writes to Redis", () => {
  it("on one Redis: its reads in one write, its commit in one, its journal entry with its coverage in one", async () => {
    const server = await startRedis();
    const { first, get, patch } = await requestsOn(server, [server.port]);
    expect(first.map((w) => w.steps)).toEqual([
      ["read", "read"],
      ["journal", "journal", "journal"],
    ]);
    expect(get.map((w) => w.steps)).toEqual([["read", "read"], expect.arrayContaining(["journal"])]);
    expect(get[1].steps.every((step) => step === "journal")).toBe(true);
    expect(patch.map((w) => w.steps)).toEqual([["read", "read"], ["commit"], expect.arrayContaining(["journal"])]);
    expect(patch[2].steps.every((step) => step === "journal")).toBe(true);
  });

  it("on a Redis Cluster: one write per node for each step", async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const { first, get, patch } = await requestsOn(
      cluster,
      cluster.nodes.map((node) => node.port),
    );
    // The journal's list and the coverage index share a node on 3 masters ({j} and {cov} hash to slots 3564 and 1918).
    expect(first.flatMap((w) => w.steps).filter((step) => step === "journal")).toHaveLength(3);
    for (const writes of [first, get, patch]) {
      const counts = writesPerStepAndNode(writes);
      expect(allOnce(counts), JSON.stringify(counts)).toBe(true);
      // No write mixes steps: each step's commands leave when it has them, before the next step starts.
      for (const write of writes) expect(new Set(write.steps).size, JSON.stringify(write)).toBe(1);
    }
    const steps = (writes: Write[]) => new Set(writes.flatMap((w) => w.steps));
    expect(steps(get)).toEqual(new Set(["read", "journal"]));
    expect(steps(patch)).toEqual(new Set(["read", "commit", "journal"]));
  }, 60_000);

  it("shares a turn's read of a unit at one version, and sends its journal entries and coverage as one call each", async () => {
    redis = await startRedis();
    const link = await RedisLink.open(redis.url, () => undefined);
    try {
      let reads: unknown[] = [];
      let seqs: number[] = [];
      const writes = await writesDuring([redis.port], async () => {
        const pending = [
          Promise.all([
            link.sync([{ unit: "m", since: 0 }]),
            link.sync([
              { unit: "m", since: 0 },
              { unit: "w:a", since: 0 },
            ]),
          ]),
          Promise.all(['{"n":1}', '{"n":2}', '{"n":3}'].map((entry) => link.journalSend(entry, 10))),
          link.coverageSend("a", ["k1", "k2"], true),
          link.coverageSend("a", ["k2", "k3"], false),
        ] as const;
        [reads, seqs] = await Promise.all(pending);
      });
      const script = (args: string[]) => SCRIPT_OF.get(args[1]) ?? args[0].toLowerCase();
      expect(writes).toHaveLength(1);
      const sent = writes[0].commands;
      expect(sent.map(script).sort()).toEqual(["mockJournalAdd", "mockSync", "mockSync", "sadd", "sadd"]);
      expect(sent.filter((args) => script(args) === "mockSync").map((args) => args[3])).toEqual([
        "apm:{m}:m",
        "apm:{w:a}:m",
      ]);
      expect(sent.find((args) => script(args) === "mockJournalAdd")?.slice(-3)).toEqual([
        '{"n":1}',
        '{"n":2}',
        '{"n":3}',
      ]);
      const sadds = sent.filter((args) => args[0].toLowerCase() === "sadd").map((args) => args.slice(1));
      expect(sadds).toEqual([
        [coverageKey("a"), "k1", "k2", "k3"],
        [COVERAGE_INDEX, "a"],
      ]);
      const [alone, both] = reads as [unknown[], unknown[]];
      expect(both[0]).toEqual(alone[0]);
      expect(seqs).toEqual([1, 2, 3]);
      const stored = (await link.journalAll()).map((text) => JSON.parse(text));
      expect(stored).toEqual([
        { seq: 3, n: 3 },
        { seq: 2, n: 2 },
        { seq: 1, n: 1 },
      ]);
    } finally {
      await link.close();
    }
  });
});
