/**
 * The whole suite at level assumed against two mock processes on one Redis, behind a proxy that sends
 * each request to the other process: what one process acknowledged, the next request finds in the
 * other, so the suite cannot tell them from one mock. Webhook rules included: whichever process
 * writes the event sends it, once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { spawnMock, type MockProcess } from "../../mock-server/test/process.js";
import { startRedis, type RedisServer } from "../../mock-server/test/redis.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "../../mock-server/test/shared-store/round-robin.js";
import { silentIo } from "./support.js";

describe("suite against two mock processes sharing one Redis", () => {
  let redis: RedisServer;
  const mocks: MockProcess[] = [];
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++)
      mocks.push(await spawnMock(["--store", redis.url, "--clock", "virtual", "--log-format", "off"]));
    proxy = await startRoundRobinProxy(mocks.map((m) => m.url));
  }, 90_000);

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(mocks.map((m) => m.stop("SIGTERM")));
    await redis?.stop();
  });

  it("passes at level assumed, with requests split evenly between the processes", async () => {
    const { code, run } = await main(
      ["--base-url", proxy.url, "--api-key", mocks[0].apiKey, "--level", "assumed", "--quiet"],
      {},
      silentIo,
    );
    const failed = (run?.results ?? [])
      .filter((r) => r.outcome === "failed")
      .map(
        (r) =>
          `${r.id}: ${r.failures
            .slice(0, 2)
            .map((f) => `${f.pointer} ${f.message}`)
            .join("; ")}`,
      );
    expect(failed).toEqual([]);
    expect(code).toBe(0);
    expect(run!.isMock).toBe(true);
    expect(run!.results.filter((r) => r.outcome === "skipped").map((r) => r.id)).toEqual([]);
    expect(Math.min(...proxy.counts)).toBeGreaterThan(100);
    expect(Math.abs(proxy.counts[0] - proxy.counts[1])).toBeLessThanOrEqual(1);
  }, 240_000);
});
