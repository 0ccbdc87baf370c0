/**
 * The dashboard where it is mounted rather than served at the root: at /mock/__mock/ui inside a
 * createApp() mount in an Express app, and in a page of its own through mountDashboard over the MSW
 * handlers in a service worker (bundled by esbuild, as an app's bundler would, and served under a strict
 * Content-Security-Policy). In both, a request the app makes shows in the dashboard, with no error,
 * console error or CSP violation.
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, DEFAULT_API_KEY, type MockApp } from "../../app.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import { api, control, listen, watchedPage } from "./support.js";

const WORKER = fileURLToPath(new URL("../../../node_modules/msw/lib/mockServiceWorker.js", import.meta.url));

describe.skipIf(skipBrowser)(`the dashboard where it is mounted (${CHROMIUM})`, () => {
  let browser: Browser;
  let mounted: MockApp;
  let parent: Server;
  let parentUrl = "";
  let site: Server;
  let siteUrl = "";
  let apiOrigin = "";
  let bundle = "";

  beforeAll(async () => {
    const { default: express } = await import("express");
    mounted = createApp({ clock: { mode: "virtual" }, log: () => undefined });
    const app = express();
    app.get("/", (_req, res) => void res.send("the parent app"));
    app.use("/mock", mounted.app);
    parent = createServer(app);
    parentUrl = await listen(parent);
    expect((await fetch(`${parentUrl}/mock/__mock/ui/dashboard.js`)).status).toBe(200);

    const built = await build({
      entryPoints: [fileURLToPath(new URL("./msw-page.ts", import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    bundle = built.outputFiles[0].text;
    // The API's origin: a port free a moment ago and closed again, so only the service worker answers there.
    const probe = createServer();
    apiOrigin = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    site = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const csp = `default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ${apiOrigin}; worker-src 'self'`;
      const js = { "Content-Type": "text/javascript; charset=utf-8", "Content-Security-Policy": csp };
      if (path === "/")
        res
          .writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": csp })
          .end(
            `<!doctype html><html lang="en"><title>An app with the mock</title><main><h1>An app</h1>` +
              `<button id="load" type="button">Load calls</button><p id="result"></p></main>` +
              `<aside id="mock" aria-label="Mock"></aside><script type="module" src="/page.js"></script></html>`,
          );
      else if (path === "/page.js") res.writeHead(200, js).end(bundle);
      else if (path === "/mockServiceWorker.js") res.writeHead(200, js).end(readFileSync(WORKER));
      else res.writeHead(404).end();
    });
    siteUrl = await listen(site);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mounted?.close();
    parent?.closeAllConnections();
    await new Promise((resolve) => parent?.close(resolve));
    await new Promise((resolve) => site?.close(resolve));
  });

  it("works at /mock/__mock/ui inside a createApp() mount", async () => {
    const { page, problems, close } = await watchedPage(browser);
    try {
      await page.goto(`${parentUrl}/mock/__mock/ui`);
      await page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
      expect((await api(`${parentUrl}/mock`, DEFAULT_API_KEY, "/v1/calls?size=4")).status).toBe(200);
      const row = page.locator("tbody tr", { hasText: "/mock/v1/calls?size=4" });
      await row.waitFor({ timeout: 1000 });

      await row.getByRole("link").click();
      const [entry] = await control(`${parentUrl}/mock`, "/__mock/requests?operationId=listCalls&limit=1");
      await expect.poll(() => page.url()).toBe(`${parentUrl}/mock/__mock/ui#/requests/${entry.id}`);
      const curl = page.locator('[data-testid="curl"]');
      await curl.waitFor({ timeout: 2000 });
      expect(await curl.textContent()).toBe(`curl '${parentUrl}/mock/v1/calls?size=4' -H "x-api-key: $MOCK_API_KEY"`);
      // The other views read the mount's control plane too.
      await page.getByRole("link", { name: "Workspaces" }).click();
      await page.locator('article[data-workspace-id="default"]').waitFor({ timeout: 2000 });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("shows the in-page mock's requests in a mountDashboard() over the MSW handlers", async () => {
    const { page, problems, close } = await watchedPage(browser);
    try {
      await page.goto(`${siteUrl}/?api=${encodeURIComponent(apiOrigin)}`);
      await page.locator("body[data-ready=true]").waitFor({ timeout: 15_000 });
      await page.locator('#mock [data-live="live"]').waitFor({ timeout: 5000 });
      await page.getByRole("button", { name: "Load calls" }).click();
      await page.getByText("listCalls answered 200").waitFor({ timeout: 2000 });
      await page.locator("#mock tbody tr", { hasText: "/v1/calls?size=3" }).waitFor({ timeout: 1000 });
      // Mounted in an app, the dashboard leaves the app's address alone.
      await page.locator("#mock tbody tr a").first().click();
      await page
        .locator('#mock [data-testid="request-detail"] h3', { hasText: "GET /v1/calls" })
        .waitFor({ timeout: 2000 });
      expect(new URL(page.url()).hash).toBe("");
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
