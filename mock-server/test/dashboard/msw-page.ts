/**
 * The page of the MSW dashboard test (mounts.test.ts): an "app" whose API is the MSW handlers in a
 * service worker, with the dashboard mounted beside it by mountDashboard, reading the control plane
 * the handlers serve. The app's button sends a request; the dashboard should show it.
 */
import { setupWorker } from "msw/browser";
import { mountDashboard } from "../../dashboard/mount.js";
import { createMockHandlers } from "../../msw/handlers.js";

const api = new URLSearchParams(location.search).get("api")!;
const result = document.querySelector("#result")!;

const { handlers } = createMockHandlers({ baseUrl: api, clock: "virtual", log: () => undefined });
await setupWorker(...handlers).start({
  serviceWorker: { url: "/mockServiceWorker.js" },
  quiet: true,
  onUnhandledRequest: "bypass",
});
mountDashboard(document.querySelector<HTMLElement>("#mock")!, { baseUrl: api });

document.querySelector("#load")!.addEventListener("click", async () => {
  const response = await fetch(`${api}/v1/calls?size=3`, { headers: { "X-API-Key": "mock-api-key" } });
  result.textContent = `listCalls answered ${response.status}`;
});
document.body.dataset.ready = "true";
