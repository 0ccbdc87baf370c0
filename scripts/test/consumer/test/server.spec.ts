/** A test against the server the global setup started: a workspace of its own, then the API through the typed client. */
import { expect, inject, test } from "vitest";
import { createControlClient, createPlatformClient } from "agent-platform-mock-kit/client";

test("gets a workspace of its own and reads an empty call list", async () => {
  const baseUrl = inject("apiUrl");
  const workspace = await createControlClient({ baseUrl }).POST("/__mock/workspaces", { body: { empty: true } });
  expect(workspace.response.status).toBe(201);
  const api = createPlatformClient({ baseUrl, apiKey: workspace.data!.apiKey });
  const calls = await api.GET("/v1/calls");
  expect(calls.data).toMatchObject({ data: [], totalCount: 0 });
});
