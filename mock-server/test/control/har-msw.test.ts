/**
 * The HAR export through the MSW door (createMockHandlers under msw/node): the control plane the page's
 * mock serves gives the page's own /v1 traffic as HAR, redacted, with nothing of Node needed on the
 * way (msw-browser.test.ts checks that the bundle pulls in no node: module).
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { harSchemaErrors } from "./har-readers.js";

const baseUrl = "https://api.platform.test";
const { handlers, mock } = createMockHandlers({ baseUrl, clock: "virtual", log: () => undefined });
const server = setupServer(...handlers);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(async () => {
  server.close();
  await mock.close();
});

describe("the HAR export under MSW", () => {
  it("shows the page's requests with their bodies, and no secret", async () => {
    const password = "SECRET-password-msw-1";
    const [integration] = (await (await fetch(`${baseUrl}/__mock/workspaces/default/integrations`)).json()) as {
      integrationId: string;
    }[];
    const sent = await fetch(`${baseUrl}/v1/integrations/${integration.integrationId}/auth`, {
      method: "POST",
      headers: { "X-API-Key": "mock-api-key", "Content-Type": "application/json" },
      body: JSON.stringify({ authType: "BASIC", username: "u", password }),
    });
    expect(sent.status).toBe(200);
    const res = await fetch(`${baseUrl}/__mock/requests.har`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const har = JSON.parse(text);
    expect(harSchemaErrors(har)).toEqual([]);
    expect(har.log.entries).toHaveLength(1);
    const [entry] = har.log.entries;
    expect(entry.request.url).toMatch(new RegExp(`/v1/integrations/${integration.integrationId}/auth$`));
    // The page's base URL's host, not localhost (fetch sends no Host header; the door supplies the URL's).
    expect(new URL(entry.request.url).host).toBe(new URL(baseUrl).host);
    expect(JSON.parse(entry.request.postData.text)).toEqual({
      authType: "BASIC",
      username: "u",
      password: "[redacted]",
    });
    expect(entry.response.status).toBe(200);
    expect(text).not.toContain(password);
    expect(text).not.toContain("mock-api-key");
  });
});
