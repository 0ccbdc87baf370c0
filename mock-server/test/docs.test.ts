/** /docs in a real browser: Debian's Chromium driven by playwright-core shows all 17 operations. */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chromium } from "playwright-core";
import { useMock } from "./harness.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const t = useMock();

describe("docs page", () => {
  // CI installs Chromium (.ci/run); a missing browser there is a failure, locally a skip with a reason.
  it.skipIf(!available && !process.env.CI)(`shows every operation in headless Chromium (${CHROMIUM})`, async () => {
    expect(available, `Chromium not found at ${CHROMIUM}`).toBe(true);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${t.url}/docs`);
      const ids = await page.locator("[data-operation-id]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-operation-id")));
      expect(new Set(ids).size).toBe(17);
      expect(ids).toContain("updatePhoneNumber");
      // The Try it form really calls the mock.
      await page.fill("#api-key", t.mock.apiKey);
      const section = page.locator("#listAgents");
      await section.locator("summary").click();
      await section.locator("button").click();
      await expect.poll(() => section.locator(".result").textContent()).toMatch(/^200/);
    } finally {
      await browser.close();
    }
  });
});
