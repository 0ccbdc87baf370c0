// @vitest-environment jsdom
/**
 * A frontend unit test as an app writes it: vitest with jsdom, MSW's setupServer with the kit's
 * handlers, the kit's typed client. Blob, File and FormData are put back to Node's (as jest-fixed-jsdom
 * does) so that an upload leaves jsdom as a file.
 */
import { Blob as NodeBlob, File as NodeFile } from "node:buffer";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createControlClient, createPlatformClient } from "agent-platform-mock-kit/client";
import { createMockHandlers } from "agent-platform-mock-kit/msw";

const NodeFormData = (
  await new Response("", { headers: { "Content-Type": "application/x-www-form-urlencoded" } }).formData()
).constructor;
Object.assign(globalThis, { Blob: NodeBlob, File: NodeFile, FormData: NodeFormData });

const baseUrl = "https://api.example.com";
const { handlers } = createMockHandlers({ baseUrl, clock: "virtual" });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

test("runs under jsdom", () => {
  expect(document.createElement("div").tagName).toBe("DIV");
});

test("lists, creates and reads through the handlers", async () => {
  const api = createPlatformClient({ baseUrl, apiKey: "mock-api-key" });
  const list = await api.GET("/v1/agents", { params: { query: { size: 2 } } });
  expect(list.response.status).toBe(200);
  expect(list.data?.data).toHaveLength(2);
  const created = await api.POST("/v1/integrations", { body: { name: "CRM", description: "from a consumer" } });
  expect(created.response.status).toBe(201);
  const read = await api.GET("/v1/integrations/{integrationId}", {
    params: { path: { integrationId: created.data!.integrationId } },
  });
  expect(read.data).toEqual(created.data);
  const refused = await createPlatformClient({ baseUrl, apiKey: "wrong" }).GET("/v1/calls");
  expect(refused.error).toMatchObject({ status: 401, path: "/v1/calls" });
});

test("takes an upload and serves the control plane", async () => {
  const form = new FormData();
  form.append("name", "Handbook");
  form.append(
    "knowledge_base_files",
    new File(["# Returns\nWithin 30 days."], "returns.md", { type: "text/markdown" }),
  );
  const upload = await fetch(`${baseUrl}/v1/knowledge-bases`, {
    method: "POST",
    headers: { "X-API-Key": "mock-api-key" },
    body: form,
  });
  expect(upload.status).toBe(201);
  const control = createControlClient({ baseUrl });
  const count = await control.GET("/__mock/requests/count", {
    params: { query: { operationId: "createKnowledgeBase" } },
  });
  expect(count.data).toEqual({ count: 1 });
});
