/**
 * The Redis Cluster the shared-store tests start (redis-cluster.ts), checked on its own so a failure
 * there points here and not at the store: 3 masters holding all 16384 slots, a key answered by its
 * slot's node only, and nothing left running or on disk after stop().
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clusterInfo, nodeCommand, type RedisCluster, startRedisCluster } from "../redis-cluster.js";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something could listen on 127.0.0.1:port now (nothing else holds it). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** The masters CLUSTER NODES lists on `port`: "host:port@bus" and the slot ranges each serves. */
async function masters(port: number): Promise<{ address: string; slots: string[] }[]> {
  const text = String(await nodeCommand(port, "CLUSTER", "NODES"));
  return text
    .trim()
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields[2].split(",").includes("master"))
    .map((fields) => ({ address: fields[1], slots: fields.slice(8) }))
    .sort((a, b) => a.address.localeCompare(b.address));
}

/** How many slots the ranges ("0-5460", "5461") cover. */
const slotCount = (ranges: string[]) =>
  ranges.reduce((sum, range) => {
    const [from, to = from] = range.split("-").map(Number);
    return sum + to - from + 1;
  }, 0);

describe("startRedisCluster", () => {
  let cluster: RedisCluster | undefined;
  afterEach(async () => void (await cluster?.stop()));

  it("forms a cluster of 3 masters that hold all 16384 slots, named in its url, that redirects keys", async () => {
    cluster = await startRedisCluster({ masters: 3 });
    const ports = cluster.nodes.map((node) => node.port);
    expect(new Set([...ports, ...cluster.nodes.map((node) => node.busPort)]).size).toBe(6);
    expect(cluster.url).toBe(`redis://${ports.map((port) => `127.0.0.1:${port}`).join(",")}`);
    expect(cluster.port).toBe(ports[0]);
    for (const port of ports) {
      const info = await clusterInfo(port);
      expect(info).toMatchObject({
        cluster_state: "ok",
        cluster_slots_assigned: "16384",
        cluster_known_nodes: "3",
        cluster_size: "3",
      });
    }
    // Every node sees the same 3 masters, each with slots, together all of them.
    const seen = await masters(ports[0]);
    expect(seen.map((m) => m.address.split("@")[0]).sort()).toEqual(ports.map((port) => `127.0.0.1:${port}`).sort());
    expect(seen.every((m) => slotCount(m.slots) > 0)).toBe(true);
    expect(seen.reduce((sum, m) => sum + slotCount(m.slots), 0)).toBe(16_384);
    expect(await masters(ports[2])).toEqual(seen);

    // A key is answered by its slot's node, and redirected there by the others.
    const slot = Number(await nodeCommand(cluster.port, "CLUSTER", "KEYSLOT", "probe"));
    const answers = await Promise.all(
      cluster.nodes.map((node) => nodeCommand(node.port, "SET", "probe", "1").catch((error: Error) => error.message)),
    );
    expect(answers.filter((answer) => answer === "OK")).toHaveLength(1);
    expect(answers.filter((answer) => String(answer).startsWith(`MOVED ${slot} 127.0.0.1:`))).toHaveLength(2);
  });

  it("restart() comes back empty on the same ports as new processes", async () => {
    cluster = await startRedisCluster();
    const before = cluster.nodes.map((node) => ({ port: node.port, pid: node.pid }));
    const owner = (
      await Promise.all(
        cluster.nodes.map((node) =>
          nodeCommand(node.port, "SET", "kept?", "1").then(
            () => node.port,
            () => 0,
          ),
        ),
      )
    ).find(Boolean)!;
    await cluster.restart();
    expect(cluster.nodes.map((node) => node.port)).toEqual(before.map((node) => node.port));
    for (const [i, node] of cluster.nodes.entries()) {
      expect(node.pid).not.toBe(before[i].pid);
      expect(isRunning(before[i].pid)).toBe(false);
      expect(await clusterInfo(node.port)).toMatchObject({ cluster_state: "ok", cluster_slots_assigned: "16384" });
    }
    expect(await nodeCommand(owner, "DBSIZE")).toBe(0);
  });

  it("says what to install when redis-cli is missing, and starts nothing", async () => {
    // A PATH with redis-server and no redis-cli.
    const bin = mkdtempSync(join(tmpdir(), "apm-no-cli-"));
    const path = process.env.PATH;
    const server = path!
      .split(delimiter)
      .map((dir) => join(dir, "redis-server"))
      .find((file) => existsSync(file))!;
    symlinkSync(server, join(bin, "redis-server"));
    process.env.PATH = bin;
    try {
      await expect(startRedisCluster()).rejects.toThrow(/^redis-cli not found: apt-get install redis-tools/);
    } finally {
      process.env.PATH = path;
      rmSync(bin, { recursive: true });
    }
  });

  it("stop() ends every node, frees every port and removes the node files", async () => {
    cluster = await startRedisCluster();
    const nodes = cluster.nodes.map((node) => ({ port: node.port, busPort: node.busPort, pid: node.pid }));
    const [, dir] = (await nodeCommand(nodes[0].port, "CONFIG", "GET", "dir")) as string[];
    for (const node of nodes) expect(existsSync(join(dir, `nodes-${node.port}.conf`))).toBe(true);
    await cluster.stop();
    cluster = undefined;
    for (const node of nodes) {
      expect(isRunning(node.pid)).toBe(false);
      expect(await portFree(node.port)).toBe(true);
      expect(await portFree(node.busPort)).toBe(true);
    }
    expect(existsSync(dir)).toBe(false);
  });
});
