import { describe, expect, it } from "vitest";
import { firstOrderViolation } from "./list-order.js";

const at = (...times: (string | null)[]) => times.map((createdAt, i) => ({ id: i, createdAt }));

describe("firstOrderViolation", () => {
  it("passes items in order, equal timestamps included", () => {
    expect(
      firstOrderViolation(
        at("2026-01-03T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z"),
        "createdAt",
        "newest-first",
      ),
    ).toBeUndefined();
    expect(
      firstOrderViolation(at("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"), "createdAt", "oldest-first"),
    ).toBeUndefined();
    expect(firstOrderViolation([], "createdAt", "newest-first")).toBeUndefined();
  });

  it("names the first item out of order, with both timestamps as the items hold them", () => {
    const items = at("2026-01-03T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z");
    expect(firstOrderViolation(items, "createdAt", "newest-first")).toEqual({
      index: 2,
      before: "2026-01-01T00:00:00Z",
      after: "2026-01-02T00:00:00Z",
    });
  });

  it("leaves timestamps that do not parse to the schema", () => {
    expect(
      firstOrderViolation(at("2026-01-01T00:00:00Z", null, "2026-01-02T00:00:00Z"), "createdAt", "newest-first"),
    ).toBeUndefined();
  });
});
