// @vitest-environment jsdom
/**
 * The MSW door where frontend unit tests run: vitest with jsdom, msw's setupServer, the typed client.
 * A JSON write, a read, a multipart upload (E9) and a control-plane call, all served in-process.
 * Blob, File and FormData are put back to Node's, as jest-fixed-jsdom does: under jsdom they are
 * jsdom's, which Node's fetch cannot send as files (a file part goes out as the text "[object File]"),
 * whatever answers the request. Frontend tests under jsdom meet this with any server.
 */
import { Blob as NodeBlob, File as NodeFile } from "node:buffer";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlClient, createPlatformClient } from "../../../generated/client.js";
import { createMockHandlers } from "../../msw/handlers.js";

// Node's FormData is not importable by name; a form Node's own Response parsed is one.
const NodeFormData = (
  await new Response("", { headers: { "Content-Type": "application/x-www-form-urlencoded" } }).formData()
).constructor;
Object.assign(globalThis, { Blob: NodeBlob, File: NodeFile, FormData: NodeFormData });

const baseUrl = "https://api.platform.test";
const { handlers, mock } = createMockHandlers({ baseUrl, clock: "virtual", log: () => undefined });
const server = setupServer(...handlers);
// Made after listen(): openapi-fetch takes globalThis.fetch when a client is created, and msw patches it in listen().
let api: ReturnType<typeof createPlatformClient>;

beforeAll(() => {
  server.listen({ onUnhandledRequest: "error" });
  api = createPlatformClient({ baseUrl, apiKey: "mock-api-key" });
});
afterAll(async () => {
  server.close();
  await mock.close();
});

describe("MSW handlers under jsdom", () => {
  it("runs in a jsdom window", () => {
    expect(typeof window).toBe("object");
    expect(document.createElement("div").tagName).toBe("DIV");
  });

  it("creates an integration, reads it back, and refuses a bad key with the 2.2 body", async () => {
    const created = await api.POST("/v1/integrations", { body: { name: "CRM", description: "from jsdom" } });
    expect(created.response.status).toBe(201);
    const read = await api.GET("/v1/integrations/{integrationId}", {
      params: { path: { integrationId: created.data!.integrationId } },
    });
    expect(read.data).toEqual(created.data);
    const refused = await createPlatformClient({ baseUrl, apiKey: "nope" }).GET("/v1/calls");
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ status: 401, error: "Unauthorized", path: "/v1/calls" });
  });

  it("takes a multipart upload and judges its file by content", async () => {
    const form = new FormData();
    form.append("name", "Handbook");
    form.append(
      "knowledge_base_files",
      new File(["# Returns\nWithin 30 days."], "returns.md", { type: "text/markdown" }),
    );
    const ok = await fetch(`${baseUrl}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": "mock-api-key" },
      body: form,
    });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { files: { type: string; content: string }[] }).files).toEqual([
      expect.objectContaining({ type: "file", content: "returns.md" }),
    ]);

    const fake = new FormData();
    fake.append("name", "Fake");
    fake.append("knowledge_base_files", new File(["not a pdf"], "report.pdf", { type: "application/pdf" }));
    const refused = await fetch(`${baseUrl}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": "mock-api-key" },
      body: fake,
    });
    expect(refused.status).toBe(415);
  });

  it("serves the control plane: the clock moves and the journal saw the requests", async () => {
    const control = createControlClient({ baseUrl });
    const before = (await control.GET("/__mock/clock")).data!.now;
    await control.POST("/__mock/clock/advance", { body: { seconds: 60 } });
    const after = (await control.GET("/__mock/clock")).data!.now;
    expect(Date.parse(after) - Date.parse(before)).toBe(60_000);
    const journal = (await control.GET("/__mock/requests")).data as { path: string; status: number }[];
    expect(journal.some((e) => e.path === "/v1/knowledge-bases" && e.status === 415)).toBe(true);
  });
});
