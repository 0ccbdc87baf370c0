import { describe, expect, it } from "vitest";
import { CAPTURE_LIMIT, capped, type CapturedExchange } from "./journal.js";

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
