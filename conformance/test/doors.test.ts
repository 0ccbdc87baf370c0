/**
 * One core, every door: the whole suite at level assumed passes against each way the mock is served.
 * The standalone server (`npm start`) is mock-suite.test.ts; here createApp() mounted inside a parent
 * Express app, and the MSW handlers in Node, intercepting the suite's own fetches to a base URL where
 * no server listens.
 */
import express from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../mock-server/app.js";
import { createMockHandlers } from "../../mock-server/msw/handlers.js";
import { main } from "../cli.js";
import type { RunResult } from "../lib/runner.js";
import { silentIo } from "./support.js";

function failuresOf(run: RunResult | undefined): string {
  return (run?.results ?? [])
    .filter((r) => r.outcome === "failed")
    .map(
      (r) =>
        `${r.id}: ${r.failures
          .slice(0, 3)
          .map((f) => `${f.pointer} ${f.message} (expected ${f.expected}, got ${f.actual})`)
          .join("; ")}`,
    )
    .join("\n");
}

async function runSuite(baseUrl: string, apiKey: string, ...extra: string[]): Promise<RunResult> {
  const { code, run } = await main(
    ["--base-url", baseUrl, "--api-key", apiKey, "--level", "assumed", "--quiet", ...extra],
    {},
    silentIo,
  );
  expect(failuresOf(run)).toBe("");
  expect(code).toBe(0);
  expect(run!.isMock).toBe(true);
  expect(run!.results.filter((r) => r.outcome === "skipped").map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
  return run!;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe("createApp() mounted in a parent Express app", () => {
  const mounted = createApp({ clock: { mode: "virtual" }, log: () => undefined });
  const parent = express();
  parent.get("/", (_req, res) => void res.send("the parent app"));
  parent.use("/mock", mounted.app);
  const server = createServer(parent);
  let url = "";
  beforeAll(async () => void (url = await listen(server)));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await mounted.close();
  });

  it("serves the API under the mount path, and its errors name the whole path", async () => {
    const calls = await fetch(`${url}/mock/v1/calls?size=2`, { headers: { "X-API-Key": "mock-api-key" } });
    expect(calls.status).toBe(200);
    expect(((await calls.json()) as { data: unknown[] }).data).toHaveLength(2);
    const missing = await fetch(`${url}/mock/v1/calls/nope`, { headers: { "X-API-Key": "mock-api-key" } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { path: string }).path).toBe("/mock/v1/calls/nope");
    expect(await (await fetch(`${url}/`)).text()).toBe("the parent app");
  });

  it("passes the suite at level assumed", async () => {
    await runSuite(`${url}/mock`, "mock-api-key");
  });
});

/** The MSW door guards its control plane as `--control-token` does: the suite passes with the token. */
const CONTROL_TOKEN = "doors-test-control-token";

describe("MSW handlers in Node (setupServer), with a control token", () => {
  // A port that was free a moment ago and is closed again: nothing listens there.
  let baseUrl = "";
  let handlers: ReturnType<typeof createMockHandlers>;
  let msw: ReturnType<typeof setupServer>;
  beforeAll(async () => {
    const probe = createServer();
    baseUrl = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    handlers = createMockHandlers({ baseUrl, clock: "virtual", log: () => undefined, controlToken: CONTROL_TOKEN });
    msw = setupServer(...handlers.handlers);
    // The suite's webhook receivers and the mock's deliveries to them are real servers: let them through.
    msw.listen({ onUnhandledRequest: "bypass" });
  });
  afterAll(async () => {
    msw?.close();
    await handlers?.mock.close();
  });

  it("answers where no server listens", async () => {
    const health = await fetch(`${baseUrl}/__mock/health`);
    expect(await health.json()).toMatchObject({ status: "ok", kit: "agent-platform-mock-kit" });
    msw.close();
    await expect(fetch(`${baseUrl}/__mock/health`)).rejects.toThrow();
    msw.listen({ onUnhandledRequest: "bypass" });
  });

  it("passes the suite at level assumed, given the token", async () => {
    expect((await fetch(`${baseUrl}/__mock/workspaces`)).status).toBe(401);
    await runSuite(baseUrl, "mock-api-key", "--control-token", CONTROL_TOKEN);
  });
});
