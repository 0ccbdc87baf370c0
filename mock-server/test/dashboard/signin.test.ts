/**
 * The dashboard at /__mock/ui on a mock started with a control token, in Chromium: the page itself is
 * open but its control plane answers 401, so it asks for the token or a key. A wrong token shows the
 * mock's message; the right one shows the Requests view, live; a reload keeps the session (the tab's
 * sessionStorage, never the URL or localStorage); Sign out asks again; a workspace's key shows that
 * workspace only, its requests and not another's, with creating a workspace turned off. axe-core reads
 * the sign-in view, and its screenshot goes into the docs (support.ts Screenshots).
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import {
  api,
  control,
  SCREENSHOTS,
  Screenshots,
  seriousViolations,
  WIDE,
  NARROW,
  watchedPage,
  type WatchedPage,
} from "./support.js";

const TOKEN = "dashboard-signin-token-7f3a";
const SECRET_FIELD = "Control token or workspace API key";

/** What the page keeps where a secret could leak: its URL, and both storages. */
function kept(page: Page): Promise<{ url: string; local: string; session: string }> {
  return page.evaluate(() => ({
    url: location.href,
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
  }));
}

/** The id of the element focused inside the dashboard's shadow root. */
function focused(page: Page): Promise<string | undefined> {
  return page.evaluate(() => document.getElementById("dashboard")?.shadowRoot?.activeElement?.id);
}

describe.skipIf(skipBrowser)(`signing in to the dashboard of a mock with a control token (${CHROMIUM})`, () => {
  let running: RunningMock;
  let browser: Browser;
  let screenshots: Screenshots;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    running = await startMock({ clock: "virtual", log: () => undefined, controlToken: TOKEN });
    // The page and its script need no secret; the first request for the script bundles it.
    const script = await fetch(`${running.url}/__mock/ui/dashboard.js`);
    expect(script.status).toBe(200);
    expect((await fetch(`${running.url}/__mock/ui`)).status).toBe(200);
    expect((await fetch(`${running.url}/__mock/workspaces`)).status).toBe(401);
    mkdirSync(SCREENSHOTS, { recursive: true });
    screenshots = new Screenshots(await script.text());
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    screenshots?.save();
    await browser?.close();
    await running?.close();
  });

  /** The page, at the sign-in view. */
  async function open(viewport = WIDE): Promise<Page> {
    const watched = await watchedPage(browser, viewport);
    pages.push(watched);
    await watched.page.goto(`${running.url}/__mock/ui`);
    await watched.page.getByLabel(SECRET_FIELD).waitFor({ timeout: 5000 });
    return watched.page;
  }

  async function problems(): Promise<string[]> {
    const found = pages.flatMap((p) => p.problems);
    await Promise.all(pages.splice(0).map((p) => p.close()));
    return found;
  }

  it("shows a wrong token's refusal, then the live Requests view; a reload keeps it, Sign out ends it", async () => {
    const page = await open();
    await expect.poll(() => focused(page), { timeout: 2000 }).toBe("signin-secret");

    await page.getByLabel(SECRET_FIELD).fill("not-the-token");
    await page.getByLabel(SECRET_FIELD).press("Enter");
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent({ timeout: 2000 }).catch(() => "")).toContain("not valid");
    expect(await page.locator('[data-live="live"]').count()).toBe(0);
    await expect.poll(() => focused(page), { timeout: 2000 }).toBe("signin-secret");

    await page.getByLabel(SECRET_FIELD).fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
    await page.getByText("Signed in with the control token").waitFor({ timeout: 1000 });
    expect((await api(running.url, running.apiKey, "/v1/agents?size=3")).status).toBe(200);
    await page.locator("tbody tr", { hasText: "/v1/agents?size=3" }).waitFor({ timeout: 2000 });

    const where = await kept(page);
    expect(where.url).not.toContain(TOKEN);
    expect(where.local).not.toContain(TOKEN);
    expect(where.session).toContain(TOKEN);

    // A reload: signed in from the tab's storage, no form, the journal's request there.
    await page.reload();
    await page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
    expect(await page.getByLabel(SECRET_FIELD).count()).toBe(0);
    await page.locator("tbody tr", { hasText: "/v1/agents?size=3" }).waitFor({ timeout: 2000 });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel(SECRET_FIELD).waitFor({ timeout: 2000 });
    expect((await kept(page)).session).not.toContain(TOKEN);
    await page.reload();
    await page.getByLabel(SECRET_FIELD).waitFor({ timeout: 5000 });
    expect(await problems()).toEqual([]);
  });

  it("with a workspace's key, shows that workspace only and no way to create one", async () => {
    const mine = await control(running.url, "/__mock/workspaces", {
      method: "POST",
      body: { empty: true },
      token: TOKEN,
    });
    const page = await open();
    await page.getByLabel(SECRET_FIELD).fill(mine.apiKey);
    await page.getByLabel("a workspace API key").check();
    await page.getByLabel(SECRET_FIELD).press("Enter");
    await page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
    await page.getByText("Signed in with a workspace key").waitFor({ timeout: 1000 });

    // Another workspace's request first, then its own: only its own shows.
    expect((await api(running.url, running.apiKey, "/v1/agents?size=4")).status).toBe(200);
    expect((await api(running.url, mine.apiKey, "/v1/agents?size=5")).status).toBe(200);
    await page.locator("tbody tr", { hasText: "/v1/agents?size=5" }).waitFor({ timeout: 2000 });
    expect(await page.locator("tbody tr", { hasText: "/v1/agents?size=4" }).count()).toBe(0);
    await expect
      .poll(() =>
        page.locator("#filter-workspace option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
      )
      .toEqual([mine.workspaceId]);

    await page.getByRole("link", { name: "Workspaces" }).click();
    await page.locator(`article[data-workspace-id="${mine.workspaceId}"]`).waitFor({ timeout: 2000 });
    expect(await page.locator("article[data-workspace-id]").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Create workspace" }).isDisabled()).toBe(true);
    await page.getByText("Creating a workspace needs the control token").waitFor({ timeout: 1000 });

    // Its clock, named by nothing: the key's own workspace, not the default one.
    await page.getByRole("link", { name: "Clocks" }).click();
    await expect
      .poll(() =>
        page
          .locator("#clock-workspace")
          .inputValue({ timeout: 1000 })
          .catch(() => ""),
      )
      .toBe(mine.workspaceId);
    await page.locator('[data-testid="clock-now"]').waitFor({ timeout: 2000 });
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await problems()).toEqual([]);
  });

  it.each([
    ["1280x800", WIDE],
    ["390x844", NARROW],
  ])("at %s, the sign-in view has no serious or critical axe violation", async (_, viewport) => {
    const page = await open(viewport);
    const found = (await seriousViolations(page)).map((v) => `${v.id} (${v.impact}) ${v.help} at ${v.targets}`);
    // With a refusal shown too.
    await page.getByLabel(SECRET_FIELD).fill("not-the-token");
    await page.getByLabel(SECRET_FIELD).press("Enter");
    await page.getByRole("alert").waitFor({ timeout: 2000 });
    for (const v of await seriousViolations(page)) found.push(`refused: ${v.id} (${v.impact}) ${v.help}`);
    expect(found).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    if (viewport === WIDE) {
      await page.getByLabel(SECRET_FIELD).fill("");
      await page.reload();
      await page.getByLabel(SECRET_FIELD).waitFor({ timeout: 5000 });
      await screenshots.take(page, "signin-1280");
    }
    expect(await problems()).toEqual([]);
  });
});
