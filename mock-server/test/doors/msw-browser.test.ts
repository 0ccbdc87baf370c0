/**
 * The MSW door in a real browser: a page bundled (esbuild, platform browser: a `node:` import
 * anywhere on the path fails the build) with the MSW handlers and the typed client, served under a
 * strict Content-Security-Policy (no eval, no inline script), runs in Debian's Chromium driven by
 * playwright-core. It lists calls, patches an integration and reads it back from an API origin where
 * no server listens; the test reads what the page shows and checks it against the same seeded world
 * built in Node. The bundle splits as app bundlers do: the drift rules of the upstream door (a schema
 * compiler) are a chunk of their own that a page without an upstream never loads.
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMock } from "../../mock/mock.js";
import { CHROMIUM, launchChromium, skipBrowser } from "../chromium.js";

const WORKER = fileURLToPath(new URL("../../../node_modules/msw/lib/mockServiceWorker.js", import.meta.url));

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe("MSW handlers in a browser", () => {
  let site = "";
  let api = "";
  let bundle = "";
  let inputs: string[] = [];
  let loaded = new Set<string>();
  /** Chunks split off the entry (loaded by import() only when asked), by file name. */
  const chunks = new Map<string, string>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const csp = `default-src 'self'; script-src 'self'; connect-src 'self' ${api}; worker-src 'self'`;
    if (path === "/") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": csp });
      res.end(
        `<!doctype html><title>MSW door</title><pre id="result"></pre><script type="module" src="/page.js"></script>`,
      );
    } else if (path === "/page.js") {
      res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(bundle);
    } else if (chunks.has(path.slice(1))) {
      res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(chunks.get(path.slice(1)));
    } else if (path === "/mockServiceWorker.js") {
      res
        .writeHead(200, { "Content-Type": "text/javascript; charset=utf-8", "Content-Security-Policy": csp })
        .end(readFileSync(WORKER));
    } else res.writeHead(404).end();
  });

  beforeAll(async () => {
    const built = await build({
      entryPoints: [fileURLToPath(new URL("../browser/page.ts", import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      metafile: true,
      logLevel: "silent",
      splitting: true,
      outdir: "/bundle",
      entryNames: "page",
    });
    const entry = built.outputFiles.find((f) => f.path === "/bundle/page.js")!;
    bundle = entry.text;
    for (const file of built.outputFiles) if (file !== entry) chunks.set(file.path.slice("/bundle/".length), file.text);
    // What the page loads at start: the entry and the chunks it imports statically.
    loaded = new Set(["page.js"]);
    for (const [out, meta] of Object.entries(built.metafile.outputs))
      if (out.endsWith("page.js"))
        for (const i of meta.imports) if (i.kind === "import-statement") loaded.add(i.path.split("/").pop()!);
    inputs = Object.entries(built.metafile.outputs)
      .filter(([out]) => loaded.has(out.split("/").pop()!))
      .flatMap(([, meta]) => Object.keys(meta.inputs));
    site = await listen(server);
    // The API origin: a port that was free a moment ago and is closed again, so only the worker can answer.
    const probe = createServer();
    api = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
  }, 60_000);
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("bundles for the browser without Node, Express, busboy or a schema compiler, and with nothing evaluated from strings", () => {
    // esbuild refuses a node: import for the browser outright; these would be bundled if reached.
    expect(inputs.filter((file) => /node_modules\/(express|busboy|ajv|ajv-formats|body-parser)\//.test(file))).toEqual(
      [],
    );
    expect(inputs.some((file) => file.endsWith("mock-server/mock/pipeline.ts"))).toBe(true);
    for (const name of loaded)
      expect(name === "page.js" ? bundle : chunks.get(name)).not.toMatch(/\bnew Function\(|\beval\(/);
    // The upstream door's drift rules are there, split off, for a page that asks for them.
    expect([...chunks.values()].some((text) => text.includes("unevaluatedProperties"))).toBe(true);
  });

  it.skipIf(skipBrowser)(
    `lists calls, patches an integration and reads it back (${CHROMIUM})`,
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on("pageerror", (error) => problems.push(error.message));
        // The browser logs every non-2xx answer as a failed resource (the 401 asked for below): not a problem.
        page.on(
          "console",
          (message) =>
            void (
              message.type() === "error" &&
              !message.text().startsWith("Failed to load resource") &&
              problems.push(message.text())
            ),
        );
        await page.goto(`${site}/?api=${encodeURIComponent(api)}`);
        await expect.poll(() => page.locator("#result").textContent(), { timeout: 30_000 }).not.toBe("");
        const shown = JSON.parse((await page.locator("#result").textContent())!);
        expect(shown.failed, shown.failed).toBeUndefined();
        expect(problems).toEqual([]);

        // The same seed and virtual clock built in Node give the same world.
        const twin = createMock({ clock: { mode: "virtual" }, log: () => undefined });
        const expected = twin.services.workspaces
          .get("default")!
          .collections.calls.page({ order: "newest", page: 0, size: 5 });
        await twin.close();
        expect(shown.calls).toEqual({
          status: 200,
          ids: expected.items.map((c) => c.callId),
          totalCount: expected.total,
        });
        expect(shown.patched).toEqual({ status: 200, description: "patched in the browser" });
        expect(shown.readBack).toEqual({ status: 200, description: "patched in the browser" });
        expect(shown.refused.status).toBe(401);
        expect(shown.refused.error).toMatchObject({ status: 401, error: "Unauthorized", path: "/v1/calls" });
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
