/** E2-E5: create, get, partial update, credentials never echoed. */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

describe("integrations", () => {
  it("creates with 201, tools [] and UTC timestamps; gets it back", async () => {
    const { data, response } = await t.api.POST("/v1/integrations", {
      body: { name: "CRM", description: "Customers" },
    });
    expect(response.status).toBe(201);
    expect(data!.tools).toEqual([]);
    expect(data!.createdAt).toMatch(/Z$/);
    const got = await t.api.GET("/v1/integrations/{integrationId}", {
      params: { path: { integrationId: data!.integrationId } },
    });
    expect(got.data).toEqual(data);
  });

  it("changes only the fields sent, and moves updatedAt", async () => {
    const { data: created } = await t.api.POST("/v1/integrations", {
      body: { name: "Billing", description: "Invoices" },
    });
    const { data: updated, response } = await t.api.PATCH("/v1/integrations/{integrationId}", {
      params: { path: { integrationId: created!.integrationId } },
      body: { description: "Invoices and refunds" },
    });
    expect(response.status).toBe(200);
    expect(updated!.name).toBe("Billing");
    expect(updated!.description).toBe("Invoices and refunds");
    expect(Date.parse(updated!.updatedAt)).toBeGreaterThan(Date.parse(created!.updatedAt));
    expect(updated!.createdAt).toBe(created!.createdAt);
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: 42 }, "name"],
    [{ name: "x", color: "red" }, "color"],
  ])("rejects %j with 400 naming %s", async (body, field) => {
    const res = await t.raw("/v1/integrations", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const error = await res.json();
    expectErrorBody(error, 400, "/v1/integrations");
    expect(error.validationErrors).toHaveProperty(field);
  });

  it("answers malformed JSON and a non-JSON body with 400", async () => {
    const malformed = await t.raw("/v1/integrations", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    const text = await t.raw("/v1/integrations", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "name=x",
    });
    expect(text.status).toBe(400);
    expectErrorBody(await text.json(), 400, "/v1/integrations");
  });

  it("answers a JSON body over 1 MB with 413", async () => {
    const body = JSON.stringify({ name: "x", description: "y".repeat(1024 * 1024) });
    const res = await t.raw("/v1/integrations", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect(res.status).toBe(413);
    expectErrorBody(await res.json(), 413, "/v1/integrations");
  });

  it("answers unknown ids with 404 on get, update and auth", async () => {
    for (const [method, path, body] of [
      ["GET", "/v1/integrations/nope", undefined],
      ["PATCH", "/v1/integrations/nope", { name: "x" }],
      ["POST", "/v1/integrations/nope/auth", { authType: "NONE" }],
    ] as const) {
      const res = await t.raw(path, {
        method,
        headers: { "Content-Type": "application/json" },
        body: body && JSON.stringify(body),
      });
      expect(res.status).toBe(404);
      expectErrorBody(await res.json(), 404, path);
    }
  });

  const secrets = {
    BEARER: { authType: "BEARER", token: "tok-SECRET-1" },
    BASIC: { authType: "BASIC", username: "user", password: "pw-SECRET-2" },
    API_KEY: { authType: "API_KEY", apiKey: { key: "X-Token", value: "key-SECRET-3", position: "query" } },
    NONE: { authType: "NONE", headers: [{ key: "Accept", value: "application/json" }] },
  } as const;

  it.each(Object.entries(secrets))("stores %s credentials and never echoes them", async (authType, body) => {
    const { data: created } = await t.api.POST("/v1/integrations", { body: { name: `auth ${authType}` } });
    const path = `/v1/integrations/${created!.integrationId}/auth`;
    const res = await t.raw(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const summaryText = await res.text();
    const summary = JSON.parse(summaryText);
    expect(summary.authType).toBe(authType);
    expect(Object.keys(summary).sort()).toEqual([
      "authId",
      "authType",
      "createdAt",
      "headers",
      "integrationId",
      "updatedAt",
    ]);
    const after = await (await t.raw(`/v1/integrations/${created!.integrationId}`)).text();
    const everything =
      summaryText + after + JSON.stringify(await (await t.raw("/__mock/workspaces/default/integrations")).json());
    expect(everything).not.toMatch(/SECRET/);
    expect(JSON.parse(after).authentication.authId).toBe(summary.authId);
  });

  it.each([
    [{ authType: "BEARER" }, "token"],
    [{ authType: "BASIC", username: "u" }, "password"],
    [{ authType: "API_KEY", apiKey: { key: "k", value: "v" } }, "apiKey.position"],
    [{ authType: "API_KEY", apiKey: { key: "k", value: "v", position: "cookie" } }, "apiKey.position"],
    [{ authType: "OAUTH" }, "authType"],
    [{ authType: "BEARER", token: "t", password: "p" }, "password"],
  ])("rejects auth %j with 400 naming %s", async (body, field) => {
    const { data: created } = await t.api.POST("/v1/integrations", { body: { name: "bad auth" } });
    const res = await t.raw(`/v1/integrations/${created!.integrationId}/auth`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).validationErrors).toHaveProperty(field);
    const after = await t.api.GET("/v1/integrations/{integrationId}", {
      params: { path: { integrationId: created!.integrationId } },
    });
    expect(after.data!.authentication).toBeNull();
  });
});
