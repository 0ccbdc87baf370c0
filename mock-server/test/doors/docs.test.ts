/**
 * /docs: Swagger UI served from node_modules by the mock (docs/site.ts), checked in Debian's Chromium
 * driven by playwright-core. Every request the pages make must stay on the mock (anything else is
 * aborted and fails the test), and the pages run under their strict CSP without a console error.
 * DOCS_SCREENSHOTS=/tmp writes screenshots there (docs-api.png, docs-authorize.png, docs-try-it.png,
 * docs-prefer.png, docs-control.png) to look at.
 */
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultContract } from "../../core/contract.js";
import { preferChoices } from "../../docs-site/specs.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import { useMock } from "../harness.js";

const t = useMock();
const SCREENSHOTS = process.env.DOCS_SCREENSHOTS;
const controlSpec = JSON.parse(readFileSync(new URL("../../../generated/mock-control.json", import.meta.url), "utf8"));
const controlIds: string[] = Object.values<Record<string, any>>(controlSpec.paths).flatMap((item) =>
  Object.values<any>(item)
    .map((op) => op?.operationId)
    .filter(Boolean),
);
const contract = defaultContract();
const apiIds = contract.operations.map((op) => op.operationId);

describe("docs site over HTTP", () => {
  it("serves the page under a CSP without inline script, and assets with a cache lifetime", async () => {
    const page = await t.raw("/docs");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    const html = await page.text();
    // Settings travel as JSON data; every executable script is a file of the site.
    expect(html).toContain(`"apiKey":"${t.mock.apiKey}"`);
    for (const tag of html.match(/<script\b[^>]*>/g) ?? [])
      expect(tag).toMatch(/src="docs\/[\w.-]+\.js"|type="application\/json"/);
    // The contents list names every operation.
    for (const id of apiIds) expect(html).toContain(`data-operation-id="${id}"`);

    const bundle = await t.raw("/docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
    expect((await t.raw("/docs/nope.js")).status).toBe(404);
    expect((await t.raw("/docs/constructor")).status).toBe(404);
  });

  it("gives every operation of the docs spec a Prefer picker, and points try-it at the mock", async () => {
    const spec = await (await t.raw("/docs/openapi.json")).json();
    expect(spec.servers).toEqual([expect.objectContaining({ url: ".." })]);
    for (const op of contract.operations) {
      const prefer = spec.paths[op.path][op.method].parameters.find((p: any) => p.name === "Prefer");
      expect(prefer, op.operationId).toMatchObject({ in: "header", schema: { enum: preferChoices(op) } });
      for (const status of op.responses.keys()) expect(prefer.schema.enum).toContain(`code=${status}`);
    }
    // The spec the mock itself serves does not document Prefer: it is not the platform's.
    expect(JSON.stringify(contract.document.paths)).not.toContain('"name":"Prefer"');
    const control = await (await t.raw("/docs/mock-control.json")).json();
    expect(control.servers).toEqual([expect.objectContaining({ url: ".." })]);
  });
});

describe.skipIf(skipBrowser)(`docs in headless Chromium (${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A page in a fresh context (no stored authorization) that may only talk to the mock. */
  async function open(path: string, run: (page: Page) => Promise<void>, expectErrors = false): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const offsite: string[] = [];
    const errors: string[] = [];
    const missing: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${t.url}/`)) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
    page.on("pageerror", (error) => void errors.push(error.message));
    page.on(
      "response",
      (response) =>
        void (
          new URL(response.url()).pathname.startsWith("/docs") &&
          response.status() >= 400 &&
          missing.push(response.url())
        ),
    );
    try {
      await page.goto(t.url + path);
      await run(page);
      expect(offsite).toEqual([]);
      expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
      if (!expectErrors) {
        expect(missing).toEqual([]);
        // Chromium logs every 4xx answer; try-it asks for some (Prefer: code=404).
        expect(
          errors.filter((e) => !e.startsWith("Failed to load resource: the server responded with a status of")),
        ).toEqual([]);
      }
    } finally {
      await context.close();
    }
  }

  /** Executes the operation's request as filled in: the status Swagger UI shows, once it shows the new answer. */
  async function execute(page: Page, operationId: string): Promise<string> {
    const op = page.locator(`.opblock[id$="-${operationId}"]`);
    const answered = page.waitForResponse((r) => !new URL(r.url()).pathname.startsWith("/docs"));
    await op.locator("button.execute").click();
    const status = String((await answered).status());
    const shown = op.locator(".live-responses-table tbody .response-col_status");
    await expect.poll(async () => (await shown.count()) > 0 && (await shown.textContent())!.trim()).toBe(status);
    return status;
  }

  it("shows every /v1 operation with the default key already authorized", async () => {
    await open("/docs", async (page) => {
      await page.locator(".opblock").first().waitFor();
      const shown = await page.locator(".opblock-summary-path[data-path^='/v1/']").count();
      expect(shown).toBe(apiIds.length);
      const ids = await page
        .locator(".opblock:has(.opblock-summary-path[data-path^='/v1/']) .opblock-summary-operation-id")
        .allTextContents();
      expect(new Set(ids)).toEqual(new Set(apiIds));
      // Authorized with the mock's key before anyone typed it: the dialog shows it as such.
      await page.locator(".auth-wrapper button.authorize").click();
      const dialog = page.locator(".dialog-ux .modal-ux");
      await expect.poll(() => dialog.textContent()).toContain("Authorized");
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/docs-authorize.png` });
      await dialog.locator("button.btn-done, button.close-modal").first().click();
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/docs-api.png` });
    });
  });

  it("tries listCalls with an enum parameter as a select, the stored key sent, and a curl snippet", async () => {
    await open("/docs#/Calls/listCalls", async (page) => {
      const op = page.locator("#operations-Calls-listCalls");
      // The value's select; the parameter's named examples (scheduled) have a select of their own.
      const status = op.locator('tr[data-param-name="status"] select:not(.examples-select-element)');
      await status.waitFor();
      const listCalls = (contract.document.paths as Record<string, any>)["/v1/calls"].get;
      const params = (listCalls.parameters as unknown[]).map((p) => contract.deref<Record<string, any>>(p));
      const schema = contract.deref<{ enum: string[] }>(params.find((p) => p.name === "status")!.schema);
      expect(
        await status.locator("option").evaluateAll((nodes) => nodes.map((n) => (n as HTMLOptionElement).value)),
      ).toEqual(["", ...schema.enum]);
      await status.selectOption("ended");
      const request = page.waitForRequest((r) => r.url().startsWith(`${t.url}/v1/calls?`));
      expect(await execute(page, "listCalls")).toBe("200");
      expect((await request).headers()["x-api-key"]).toBe(t.mock.apiKey);
      expect((await request).url()).toContain("status=ended");
      const curl = await op.locator(".curl-command").textContent();
      expect(curl).toContain(`X-API-Key: ${t.mock.apiKey}`);
      expect(curl).toContain(`${t.url}/v1/calls?status=ended`);
      if (SCREENSHOTS) await op.screenshot({ path: `${SCREENSHOTS}/docs-try-it.png` });
    });
  });

  it("forces a status through the Prefer picker", async () => {
    const { data } = await t.api.GET("/v1/calls");
    const callId = data!.data[0].callId;
    await open("/docs", async (page) => {
      // The contents list opens the operation, as a deep link does.
      await page.locator('#docs-toc a[data-operation-id="getCall"]').click();
      const op = page.locator("#operations-Calls-getCall");
      await expect.poll(() => op.evaluate((block) => Math.round(block.getBoundingClientRect().top))).toBeLessThan(100);
      await op.locator('tr[data-param-name="callId"] input').fill(callId);
      const prefer = op.locator('tr[data-param-name="Prefer"] select');
      expect(await prefer.locator("option").allTextContents()).toContain("code=404");
      await prefer.selectOption("code=404");
      expect(await execute(page, "getCall")).toBe("404");
      expect(await op.locator(".live-responses-table tbody .response-col_description").textContent()).toMatch(
        /preference-applied: code=404/i,
      );
      if (SCREENSHOTS) await op.screenshot({ path: `${SCREENSHOTS}/docs-prefer.png` });
      // Without Prefer, the same call is there.
      await prefer.selectOption("");
      expect(await execute(page, "getCall")).toBe("200");
    });
  });

  it("documents the control plane on its own page", async () => {
    await open("/docs/control", async (page) => {
      await page.locator(".opblock").first().waitFor();
      const ids = await page.locator(".opblock-summary-operation-id").allTextContents();
      expect(new Set(ids)).toEqual(new Set(controlIds));
      await page.locator('#docs-toc a[data-operation-id="getHealth"]').click();
      expect(await execute(page, "getHealth")).toBe("200");
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/docs-control.png` });
    });
  });

  it("points /docs/ (where the page's relative links break) to /docs", async () => {
    await open(
      "/docs/",
      async (page) => {
        const notice = page.locator(".docs-moved");
        await expect.poll(() => notice.isVisible()).toBe(true);
        await notice.locator("a").click();
        await page.locator(".opblock").first().waitFor();
        expect(new URL(page.url()).pathname).toBe("/docs");
      },
      true,
    );
  });
});
