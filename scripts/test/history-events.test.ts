import { describe, expect, it } from "vitest";
import { multisetDifference } from "../soak/history/end-checks.js";

describe("multisetDifference", () => {
  it("tells events in other numbers apart, not only events absent on one side", () => {
    expect(multisetDifference(["a", "b", "b"], ["a", "a", "b"])).toEqual({ missing: ["b"], extra: ["a"] });
    expect(multisetDifference(["a", "b"], ["b", "a"])).toEqual({ missing: [], extra: [] });
    expect(multisetDifference(["a"], [])).toEqual({ missing: ["a"], extra: [] });
  });
});
