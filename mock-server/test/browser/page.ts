/**
 * The page of the browser test (msw-browser.test.ts): the MSW handlers in a service worker, and the
 * typed client calling an API origin where no server listens. What it did is written into #result.
 */
import { setupWorker } from "msw/browser";
import { createPlatformClient } from "../../../generated/client.js";
import { createMockHandlers } from "../../msw/handlers.js";

const api = new URLSearchParams(location.search).get("api")!;
const out = document.querySelector("#result")!;

async function run(): Promise<unknown> {
  const { handlers } = createMockHandlers({ baseUrl: api, clock: "virtual" });
  await setupWorker(...handlers).start({
    serviceWorker: { url: "/mockServiceWorker.js" },
    quiet: true,
    onUnhandledRequest: "error",
  });
  const client = createPlatformClient({ baseUrl: api, apiKey: "mock-api-key" });

  const calls = await client.GET("/v1/calls", { params: { query: { page: 0, size: 5 } } });
  const integrations = (await (await fetch(`${api}/__mock/workspaces/default/integrations`)).json()) as {
    integrationId: string;
  }[];
  const integrationId = integrations[0].integrationId;
  const patched = await client.PATCH("/v1/integrations/{integrationId}", {
    params: { path: { integrationId } },
    body: { description: "patched in the browser" },
  });
  const readBack = await client.GET("/v1/integrations/{integrationId}", { params: { path: { integrationId } } });
  const refused = await createPlatformClient({ baseUrl: api, apiKey: "wrong" }).GET("/v1/calls");
  return {
    calls: {
      status: calls.response.status,
      ids: calls.data?.data.map((c) => c.callId),
      totalCount: calls.data?.totalCount,
    },
    integrationId,
    patched: { status: patched.response.status, description: patched.data?.description },
    readBack: { status: readBack.response.status, description: readBack.data?.description },
    refused: { status: refused.response.status, error: refused.error },
  };
}

run().then(
  (result) => void (out.textContent = JSON.stringify(result)),
  (error) => void (out.textContent = JSON.stringify({ failed: String(error?.stack ?? error) })),
);
