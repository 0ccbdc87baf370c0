/**
 * Another document on two replicas sharing one Redis (`--spec FILE --store redis://`): a credential's
 * workspace, made on its first request through one replica, is the same workspace through the other,
 * and two credentials stay two workspaces there too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { redisAvailable, startRedis, type RedisServer } from "../redis.js";
import { client, NOTES } from "./support.js";

const basic = (user: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:pw`).toString("base64")}` });

describe.skipIf(!redisAvailable())("another document on two replicas of one Redis", () => {
  let redis: RedisServer;
  let one: RunningMock;
  let two: RunningMock;

  beforeAll(async () => {
    redis = await startRedis();
    one = await startMock({ spec: NOTES, store: redis.url, log: () => undefined });
    two = await startMock({ spec: NOTES, store: redis.url, log: () => undefined });
  }, 30_000);
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await redis?.stop();
  });

  it("serves a credential's records through either replica, and keeps each credential's own", async () => {
    const annOnOne = client(() => `${one.url}/notes-api`, basic("ann"));
    const annOnTwo = client(() => `${two.url}/notes-api`, basic("ann"));
    const benOnTwo = client(() => `${two.url}/notes-api`, basic("ben"));
    const created = await annOnOne("POST", "/notes", { title: "Shared" });
    expect(created.status).toBe(201);
    expect(await annOnTwo("GET", `/notes/${created.body.noteId}`)).toMatchObject({ status: 200, body: created.body });
    expect((await annOnTwo("GET", "/notes")).body).toEqual([created.body]);
    expect((await benOnTwo("GET", "/notes")).body).toEqual([]);
    const bens = await benOnTwo("POST", "/notes", { title: "Ben's" });
    expect((await client(() => `${one.url}/notes-api`, basic("ben"))("GET", "/notes")).body).toEqual([bens.body]);
    // One workspace per credential, made once, whichever replica saw it first; named by a hash, not the credential.
    const listed = await (await fetch(`${one.url}/__mock/workspaces`)).json();
    const ids: string[] = (listed.data ?? listed).map((w: { workspaceId: string }) => w.workspaceId);
    expect(ids.filter((id) => id.startsWith("cred-"))).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toMatch(/ann:pw|YW5uOnB3/);
  });
});
