import { describe, expect, it } from "vitest";
import { generatedSpec } from "../core/spec.js";
import { parseRouteTable, RouteModes } from "./route-modes.js";

const ops = generatedSpec().document;

describe("route modes", () => {
  it("reads OP=MODE pairs and the * default", () => {
    const modes = new RouteModes(parseRouteTable("listCalls=mock, getCall=fallback,*=mock", ops));
    expect(modes.modeOf("listCalls")).toBe("mock");
    expect(modes.modeOf("getCall")).toBe("fallback");
    expect(modes.modeOf("createChat")).toBe("mock");
  });

  it("forwards everything by default", () => {
    expect(new RouteModes(parseRouteTable("", ops)).modeOf("getCall")).toBe("upstream");
    expect(new RouteModes().describe()).toBe("everything upstream");
  });

  it("reads the JSON of a route file", () => {
    const modes = new RouteModes(parseRouteTable({ createChat: "mock", "*": "fallback" }, ops));
    expect(modes.modeOf("createChat")).toBe("mock");
    expect(modes.modeOf("listCalls")).toBe("fallback");
    expect(modes.describe()).toBe("createChat=mock; everything else fallback");
  });

  it("refuses an unknown operation, an unknown mode and a malformed pair, in one line each", () => {
    expect(() => parseRouteTable("listCall=mock", ops)).toThrow(/listCall, which is not an operation/);
    expect(() => parseRouteTable("listCalls=proxy", ops)).toThrow(/mock, upstream or fallback/);
    expect(() => parseRouteTable("listCalls", ops)).toThrow(/OP=MODE/);
    expect(() => parseRouteTable([] as unknown as object, ops)).toThrow(/JSON object/);
  });
});
