/**
 * What the shared-store tests share: a store (one redis-server or a Redis Cluster) and mock processes
 * per test, stopped after it, and polling.
 */
import { afterEach } from "vitest";
import { spawnMock, type MockProcess } from "../process.js";
import { startRedis, type RedisServer } from "../redis.js";
import { type RedisCluster, startRedisCluster } from "../redis-cluster.js";

export interface Reply {
  status: number;
  body: any;
}

/** What each test started, stopped after it in reverse order (mocks before their redis) whatever happened. */
const cleanups: (() => Promise<unknown>)[] = [];

/** Call once at the top of a test file: stops what each test started, after it. */
export function stopAfterEach(): void {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
}

export function onCleanup(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

/** One redis-server, or a Redis Cluster of 3 masters (redis-cluster.ts) that clients reach through every node. */
export type StoreKind = "redis" | "redis-cluster";

/** MOCK_TEST_STORE=redis-cluster runs every shared-store test on a Cluster. */
let defaultKind: StoreKind = process.env.MOCK_TEST_STORE === "redis-cluster" ? "redis-cluster" : "redis";

/**
 * Which store redisForTest() starts in this test file from now on: a cluster-*.test.ts file sets it,
 * then imports a test file whose cases it runs again on a Cluster, so the cases are written once.
 */
export function useStoreKind(kind: StoreKind): void {
  defaultKind = kind;
}

/** A fresh store of `kind` for this test, stopped after it; its url is what --store takes. */
export async function storeForTest(kind: StoreKind = defaultKind): Promise<RedisServer> {
  if (kind === "redis-cluster") return clusterForTest();
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  return redis;
}

/** A fresh Redis Cluster of 3 masters for this test, stopped after it. */
export async function clusterForTest(): Promise<RedisCluster> {
  const cluster = await startRedisCluster({ masters: 3 });
  onCleanup(() => cluster.stop());
  return cluster;
}

/** The store the file runs on (useStoreKind), one redis-server unless told otherwise. */
export function redisForTest(): Promise<RedisServer> {
  return storeForTest();
}

/**
 * A mock process on `redis` (one server, or a cluster whose url names every node), quiet and SIGKILLed
 * after the test; `args` add to or override the defaults.
 */
export async function mockOn(redis: RedisServer, ...args: string[]): Promise<MockProcess> {
  const mock = await spawnMock(["--store", redis.url, "--log-format", "off", ...args]);
  onCleanup(() => mock.stop("SIGKILL"));
  return mock;
}

/** Polls `check` every 100 ms until it gives something, or fails saying what it waited for. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  limitMs = 25_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const found = await check().catch(() => undefined);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One JSON request to `mock`, with the key it printed unless told otherwise. */
export async function send(
  mock: MockProcess,
  method: string,
  path: string,
  body?: unknown,
  key = mock.apiKey,
): Promise<Reply> {
  const headers: Record<string, string> = { "X-API-Key": key };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(mock.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** An empty workspace made through `mock`, with one agent and test cases of `attempts` attempts each. */
export async function workspaceWithTestCases(mock: MockProcess, attempts: number[]) {
  const { workspaceId, apiKey } = (await send(mock, "POST", "/__mock/workspaces", { empty: true })).body;
  const fill = async (collection: string, body: unknown) => {
    const reply = await send(mock, "POST", `/__mock/workspaces/${workspaceId}/${collection}`, body);
    if (reply.status !== 201) throw new Error(`fill ${collection}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const agent = await fill("agents", {});
  const testCases: { testCaseId: string }[] = [];
  for (const attempt of attempts)
    testCases.push(await fill("testCases", { agent: { agentId: agent.agentId }, attempt }));
  return {
    workspaceId: workspaceId as string,
    apiKey: apiKey as string,
    agentId: agent.agentId as string,
    testCaseIds: testCases.map((t) => t.testCaseId),
    fill,
  };
}
