/**
 * A real Redis Cluster for the shared-store tests (--store redis://H:P,H:P,H:P): `masters` redis-server
 * processes in cluster mode on free loopback ports, joined by `redis-cli --cluster create` with no
 * replicas, each holding a third of the 16384 hash slots. Like redis.ts (whose process handling it
 * reuses): no persistence, killed with the test process, stopped by the test that started it.
 *
 * Each node's cluster bus gets a port of its own (--cluster-port, Redis 7): the default, port + 10000,
 * is past 65535 for most of Linux's ephemeral ports. The node files (nodes-PORT.conf) go to a temporary
 * directory that stop() removes.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  type Launched,
  onPath,
  RedisExited,
  type RedisServer,
  redisAvailable,
  startOn,
  terminate,
} from "./redis.js";

export interface RedisClusterNode {
  /** The port clients use; the cluster bus listens on busPort. */
  port: number;
  busPort: number;
  /** The current process's id (restart() starts new ones). */
  readonly pid: number;
}

/**
 * A RedisServer whose url names every node (the seeds a client is given), whose port and pid are the
 * first node's, and whose restart() brings the whole cluster back empty on the same ports.
 */
export interface RedisCluster extends RedisServer {
  nodes: RedisClusterNode[];
}

const NOT_FOUND = "redis-server not found: apt-get install redis-server (npm test installs it where it can)";
const CLI_NOT_FOUND =
  "redis-cli not found: apt-get install redis-tools (Debian's redis-server package brings it along)";
const SLOTS = 16_384;
/** How long `redis-cli --cluster create` and the wait for cluster_state:ok may take, each. */
const FORM_LIMIT_MS = 20_000;
const BIND_ATTEMPTS = 5;
/** Fast failover is not tested here; a short timeout only makes a stopped node noticed sooner. */
const NODE_TIMEOUT_MS = 2_000;

/** A reply as RESP2 gives it: simple and bulk strings, integers, arrays; errors reject. */
export type RedisReply = string | number | null | RedisReply[];

/** Parses one reply at the start of `buffer`: the value and where it ends, or undefined if incomplete. */
function parseReply(buffer: Buffer, at = 0): { value: RedisReply | Error; end: number } | undefined {
  const lineEnd = buffer.indexOf("\r\n", at);
  if (lineEnd < 0) return undefined;
  const head = buffer.toString("utf8", at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (String.fromCharCode(buffer[at])) {
    case "+":
      return { value: head, end: next };
    case "-":
      return { value: new Error(head), end: next };
    case ":":
      return { value: Number(head), end: next };
    case "$": {
      const length = Number(head);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const count = Number(head);
      if (count < 0) return { value: null, end: next };
      const items: RedisReply[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, end);
        if (!item) return undefined;
        if (item.value instanceof Error) return item;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      return { value: new Error(`unexpected reply: ${buffer.toString("utf8", at, lineEnd)}`), end: next };
  }
}

/**
 * One command to one node over a fresh connection (no cluster redirection: a key of another node's
 * slot answers -MOVED, which rejects). For the tests' looks at the nodes, not for load.
 */
export function nodeCommand(port: number, ...args: (string | number)[]): Promise<RedisReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const done = (error: Error | undefined, value?: RedisReply) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? null);
    };
    socket.setTimeout(2_000, () => done(new Error(`redis on port ${port} did not answer ${args[0]} within 2 s`)));
    socket.once("error", (error) => done(error));
    socket.once("connect", () => {
      const parts = args.map(String);
      socket.write(`*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join("")}`);
    });
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const reply = parseReply(received);
      if (reply) done(reply.value instanceof Error ? reply.value : undefined, reply.value as RedisReply);
    });
    socket.once("close", () => done(new Error(`redis on port ${port} closed the connection before answering`)));
  });
}

/** CLUSTER INFO of the node on `port`, as field: value. */
export async function clusterInfo(port: number): Promise<Record<string, string>> {
  const text = String(await nodeCommand(port, "CLUSTER", "INFO"));
  return Object.fromEntries(
    text
      .split("\r\n")
      .filter((line) => line.includes(":"))
      .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1)]),
  );
}

interface Node {
  port: number;
  busPort: number;
  server: Launched;
}

/** Two free ports not already in `taken`, which they join. */
async function portPair(taken: Set<number>): Promise<[number, number]> {
  const pick = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) return (taken.add(port), port);
    }
  };
  return [await pick(), await pick()];
}

