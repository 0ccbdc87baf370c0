/**
 * A spec author's new operations (the kit's spec plus voice profiles, a collection in the 2.1 page
 * wrapper, and a usage report answered from its schema) through every door: the node:http server,
 * Express, MSW, and two replicas on one Redis. The same round trip each time: created, read back,
 * listed newest first, changed, deleted, then the documented 404 in the 2.2 body; the usage report the
 * same for the same request; and a reference operation still served by its hand-written handler.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock, type RunningMock } from "../../server.js";
import { kitWithVoiceProfilesSpec } from "../generic-kit.js";
import { redisAvailable, startRedis, type RedisServer } from "../redis.js";

const KEY = "mock-api-key";
type Send = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

function sender(base: () => string): Send {
  return async (method, path, body) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { "X-API-Key": KEY, ...(body !== undefined && { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** The round trip a frontend team would make against the new collection; `other` reads what `send` wrote. */
async function roundTrip(send: Send, other: Send = send): Promise<void> {
  const first = await send("POST", "/v1/voice-profiles", { name: "Calm", language: "en" });
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ name: "Calm", language: "en", speed: 1, description: null, tags: [] });
  const second = await send("POST", "/v1/voice-profiles", { name: "Brisk", language: "de", speed: 1.5 });
  const id = first.body.voiceProfileId as string;
  expect(await other("GET", `/v1/voice-profiles/${id}`)).toEqual({ status: 200, body: first.body });
  const page = await other("GET", "/v1/voice-profiles?size=1");
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ data: [second.body], page: 0, size: 1, totalCount: 2, hasNext: true });
  expect((await other("GET", "/v1/voice-profiles?language=en")).body.data).toEqual([first.body]);
  expect((await send("GET", "/v1/voice-profiles?size=0")).status).toBe(400);
  const changed = await other("PATCH", `/v1/voice-profiles/${id}`, { description: "slow and low" });
  expect(changed.body).toMatchObject({ voiceProfileId: id, name: "Calm", description: "slow and low" });
  expect((await send("GET", `/v1/voice-profiles/${id}`)).body).toEqual(changed.body);
  expect((await send("DELETE", `/v1/voice-profiles/${id}`)).status).toBe(204);
  const gone = await other("GET", `/v1/voice-profiles/${id}`);
  expect(gone.status).toBe(404);
  // The whole path, a mount included (Express: /mock/v1/...).
  expect(gone.body).toMatchObject({ status: 404, error: "Not Found" });
  expect(gone.body.path).toMatch(new RegExp(`/v1/voice-profiles/${id}$`));
  const usage = await send("GET", "/v1/usage?month=2026-01");
  expect(usage.status).toBe(200);
  expect(await other("GET", "/v1/usage?month=2026-01")).toEqual(usage);
  expect((await send("GET", "/v1/agents")).body.data.length).toBeGreaterThan(0);
}

describe("a spec author's new operations through every door", () => {
  it("the node:http server", async () => {
    const mock = await startMock({ spec: kitWithVoiceProfilesSpec(), log: () => undefined });
    try {
      await roundTrip(sender(() => mock.url));
    } finally {
      await mock.close();
    }
  });

  it("createApp mounted in an Express app", async () => {
    const { app, close } = createApp({ spec: kitWithVoiceProfilesSpec(), log: () => undefined });
    const parent = express();
    parent.use("/mock", app);
    const server: Server = parent.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      await roundTrip(sender(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}/mock`));
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await close();
    }
  });

  it("MSW handlers in Node", async () => {
    const baseUrl = "https://api.platform.test";
    const { handlers, mock } = createMockHandlers({ baseUrl, spec: kitWithVoiceProfilesSpec(), log: () => undefined });
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: "error" });
    try {
      await roundTrip(sender(() => baseUrl));
    } finally {
      server.close();
      await mock.close();
    }
  });

  describe.skipIf(!redisAvailable())("two replicas on one Redis", () => {
    let redis: RedisServer;
    let one: RunningMock;
    let two: RunningMock;
    beforeAll(async () => {
      redis = await startRedis();
      one = await startMock({ spec: kitWithVoiceProfilesSpec(), store: redis.url, log: () => undefined });
      two = await startMock({ spec: kitWithVoiceProfilesSpec(), store: redis.url, log: () => undefined });
    }, 30_000);
    afterAll(async () => {
      await Promise.all([one?.close(), two?.close()]);
      await redis?.stop();
    });

    it("writes through one, reads and changes through the other", async () => {
      await roundTrip(
        sender(() => one.url),
        sender(() => two.url),
      );
    });
  });
});
