import { describe, expect, it } from "vitest";
import { MockEvents } from "./events.js";

/** Reads the opening chunk, then returns the reader. */
async function opened(events: MockEvents, options: Parameters<MockEvents["subscribe"]>[0] = {}) {
  const reader = events.subscribe({ flushMs: 1, keepAliveMs: 1_000, ...options });
  expect(await reader.next()).toContain("retry: 2000");
  return reader;
}

describe("MockEvents", () => {
  it("is inactive without readers, so publishing costs nothing", () => {
    const events = new MockEvents();
    expect(events.active).toBe(false);
    events.publish("request", null, { id: "1" });
    const reader = events.subscribe();
    expect(events.active).toBe(true);
    reader.close();
    expect(events.active).toBe(false);
  });

  it("sends events in one batch, in order, as server-sent events", async () => {
    const events = new MockEvents();
    const reader = await opened(events);
    const next = reader.next();
    events.publish("request", "w1", { id: "1" });
    events.publish("fault", null, { change: "created", faultId: "fault-1" });
    expect(await next).toBe(
      'event: request\ndata: {"id":"1"}\n\nevent: fault\ndata: {"change":"created","faultId":"fault-1"}\n\n',
    );
    reader.close();
  });

  it("keeps only the newest events of a reader that does not read, and says how many it dropped", async () => {
    const events = new MockEvents();
    const reader = await opened(events, { capacity: 10 });
    for (let i = 1; i <= 25; i++) events.publish("request", null, { id: String(i) });
    expect(events.stats()).toEqual({ readers: 1, pending: 10 });
    const chunk = (await reader.next())!;
    expect(chunk.startsWith('event: dropped\ndata: {"count":15}\n\n')).toBe(true);
    expect([...chunk.matchAll(/"id":"(\d+)"/g)].map((m) => m[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => String(16 + i)),
    );
    expect(events.stats().pending).toBe(0);
    reader.close();
  });

  it("gives a reader of one workspace its events and the mock-wide ones only", async () => {
    const events = new MockEvents();
    const reader = await opened(events, { workspaceId: "w1" });
    const next = reader.next();
    events.publish("request", "w2", { id: "other" });
    events.publish("request", "w1", { id: "mine" });
    events.publish("clock", null, { workspaceId: null });
    const chunk = await next;
    expect(chunk).not.toContain("other");
    expect(chunk).toContain("mine");
    expect(chunk).toContain("event: clock");
    reader.close();
  });

  it("keeps an idle stream open with a comment, and ends every stream on close", async () => {
    const events = new MockEvents();
    const reader = await opened(events, { keepAliveMs: 5 });
    expect(await reader.next()).toBe(": keep-alive\n\n");
    const waiting = reader.next();
    events.close();
    expect(await waiting).toBeUndefined();
    expect(await reader.next()).toBeUndefined();
    expect(events.active).toBe(false);
  });
});
