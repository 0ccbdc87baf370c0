/** What the shared-store tests share: a redis and mock processes per test, stopped after it, and polling. */
import { afterEach } from "vitest";
import { spawnMock, type MockProcess } from "../process.js";
import { startRedis, type RedisServer } from "../redis.js";

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

export async function redisForTest(): Promise<RedisServer> {
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  return redis;
}

/** A mock process on `redis` (quiet, SIGKILLed after the test); `args` add to or override the defaults. */
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
