/**
 * The dashboard at /__mock/ui on the standalone server, in Debian's Chromium (playwright-core), under the
 * page's strict Content-Security-Policy: a client's request shows within a second, a fault rule made in
 * the Faults view fails the next request, an advance in the Clocks view moves a call on, a webhook
 * delivery to a real receiver shows as verified with the receiver's answer and can be redelivered, and
 * the Requests filters and deep links work. Every page must end with no error, console error or CSP
 * violation.
 */
import { createServer, type Server } from "node:http";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";
import { api, control, listen, watchedPage, type WatchedPage } from "./support.js";

const text = (locator: Locator) => () => locator.textContent({ timeout: 1000 }).catch(() => "");

describe.skipIf(skipBrowser)(`the dashboard on the server (${CHROMIUM})`, () => {
  let running: RunningMock;
  let browser: Browser;
  let receiver: Server;
  let receiverUrl = "";
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    running = await startMock({ clock: "virtual", log: () => undefined });
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "Content-Type": "text/plain" }).end("thanks from the receiver"));
    });
    receiverUrl = await listen(receiver);
    // The first request for the script bundles it: done here, not inside a test's short waits.
    expect((await fetch(`${running.url}/__mock/ui/dashboard.js`)).status).toBe(200);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** The page at `hash`, once it shows that it is live. */
  async function open(hash = ""): Promise<Page> {
    const watched = await watchedPage(browser);
    pages.push(watched);
    await watched.page.goto(`${running.url}/__mock/ui${hash}`);
    await watched.page.locator('[data-live="live"]').waitFor({ timeout: 5000 });
    return watched.page;
  }

  /** Closes the test's pages and says what went wrong in them. */
  async function problems(): Promise<string[]> {
    const found = pages.flatMap((p) => p.problems);
    await Promise.all(pages.splice(0).map((p) => p.close()));
    return found;
  }

  // The second is the requirement; on two cores shared with the other test files a starved browser can miss
  // it once, so the check gets two more tries: a dashboard that is never that fast still fails.
  it("shows a client's request within a second", { retry: 2 }, async () => {
    const page = await open();
    const response = await api(running.url, running.apiKey, "/v1/agents?size=7");
    expect(response.status).toBe(200);
    await page.locator("tbody tr", { hasText: "/v1/agents?size=7" }).waitFor({ timeout: 1000 });
    // Looking leaves no trace: the page's own requests (X-Mock-Dashboard) are not in the journal.
    const journal = await control(running.url, "/__mock/requests");
    expect(journal.filter((e: { path: string }) => e.path.startsWith("/__mock/"))).toEqual([]);
    expect(await problems()).toEqual([]);
  });

  it("filters by operation, status and text, and opens a request from its link", async () => {
    expect((await api(running.url, running.apiKey, "/v1/calls?size=2")).status).toBe(200);
    expect((await api(running.url, running.apiKey, "/v1/calls/no-such-call")).status).toBe(404);
    const refused = await api(running.url, running.apiKey, "/v1/integrations", { method: "POST", body: { name: 7 } });
    expect(refused.status).toBe(400);
    const [missing] = await control(running.url, "/__mock/requests?operationId=getCall&status=404&limit=1");

    const page = await open();
    const rows = page.locator("tbody tr");
    await rows.filter({ hasText: "/v1/calls/no-such-call" }).waitFor({ timeout: 2000 });

    await page.getByLabel("Operation").selectOption("getCall");
    await expect.poll(() => rows.count(), { timeout: 2000 }).toBe(1);
    expect(await rows.first().getAttribute("data-request-id")).toBe(missing.id);

    await page.getByLabel("Operation").selectOption("");
    await page.getByLabel("Status").fill("400");
    await expect.poll(() => rows.filter({ hasNotText: "400" }).count(), { timeout: 2000 }).toBe(0);
    await rows.filter({ hasText: "POST /v1/integrations" }).waitFor({ timeout: 1000 });

    await page.getByLabel("Status").fill("2xx");
    await page.getByLabel("Search").fill("size=2");
    await expect.poll(() => rows.count(), { timeout: 2000 }).toBe(1);
    await expect.poll(text(rows.first())).toContain("/v1/calls?size=2");

    // A row's link is a deep link: the address says which request is open.
    await page.getByLabel("Search").fill("");
    await page.getByLabel("Status").fill("");
    await rows.filter({ hasText: "/v1/calls/no-such-call" }).getByRole("link").click();
    await expect.poll(() => page.url()).toBe(`${running.url}/__mock/ui#/requests/${missing.id}`);
    await page.getByRole("heading", { name: "GET /v1/calls/no-such-call" }).waitFor({ timeout: 2000 });
    expect(await problems()).toEqual([]);
  });

  it("opens a deep link to a refused request with its validation errors and a curl line", async () => {
    const [bad] = await control(running.url, "/__mock/requests?operationId=createIntegration&status=400&limit=1");
    const page = await open(`#/requests/${bad.id}`);
    const detail = page.locator('[data-testid="request-detail"]');
    await detail.getByRole("heading", { name: "POST /v1/integrations" }).waitFor({ timeout: 2000 });
    const refusal = detail.getByRole("region", { name: "Validation errors" });
    await expect.poll(text(refusal)).toContain("name: must be string");
    const curl = await detail.locator('[data-testid="curl"]').textContent();
    expect(curl).toMatch(/^curl -X POST http:\/\/127\.0\.0\.1:\d+\/v1\/integrations /);
    expect(curl).toContain('"x-api-key: $MOCK_API_KEY"');
    expect(curl).toContain(`--data-raw '{"name":7}'`);
    expect(curl).not.toContain(running.apiKey);
    // The answer's body, pretty-printed, and the headers.
    await expect.poll(text(detail.getByLabel("Response body"))).toContain('"status": 400');
    expect(await detail.getByRole("table", { name: "Request headers" }).textContent()).toContain("[redacted]");
    expect(await problems()).toEqual([]);
  });

  it("creates a fault rule in the Faults view that fails the next GET /v1/calls", async () => {
    const page = await open("#/faults");
    await page.locator("#fault-operation option[value=listCalls]").waitFor({ state: "attached", timeout: 2000 });
    await page.getByLabel("Operation").selectOption("listCalls");
    await page.getByLabel("Kind").selectOption("status");
    await page.getByLabel("Status").selectOption("500");
    await page.getByLabel("Times").fill("1");
    await page.getByRole("button", { name: "Create fault" }).click();
    const row = page.locator("tr[data-fault-id]", { hasText: "status 500, on listCalls" });
    await row.waitFor({ timeout: 2000 });

    const failed = await api(running.url, running.apiKey, "/v1/calls");
    expect(failed.status).toBe(500);
    expect((await api(running.url, running.apiKey, "/v1/calls")).status).toBe(200);
    // The counters follow the traffic: applied once.
    await expect
      .poll(async () => (await row.locator("td.num").allTextContents()).join("/"), { timeout: 2000 })
      .toBe("1/1");
    expect(await problems()).toEqual([]);
  });

  it("advances a workspace's clock and shows its call's next status", async () => {
    const workspace = await control(running.url, "/__mock/workspaces", { method: "POST", body: { empty: true } });
    const call = await control(running.url, `/__mock/workspaces/${workspace.workspaceId}/calls`, {
      method: "POST",
      body: { status: "scheduled", outcome: { status: "ended", connectAfterSeconds: 5, durationSeconds: 60 } },
    });
    const page = await open("#/clocks");
    await page
      .locator(`#clock-workspace option[value="${workspace.workspaceId}"]`)
      .waitFor({ state: "attached", timeout: 2000 });
    await page.getByLabel("Workspace").selectOption(workspace.workspaceId);
    const task = page.locator(`tr[data-ref="${call.callId}"]`);
    await expect.poll(text(task), { timeout: 2000 }).toContain("scheduled");
    expect(await task.textContent()).toContain("in 5 s");

    await page.getByLabel("Seconds").fill("10");
    await page.getByRole("button", { name: "Advance", exact: true }).click();
    await expect.poll(text(task.locator('[data-testid="subject-status"]')), { timeout: 2000 }).toBe("in_progress");
    expect(await task.textContent()).toContain("in 55 s");
    expect(await problems()).toEqual([]);
  });

  it("shows a webhook delivery as verified with the receiver's answer, and redelivers it", async () => {
    const agents = await (await api(running.url, running.apiKey, "/v1/agents")).json();
    const agentId = agents.data[0].agentId;
    const page = await open("#/webhooks");
    await control(running.url, "/__mock/workspaces/default/webhooks", {
      method: "POST",
      body: { agentId, url: `${receiverUrl}/hooks`, events: "conversation_started", active: true },
    });
    const chat = await api(running.url, running.apiKey, "/v1/chat", {
      method: "POST",
      body: { agentId, conversation: "Hello" },
    });
    expect(chat.status).toBeLessThan(300);

    const card = page.locator("article[data-delivery-id]", { hasText: `${receiverUrl}/hooks` });
    await card.waitFor({ timeout: 3000 });
    await expect.poll(text(card), { timeout: 2000 }).toContain("Attempts (1)");
    await card.locator(".badge.ok", { hasText: "Verified" }).waitFor({ timeout: 2000 });
    expect(await card.textContent()).toContain("thanks from the receiver");
    expect(await card.textContent()).toMatch(/X-Webhook-Signature: \S+/);

    await card.getByRole("button", { name: /^Redeliver/ }).click();
    await expect.poll(text(card), { timeout: 3000 }).toContain("Attempts (2)");
    expect(await card.getByLabel(/Receiver's answer to attempt/).count()).toBe(2);
    expect(await problems()).toEqual([]);
  });
});