function nodeFlags(dir: string, port: number, busPort: number): string[] {
  return [
    "--cluster-enabled",
    "yes",
    "--cluster-port",
    String(busPort),
    "--cluster-config-file",
    join(dir, `nodes-${port}.conf`),
    "--cluster-node-timeout",
    String(NODE_TIMEOUT_MS),
    "--dir",
    dir,
  ];
}

/** A node on fresh ports, or on `fixed` ones (a restart); a port taken since it was probed is worth another. */
async function startNode(dir: string, taken: Set<number>, fixed?: [number, number]): Promise<Node> {
  for (let attempt = 1; ; attempt++) {
    const [port, busPort] = fixed ?? (await portPair(taken));
    try {
      return { port, busPort, server: await startOn(port, nodeFlags(dir, port, busPort)) };
    } catch (error) {
      if (fixed || !(error instanceof RedisExited && error.portTaken) || attempt === BIND_ATTEMPTS) throw error;
    }
  }
}

/** Runs `redis-cli --cluster create` over `nodes`; rejects with its output if it fails. */
function createCluster(nodes: Node[]): Promise<void> {
  const args = [
    "--cluster",
    "create",
    ...nodes.map((node) => `127.0.0.1:${node.port}`),
    "--cluster-replicas",
    "0",
    "--cluster-yes",
  ];
  return new Promise((resolve, reject) => {
    execFile("redis-cli", args, { timeout: FORM_LIMIT_MS }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-cli ${args.join(" ")} failed (${error.message}):\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

/** Resolves once every node says cluster_state:ok with all slots assigned and every node known. */
async function waitFormed(nodes: Node[]): Promise<void> {
  const deadline = Date.now() + FORM_LIMIT_MS;
  let last: Record<string, string>[] = [];
  for (;;) {
    last = await Promise.all(nodes.map((node) => clusterInfo(node.port).catch(() => ({}) as Record<string, string>)));
    const formed = last.every(
      (info) =>
        info.cluster_state === "ok" &&
        Number(info.cluster_slots_assigned) === SLOTS &&
        Number(info.cluster_known_nodes) === nodes.length,
    );
    if (formed) return;
    if (Date.now() > deadline) {
      const states = last.map((info, i) => `${nodes[i].port}: ${JSON.stringify(info)}`).join("\n");
      throw new Error(`the Redis Cluster did not form within ${FORM_LIMIT_MS} ms:\n${states}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts every node (on `ports` if given), forms the cluster and waits for it; stops what it started on failure. */
async function form(dir: string, count: number, ports?: [number, number][]): Promise<Node[]> {
  const taken = new Set<number>();
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startNode(dir, taken, ports?.[i])));
  const nodes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  try {
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    await createCluster(nodes);
    await waitFormed(nodes);
    return nodes;
  } catch (error) {
    await Promise.all(nodes.map((node) => terminate(node.server)));
    throw error;
  }
}

/** Stops every node, then forgets their cluster state (the node files), so a next form() starts afresh. */
async function stopAll(dir: string, nodes: Node[]): Promise<void> {
  await Promise.all(nodes.map((node) => terminate(node.server)));
  for (const node of nodes) rmSync(join(dir, `nodes-${node.port}.conf`), { force: true });
}

export async function startRedisCluster({ masters = 3 }: { masters?: number } = {}): Promise<RedisCluster> {
  if (!redisAvailable()) throw new Error(NOT_FOUND);
  if (!onPath("redis-cli")) throw new Error(CLI_NOT_FOUND);
  if (masters < 3) throw new Error(`a Redis Cluster needs at least 3 masters (redis-cli refuses fewer): ${masters}`);
  const dir = mkdtempSync(join(tmpdir(), "apm-redis-cluster-"));
  let nodes: Node[];
  try {
    nodes = await form(dir, masters);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const ports = nodes.map((node) => node.port);
  return {
    url: `redis://${ports.map((port) => `127.0.0.1:${port}`).join(",")}`,
    port: ports[0],
    get pid() {
      return nodes[0].server.child.pid!;
    },
    // Live views: after a restart they show the new processes.
    nodes: nodes.map((_, i) => ({
      port: ports[i],
      busPort: nodes[i].busPort,
      get pid() {
        return nodes[i].server.child.pid!;
      },
    })),
    async stop() {
      await stopAll(dir, nodes);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stopAll(dir, nodes);
      nodes = await form(
        dir,
        masters,
        nodes.map((node) => [node.port, node.busPort]),
      );
    },
  };
}
