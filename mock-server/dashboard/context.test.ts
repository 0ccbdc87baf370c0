import { describe, expect, it } from "vitest";
import { hashOf, routeOf } from "./context.js";
import { baseUrlOfPage } from "./api.js";

describe("routes and deep links", () => {
  const cases: [string, ReturnType<typeof routeOf>][] = [
    ["", { view: "requests" }],
    ["#/requests", { view: "requests" }],
    ["#/requests/42", { view: "requests", requestId: "42" }],
    ["#/faults", { view: "faults" }],
    ["#/coverage", { view: "coverage" }],
    ["#/nothing", { view: "requests" }],
    ["#/faults/9", { view: "faults" }],
  ];
  it.each(cases)("%s", (hash, route) => expect(routeOf(hash)).toEqual(route));

  it("writes back what it reads", () => {
    for (const route of [{ view: "clocks" as const }, { view: "requests" as const, requestId: "a b" }])
      expect(routeOf(hashOf(route))).toEqual(route);
  });

  it("finds the mock from its page, under a mount too", () => {
    expect(baseUrlOfPage({ origin: "http://h:1", pathname: "/__mock/ui" })).toBe("http://h:1");
    expect(baseUrlOfPage({ origin: "http://h:1", pathname: "/mock/__mock/ui/" })).toBe("http://h:1/mock");
  });
});
