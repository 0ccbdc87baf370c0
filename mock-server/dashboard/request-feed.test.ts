import { describe, expect, it } from "vitest";
import type { JournalEntry } from "./api.js";
import { RequestFeed } from "./request-feed.js";

const entry = (id: number): JournalEntry => ({
  id: String(id),
  at: "2026-01-01T00:00:00.000Z",
  method: "GET",
  path: "/v1/calls",
  operationId: "listCalls",
  workspaceId: "default",
  status: 200,
  durationMs: 1,
  faultId: null,
});

describe("RequestFeed", () => {
  it("keeps each entry once, newest first, loaded and live joined", () => {
    const feed = new RequestFeed(10);
    feed.add(entry(5));
    feed.add(entry(6));
    feed.merge([entry(6), entry(4), entry(3)]);
    feed.add(entry(7));
    expect(feed.list().map((e) => e.id)).toEqual(["7", "6", "5", "4", "3"]);
  });

  it("holds the newest `capacity` however many come", () => {
    const feed = new RequestFeed(100);
    for (let i = 1; i <= 10_000; i++) feed.add(entry(i));
    const list = feed.list();
    expect(list.length).toBe(100);
    expect(list[0].id).toBe("10000");
    expect(list.at(-1)!.id).toBe("9901");
    // An entry cut off may come back from a load: it is older than what is kept, so it stays out.
    feed.merge([entry(1)]);
    expect(feed.list().map((e) => e.id)).not.toContain("1");
  });

  it("tells its listeners of each change, a load included, until they stop", () => {
    const feed = new RequestFeed(10);
    let told = 0;
    const stop = feed.listen(() => told++);
    feed.add(entry(1));
    feed.add(entry(1));
    feed.merge([entry(2)]);
    expect(told).toBe(2);
    stop();
    feed.clear();
    expect(told).toBe(2);
  });

  it("builds the list once per change, and counts changes", () => {
    const feed = new RequestFeed(10);
    feed.add(entry(1));
    const version = feed.version;
    expect(feed.list()).toBe(feed.list());
    feed.add(entry(1));
    expect(feed.version).toBe(version);
    feed.clear();
    expect(feed.list()).toEqual([]);
    expect(feed.version).toBe(version + 1);
  });
});
