/**
 * Every view of the dashboard, in Chromium at 1280x800 and at a 390x844 phone, over a mock with some of
 * everything (requests of several statuses, a fault rule that applied, a verified webhook delivery, calls
 * with pending work): axe-core finds no serious or critical violation, the phone needs no sideways scroll
 * of the page, and nothing errs or breaks the CSP. The screenshots go into
 * mock-server/docs/dashboard/<view>-<width>.png, which the docs embed, whenever the dashboard or what a
 * view shows changed since they were taken (support.ts Screenshots).
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import {
  api,
  control,
  listen,
  NARROW,
  SCREENSHOTS,
  Screenshots,
  seriousViolations,
  WIDE,
  watchedPage,
} from "./support.js";

/** Each view, where it opens, and what shows once it has loaded. */
const VIEWS: { name: string; hash: (ids: { refused: string }) => string; ready: string }[] = [
  {
    name: "requests",
    hash: ({ refused }) => `#/requests/${refused}`,
    ready: '[data-testid="request-detail"] [data-testid="curl"]',
  },
  { name: "webhooks", hash: () => "#/webhooks", ready: "article[data-delivery-id] .badge.ok" },
  { name: "faults", hash: () => "#/faults", ready: "tr[data-fault-id]" },
  { name: "clocks", hash: () => "#/clocks", ready: "tr[data-ref]" },
  { name: "workspaces", hash: () => "#/workspaces", ready: 'article[data-workspace-id="default"]' },
  { name: "coverage", hash: () => "#/coverage", ready: "#coverage-percent" },
];

describe.skipIf(skipBrowser)(`the dashboard's views, read by axe-core and photographed (${CHROMIUM})`, () => {
  let running: RunningMock;
  let browser: Browser;
  let receiver: Server;
  let refused = "";
  let screenshots: Screenshots;

  beforeAll(async () => {
    running = await startMock({ clock: "virtual", log: () => undefined });
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end('{"received":true}'));
    });
    const receiverUrl = await listen(receiver);
    const { url, apiKey } = running;
    // Some of everything, as an app's session would leave it.
    await control(url, "/__mock/faults", { method: "POST", body: { operationId: "listCalls", status: 500, times: 2 } });
    await api(url, apiKey, "/v1/calls?size=5");
    await api(url, apiKey, "/v1/calls?size=5");
    await api(url, apiKey, "/v1/agents");
    await api(url, apiKey, "/v1/calls/no-such-call");
    await api(url, "wrong-key", "/v1/agents");
    await api(url, apiKey, "/v1/integrations", { method: "POST", body: { name: 7, type: "webhook" } });
    const [entry] = await control(url, "/__mock/requests?operationId=createIntegration&status=400&limit=1");
    refused = entry.id;
    const agents = await (await api(url, apiKey, "/v1/agents")).json();
    const agentId = agents.data[0].agentId;
    await control(url, "/__mock/workspaces/default/webhooks", {
      method: "POST",
      body: { agentId, url: `${receiverUrl}/hooks`, events: "conversation_started", active: true },
    });
    await api(url, apiKey, "/v1/chat", { method: "POST", body: { agentId, conversation: "Hello" } });
    await control(url, "/__mock/workspaces", { method: "POST", body: { seed: 7 } });
    const script = await fetch(`${url}/__mock/ui/dashboard.js`);
    expect(script.status).toBe(200);
    mkdirSync(SCREENSHOTS, { recursive: true });
    screenshots = new Screenshots(await script.text());
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    screenshots?.save();
    await browser?.close();
    await running?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it.each([
    ["1280x800", WIDE],
    ["390x844", NARROW],
  ])(
    "at %s: no serious or critical axe violation, no sideways scroll, a screenshot of each view",
    async (_, viewport) => {
      const { page, problems, close } = await watchedPage(browser, viewport);
      try {
        await page.goto(`${running.url}/__mock/ui`);
        await page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
        const found: string[] = [];
        for (const view of VIEWS) {
          await page.evaluate((hash) => void (location.hash = hash), view.hash({ refused }));
          await page.locator(view.ready).first().waitFor({ timeout: 3000 });
          await page.locator(`nav a[aria-current="page"][href="#/${view.name}"]`).waitFor({ timeout: 1000 });
          for (const v of await seriousViolations(page))
            found.push(`${view.name}: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(", ")}`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `${view.name} scrolls sideways at ${viewport.width}px`).toBeLessThanOrEqual(0);
          await screenshots.take(page, `${view.name}-${viewport.width}`);
        }
        expect(found).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
    45_000,
  );
});
