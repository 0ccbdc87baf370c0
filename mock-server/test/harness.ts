/** Test harness: a mock on 127.0.0.1:0 with a virtual clock, typed clients, and raw fetch helpers. */
import { afterAll, beforeAll } from "vitest";
import {
  createControlClient,
  createPlatformClient,
  type MockControlClient,
  type PlatformClient,
} from "../../generated/client.js";
import { startMock, type RunningMock, type StartOptions } from "../server.js";
import { startRedis } from "./redis.js";
import { startRedisCluster } from "./redis-cluster.js";
import { startRoundRobinProxy } from "./shared-store/round-robin.js";

/**
 * MOCK_TEST_STORE=redis or redis-cluster (shared-replicas.test.ts sets it): every file using useMock runs
 * against two replicas of the mock on one Redis, or on a Redis Cluster of 3 masters, behind a proxy that
 * sends each request to the other replica.
 */
const STORE = process.env.MOCK_TEST_STORE;
const SHARED = STORE === "redis" || STORE === "redis-cluster";

/**
 * Two mocks on a fresh Redis (or Cluster) behind a round-robin proxy, seen as one: its url is the
 * proxy's; waiting for webhook attempts waits for both replicas'; closing closes everything. The
 * replicas are two independent copies with their own connections (the shared-store tests use
 * separate processes).
 */
async function startReplicas(options: StartOptions): Promise<RunningMock> {
  const redis = STORE === "redis-cluster" ? await startRedisCluster({ masters: 3 }) : await startRedis();
  const a = await startMock({ ...options, store: redis.url });
  const b = await startMock({ ...options, store: redis.url });
  const proxy = await startRoundRobinProxy([a.url, b.url]);
  const webhooks = {
    idle: () => Promise.all([a.mock.services.webhooks.idle(), b.mock.services.webhooks.idle()]).then(() => undefined),
  };
  return {
    ...a,
    url: proxy.url,
    mock: { ...a.mock, services: { ...a.mock.services, webhooks: webhooks as never } },
    async close() {
      await proxy.close();
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    },
  };
}

export interface Harness {
  mock: RunningMock;
  url: string;
  api: PlatformClient;
  control: MockControlClient;
  /** Every line the mock logged (its log function is captured, so test output stays quiet). */
  logs: string[];
  /** fetch against the mock with the default key unless headers say otherwise. */
  raw(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** A fresh seeded workspace and a client for it. */
  workspace(body?: {
    seed?: number;
    empty?: boolean;
    readOnly?: boolean;
    scenario?: "every-variant";
  }): Promise<{ workspaceId: string; apiKey: string; api: PlatformClient }>;
  advance(seconds: number): Promise<void>;
}

/** What the mock logs for a 5xx (errors.ts), a reply off the spec (pipeline.ts), a failed clock task (app.ts). */
const INTERNAL_ERROR = /^[A-Z]+ \S+ failed: |^response validation failed|^scheduled task failed/;

export function useMock(options: StartOptions = {}): Harness {
  const harness = { logs: [] as string[] } as Harness;
  beforeAll(async () => {
    const start = SHARED ? startReplicas : startMock;
    const mock = await start({ log: (line) => void harness.logs.push(line), ...options });
    Object.assign(harness, {
      mock,
      url: mock.url,
      api: createPlatformClient({ baseUrl: mock.url, apiKey: mock.apiKey }),
      control: createControlClient({ baseUrl: mock.url }),
      raw(path: string, init: RequestInit & { key?: string | null } = {}) {
        const { key = mock.apiKey, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (key !== null && !headers.has("X-API-Key")) headers.set("X-API-Key", key);
        return fetch(mock.url + path, { ...rest, headers });
      },
      async workspace(body = {}) {
        const { data, error } = await harness.control.POST("/__mock/workspaces", { body });
        if (!data) throw new Error(`workspace not created: ${JSON.stringify(error)}`);
        return { ...data, api: createPlatformClient({ baseUrl: mock.url, apiKey: data.apiKey }) };
      },
      async advance(seconds: number) {
        const { response } = await harness.control.POST("/__mock/clock/advance", { body: { seconds } });
        if (!response.ok) throw new Error(`clock did not advance: ${response.status}`);
      },
    } satisfies Partial<Harness>);
  });
  afterAll(async () => {
    await harness.mock?.close();
    // Quiet is not blind: a 5xx or a response that drifted from the spec fails the file.
    const internal = harness.logs.filter((line) => INTERNAL_ERROR.test(line));
    if (internal.length > 0 && !options.log)
      throw new Error(`the mock logged internal errors:\n${internal.join("\n")}`);
  });
  return harness;
}

/** The 2.2 error body, checked field by field. */
export function expectErrorBody(body: any, status: number, path: string): void {
  if (typeof body?.timestamp !== "string" || !/Z$/.test(body.timestamp))
    throw new Error(`timestamp not UTC: ${JSON.stringify(body)}`);
  if (body.status !== status) throw new Error(`status ${body.status} != ${status}: ${JSON.stringify(body)}`);
  if (typeof body.error !== "string" || typeof body.message !== "string" || body.message.length === 0)
    throw new Error(`error/message missing: ${JSON.stringify(body)}`);
  if (body.path !== path) throw new Error(`path ${body.path} != ${path}`);
}
