/**
 * The HTML report of a real failing run (the suite against the kit's mock behind a proxy that breaks
 * some answers, one of them with markup in a body), opened from a file in headless Chromium: no request
 * leaves the page, no script runs, the verdict, the counts, a failure cause with its repro, the
 * response-time table and the environment section are there. A full-page screenshot is written to a
 * temp directory (REPORT_SCREENSHOTS=DIR to choose it) and its path printed, for a person to look at.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launchChromium, skipBrowser } from "../../mock-server/test/chromium.js";
import { main } from "../cli.js";
import type { RunResult } from "../lib/runner.js";
import { countOutcomes } from "../report/group.js";
import { htmlReport } from "../report/html.js";
import { hasMock, json, NO_MOCK, silentIo, startKitMock, startProxy, type Rewrite, type Running } from "./support.js";

const MARKUP = `<script>document.title="pwned";window.pwned=1</script><img src="http://evil.invalid/x.png">`;

const faults: Rewrite = (req, res) => {
  if (req.method === "GET" && req.path === "/v1/calls" && res.status === 200)
    return json((b) => void (b.totalPages += 1))(res);
  if (req.method === "GET" && req.path.startsWith("/v1/integrations/") && res.status === 200)
    return json((b) => void (b.name = MARKUP))(res);
  if (req.method === "POST" && req.path === "/v1/chat" && res.status === 200)
    return { ...json(() => {})(res), status: 201 };
  if (req.path.startsWith("/v1/qa-rules/") && res.status === 404)
    return { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" };
  return undefined;
};

const reason = !hasMock ? NO_MOCK : skipBrowser ? `Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)` : "";

describe.skipIf(reason !== "")(`HTML report in headless Chromium${reason ? ` (skipped: ${reason})` : ""}`, () => {
  let mock: Running;
  let proxy: Running;
  let browser: Browser;
  let run: RunResult;
  const dir = mkdtempSync(join(tmpdir(), "conformance-html-"));
  const shots = process.env.REPORT_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "conformance-html-shots-"));

  beforeAll(async () => {
    mock = await startKitMock();
    proxy = await startProxy(mock.url, faults);
    browser = await launchChromium();
    const outcome = await main(
      ["--base-url", proxy.url, "--api-key", mock.apiKey, "--level", "assumed", "--quiet"],
      {},
      silentIo,
    );
    expect(outcome.code).toBe(1);
    run = outcome.run!;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the verdict, counts, causes with repro lines and response times, and loads nothing", async () => {
    const file = join(dir, "report.html");
    writeFileSync(file, htmlReport(run));
    mkdirSync(shots, { recursive: true });
    writeFileSync(join(shots, "conformance-report.html"), htmlReport(run));
    const url = pathToFileURL(file).href;

    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, javaScriptEnabled: true });
    const requests: string[] = [];
    await context.route("**/*", (route) => (route.request().url() === url ? route.continue() : route.abort()));
    const page = await context.newPage();
    page.on("request", (request) => void requests.push(request.url()));
    await page.goto(url);
    await page.waitForLoadState("load");

    // Nothing but the file itself; the markup of the body did not run.
    expect(requests).toEqual([url]);
    expect(await page.title()).toMatch(/^FAIL: conformance of http:\/\/127\.0\.0\.1:\d+ \(assumed\)$/);
    expect(
      await page.evaluate(() => ({
        scripts: document.scripts.length,
        images: document.images.length,
        pwned: "pwned" in window,
      })),
    ).toEqual({ scripts: 0, images: 0, pwned: false });

    // Verdict and counts.
    const c = countOutcomes(run.results);
    expect(await page.locator("header .word").textContent()).toBe("FAIL");
    expect(await page.locator("header .word").isVisible()).toBe(true);
    expect(await page.locator(".counts .k").allTextContents()).toEqual([
      `${c.passed} passed`,
      `${c.failed} failed`,
      `${c.errored} errored`,
      `${c.skipped} skipped`,
    ]);
    expect(c.failed).toBeGreaterThan(0);
    expect(await page.locator("table.ops tfoot td").allTextContents()).toEqual([
      "all operations",
      String(c.passed),
      String(c.failed),
      String(c.errored),
      String(c.skipped),
      `${c.total} rules`,
    ]);
    // A failed mark per failing rule, with its rule in the title.
    expect(await page.locator("table.ops a.m.failed").count()).toBe(c.failed);
    expect(await page.locator(`table.ops a.m.failed[title^="listCalls.total-pages "]`).count()).toBe(1);

    // The causes: one lists the integration name with the markup as text, and shows a repro <pre>.
    const causes = page.locator("article.cause");
    expect(await causes.count()).toBeGreaterThan(2);
    const first = causes.first().locator(":scope > pre.repro");
    expect(await first.isVisible()).toBe(true);
    expect(await first.textContent()).toMatch(/(^|&& )curl -sS -i -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\/v1\//);
    // The markup a body carried is shown as text (the store-agreement rule quotes the name whole).
    expect(await causes.filter({ hasText: MARKUP }).count()).toBeGreaterThan(0);
    expect(await page.locator(`article.cause[id] >> text=totalPages`).count()).toBeGreaterThan(0);

    // Response times: a row per operation the run called, p50 <= p95 <= max.
    const rows = await page
      .locator("table.times tbody tr")
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? "")));
    expect(rows.length).toBeGreaterThan(10);
    for (const [op, count, p50, p95, max] of rows) {
      expect(Number(count), op).toBe(run.timings[op].length);
      expect(Number(p50) <= Number(p95) && Number(p95) <= Number(max), `${op}: ${p50} ${p95} ${max}`).toBe(true);
    }
    // Status coverage and the ledger are there.
    expect(await page.locator("table.cov tbody tr").count()).toBeGreaterThan(10);
    expect(await page.locator("#ledger").isVisible()).toBe(true);
    // The environment: its one-line summary (also in the header) and a row per figure.
    expect(run.environment.requests).toBeGreaterThan(0);
    expect(await page.locator("#environment").isVisible()).toBe(true);
    expect(await page.locator("#environment p.env-summary").textContent()).toBe(run.environment.summary);
    expect(await page.locator("#environment table.env th").allTextContents()).toEqual([
      "requests",
      "rate limited",
      "pace",
      "retries",
      "gateway errors",
      "network errors",
      "flaky answers",
      "latency",
    ]);
    expect(await page.locator("dl.meta").textContent()).toContain(run.environment.summary);

    const shot = join(shots, "conformance-report.png");
    await page.screenshot({ path: shot, fullPage: true });
    await page.screenshot({ path: join(shots, "conformance-report-top.png") });
    console.log(
      `HTML report screenshot: ${shot} (top of page: ${join(shots, "conformance-report-top.png")}; the page: ${join(shots, "conformance-report.html")})`,
    );
    await context.close();
  }, 60_000);
});
