/**
 * What the dashboard's Chromium tests share: a page that records every problem (an uncaught error, a
 * console error, a Content-Security-Policy violation), axe-core run inside it, and control-plane calls
 * from Node that carry X-Mock-Dashboard (the tests' own setup stays out of the journal the page shows).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";

export const AXE_SOURCE = readFileSync(
  fileURLToPath(new URL("../../../node_modules/axe-core/axe.min.js", import.meta.url)),
  "utf8",
);

export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };

/** Where the screenshots go: the docs embed them. */
export const SCREENSHOTS = fileURLToPath(new URL("../../docs/dashboard/", import.meta.url));

export interface WatchedPage {
  page: Page;
  /** Uncaught errors, console errors and CSP violations, as they happened. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A page in a fresh context that records its problems. The browser logs each non-2xx answer as a failed
 * resource (the 409 the dashboard asks for when deleting the default workspace): that is no problem.
 */
export async function watchedPage(browser: Browser, viewport = WIDE): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  // Injected by the browser's debugging protocol, so no CSP applies to it; it only reports.
  await page.addInitScript(() =>
    document.addEventListener(
      "securitypolicyviolation",
      (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`),
      true,
    ),
  );
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (/^Failed to load resource: the server responded with a status of [45]\d\d/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  return { page, problems, close: () => context.close() };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core over the whole page, shadow roots included: the violations of impact serious or critical. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the debugging protocol, as addScriptTag would be refused by the page's CSP.
  await page.evaluate(AXE_SOURCE);
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n: any) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * The screenshots of the docs, kept in step with the dashboard without churning: a screenshot is written
 * when the dashboard's script or what the view shows (its text with every number, UUID and hex run alike, so
 * ports, durations and generated ids do not count) differs from the last written one, which
 * screens.json remembers. So a run over an unchanged dashboard leaves the docs as they are.
 */
export class Screenshots {
  private readonly manifestFile = join(SCREENSHOTS, "screens.json");
  private readonly manifest: Record<string, string>;
  /** The names this instance wrote: save() merges them into the file as it is then (two test files take screenshots). */
  private readonly taken = new Set<string>();

  constructor(private readonly bundle: string) {
    this.manifest = existsSync(this.manifestFile) ? JSON.parse(readFileSync(this.manifestFile, "utf8")) : {};
  }

  async take(page: Page, name: string): Promise<void> {
    const text = await page.evaluate(() => {
      const root = document.getElementById("dashboard")?.shadowRoot;
      return (root ?? document.body).textContent ?? "";
    });
    const shown = text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "uuid")
      .replace(/[0-9a-f]{8,}/gi, "x")
      .replace(/\d+([.,:]\d+)*/g, "0");
    const fingerprint = createHash("sha256").update(this.bundle).update("\0").update(shown).digest("hex");
    const file = join(SCREENSHOTS, `${name}.png`);
    if (this.manifest[name] === fingerprint && existsSync(file)) return;
    await page.screenshot({ path: file });
    this.manifest[name] = fingerprint;
    this.taken.add(name);
  }

  save(): void {
    if (this.taken.size === 0) return;
    const now = existsSync(this.manifestFile) ? JSON.parse(readFileSync(this.manifestFile, "utf8")) : {};
    for (const name of this.taken) now[name] = this.manifest[name];
    const sorted = Object.fromEntries(Object.entries(now).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(this.manifestFile, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}

export function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/**
 * A control-plane call from the test, kept out of the journal and the event stream like the page's own;
 * `token` for a mock started with a control token.
 */
export async function control<T = any>(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: {
      "Content-Type": "application/json",
      "X-Mock-Dashboard": "1",
      ...(init.token && { Authorization: `Bearer ${init.token}` }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A request to the API as an app would send it (journaled, on the stream). */
export function api(
  base: string,
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { "X-API-Key": key, ...(init.body !== undefined && { "Content-Type": "application/json" }) },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
}
