/**
 * Routing of the spec's operations as Express 5 routes them (kept by any change of the routing), and the journal's
 * redaction of query secrets (its fast path must not let one through).
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const h = useMock();

async function firstCallId(): Promise<string> {
  const body = (await (await h.raw("/v1/calls?page=0&size=1")).json()) as { data: { callId: string }[] };
  return body.data[0].callId;
}

describe("routing of /v1 operations", () => {
  it("matches paths case-insensitively, with one optional trailing slash", async () => {
    const callId = await firstCallId();
    for (const path of ["/V1/CALLS", "/v1/calls/", `/v1/Calls/${callId}/`])
      expect((await h.raw(path)).status, path).toBe(200);
    for (const path of ["/v1/calls//", "//v1/calls", `/v1/calls/${callId}/x`])
      expectErrorBody(await (await h.raw(path)).json(), 404, path);
  });

  it("decodes path parameters, and answers a malformed escape with 400", async () => {
    const callId = await firstCallId();
    const escaped = `/v1/calls/%${callId.charCodeAt(0).toString(16)}${callId.slice(1)}`;
    expect(((await (await h.raw(escaped)).json()) as { callId: string }).callId).toBe(callId);
    const res = await h.raw("/v1/calls/%E0%A4%A");
    expect(res.status).toBe(400);
    expectErrorBody(await res.json(), 400, "/v1/calls/%E0%A4%A");
  });

  it("answers HEAD like GET without a body, OPTIONS with Allow, other methods with 405 and Allow", async () => {
    const head = await h.raw("/v1/calls", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const options = await h.raw("/v1/integrations/x", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, PATCH, HEAD, OPTIONS");
    for (const [method, path, allow] of [
      ["PUT", "/v1/calls", "GET, HEAD, OPTIONS"],
      ["HEAD", "/v1/chat", "POST, OPTIONS"],
      ["DELETE", "/v1/phone-number/x", "PATCH, OPTIONS"],
    ]) {
      const res = await h.raw(path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      if (method !== "HEAD") expectErrorBody(await res.json(), 405, path);
    }
  });

  it("checks the key before anything else of an operation", async () => {
    expectErrorBody(await (await h.raw("/v1/calls?page=-1", { key: null })).json(), 401, "/v1/calls");
  });
});

describe("journal", () => {
  it("redacts secrets in the query, spelled plainly or escaped, and keeps other queries as sent", async () => {
    await h.control.DELETE("/__mock/requests");
    for (const query of ["page=0&size=2", "api_key=s1&page=0", "%6Bey=s2", "status=ended&Token=s3"])
      await h.raw(`/v1/calls?${query}`);
    const { data } = await h.control.GET("/__mock/requests");
    const queries = (data as { path: string; query: string }[])
      .filter((e) => e.path === "/v1/calls")
      .map((e) => e.query)
      .reverse();
    expect(queries).toEqual([
      "page=0&size=2",
      "api_key=REDACTED&page=0",
      "%6Bey=REDACTED",
      "status=ended&Token=REDACTED",
    ]);
  });
});
