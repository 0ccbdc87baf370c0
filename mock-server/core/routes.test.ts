import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import { RouteTable } from "./routes.js";

function table() {
  const routes = new RouteTable<string>();
  routes.add("get", "/v1/calls/{callId}", "getCall");
  routes.add("post", "/v1/calls", "createCall");
  routes.add("get", "/v1/calls", "listCalls");
  routes.add("delete", "/v1/agents/{agentId}/webhooks/{webhookId}", "deleteWebhook");
  return routes;
}

describe("RouteTable", () => {
  it("matches a template, decoding each parameter", () => {
    expect(table().match("GET", "/v1/calls/call%201")).toEqual({
      found: true,
      target: "getCall",
      params: { callId: "call 1" },
    });
    expect(table().match("DELETE", "/v1/agents/a/webhooks/w")).toMatchObject({
      params: { agentId: "a", webhookId: "w" },
    });
  });

  it("matches literal segments case-insensitively and one trailing slash", () => {
    expect(table().match("GET", "/V1/CALLS/")).toMatchObject({ found: true, target: "listCalls" });
    expect(table().match("GET", "/v1/calls//")).toEqual({ found: false });
  });

  it("serves HEAD from a GET route", () => {
    expect(table().match("HEAD", "/v1/calls/c1")).toMatchObject({ found: true, target: "getCall" });
  });

  it("answers another method with the Allow list, HEAD after GET and OPTIONS last", () => {
    expect(table().match("PUT", "/v1/calls")).toEqual({ found: false, allow: "POST, GET, HEAD, OPTIONS" });
    expect(table().match("GET", "/v1/agents/a/webhooks/w")).toEqual({ found: false, allow: "DELETE, OPTIONS" });
  });

  it("does not let a parameter span segments, nor match an unknown path", () => {
    expect(table().match("GET", "/v1/calls/a/b")).toEqual({ found: false });
    expect(table().match("GET", "/v2/calls")).toEqual({ found: false });
  });

  it("refuses a parameter that is not valid percent-encoding with a 400", () => {
    let error: unknown;
    try {
      table().match("GET", "/v1/calls/%E0%A4%A");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
  });

  it("treats regular-expression characters in a template literally", () => {
    const routes = new RouteTable<string>();
    routes.add("GET", "/a.b/{x}", "dot");
    expect(routes.match("GET", "/a.b/1")).toMatchObject({ found: true });
    expect(routes.match("GET", "/aXb/1")).toEqual({ found: false });
  });
});
