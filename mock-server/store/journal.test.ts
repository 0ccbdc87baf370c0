import { describe, expect, it } from "vitest";
import { CAPTURE_LIMIT, capped, entryJson, format, isoOf, type CapturedExchange } from "./journal.js";

const exchange = (responseBody: string | Uint8Array): CapturedExchange => ({
  requestHeaders: {},
  responseHeaders: {},
  responseBody,
});

describe("capped", () => {
  it("keeps a body within the limit as it is, by reference", () => {
    const small = exchange("é".repeat(CAPTURE_LIMIT / 2));
    expect(capped(small)).toBe(small);
  });

  it("cuts a text over the limit at a character boundary and keeps its whole size", () => {
    const text = `{"a":"${"é€".repeat(30_000)}"}`;
    const bytes = new TextEncoder().encode(text);
    const out = capped(exchange(text));
    const cut = out.responseBody as Uint8Array;
    expect(out.responseBytes).toBe(bytes.length);
    expect(cut.length).toBeLessThanOrEqual(CAPTURE_LIMIT);
    expect(cut.length).toBeGreaterThan(CAPTURE_LIMIT - 3);
    expect(text.startsWith(new TextDecoder("utf-8", { fatal: true }).decode(cut))).toBe(true);
  });

  it("cuts bytes over the limit", () => {
    const out = capped(exchange(new Uint8Array(CAPTURE_LIMIT + 10).fill(7)));
    expect((out.responseBody as Uint8Array).length).toBe(CAPTURE_LIMIT);
    expect(out.responseBytes).toBe(CAPTURE_LIMIT + 10);
  });
});

describe("entryJson", () => {
  const base = {
    seq: 7,
    atMs: Date.UTC(2026, 10, 1, 12, 0, 0, 5),
    method: "GET",
    url: "/v1/calls?page=0&size=2",
    operationId: "listCalls",
    workspaceId: "default",
    status: 200,
    durationMs: 1.23456,
    faultId: null,
  };

  it.each([
    ["an answered request", base],
    [
      "a reset connection of no workspace, on no operation",
      { ...base, status: null, workspaceId: null, operationId: null },
    ],
    ["a fault, in front of an upstream", { ...base, faultId: "fault-2", source: "fallback" as const }],
    ["no query, quotes and a line break in the path", { ...base, url: '/v1/calls/"a\nb' }],
    ["a time before 1970 and a round second", { ...base, atMs: -1_500 }],
  ])("is the JSON of format() for %s", (_, recorded) => {
    expect(JSON.parse(entryJson(recorded))).toEqual(format(recorded));
    expect(entryJson(recorded)).toBe(JSON.stringify(format(recorded)));
  });

  it("gives every millisecond its own time, across seconds", () => {
    for (const ms of [0, 999, 1000, 1001, 59_999, 60_000, base.atMs, base.atMs + 999])
      expect(isoOf(ms)).toBe(new Date(ms).toISOString());
  });
});
