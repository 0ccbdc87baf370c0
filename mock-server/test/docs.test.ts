/** /docs in a real browser: Debian's Chromium driven by playwright-core shows all 17 operations. */
import { describe, expect, it } from "vitest";
import { CHROMIUM, launchChromium, skipBrowser } from "./chromium.js";
import { useMock } from "./harness.js";

const t = useMock();

describe("docs page", () => {
  it.skipIf(skipBrowser)(`shows every operation in headless Chromium (${CHROMIUM})`, async () => {
    const browser = await launchChromium();
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
