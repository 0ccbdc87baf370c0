/**
 * The MSW door seeds its default workspace with a scenario too: createMockHandlers({ scenario }) serves
 * the every-variant world (held live calls, a running test run) in-process, as `--scenario` does.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient } from "../../../generated/client.js";
import { createMockHandlers } from "../../msw/handlers.js";

const baseUrl = "https://scenario.platform.test";
const { handlers, mock } = createMockHandlers({
  baseUrl,
  clock: "virtual",
  scenario: "every-variant",
  log: () => undefined,
});
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

describe("createMockHandlers({ scenario })", () => {
  it("serves the scenario's world from the default workspace", async () => {
    const scheduled = (await api.GET("/v1/calls", { params: { query: { status: "scheduled", size: 1, page: 1 } } }))
      .data!;
    expect([scheduled.totalCount, scheduled.hasPrevious, scheduled.hasNext]).toEqual([3, true, true]);
    const runs = (await api.GET("/v1/test-runs", { params: { query: { size: 100 } } })).data!;
    expect(runs.data.filter((r) => r.completedDate === null)).toHaveLength(2);
    expect(mock.services.workspaces.get("default")?.scenario).toBe("every-variant");
  });
});
