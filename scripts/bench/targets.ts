/**
 * The servers the bench measures, each in its own child process on a free loopback port:
 *   (a) bare Express, (b) bare node:http: the mock's response bytes as constants (bare-server.ts)
 *   (c) the mock as `npm start` runs it, in production configuration: NODE_ENV=production, so
 *       response validation is off; request validation, auth, store and journal are on
 *   (c+rv) the same with --validate-responses on, the development default, for comparison
 *   (d) `prism mock generated/openapi.json`, with its per-request logging turned down to errors
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Fixture } from "./bare-server.js";
import { bin, freePort, root, startChild, TSX_EXEC_ARGV, type Child } from "./children.js";

export const MOCK_API_KEY = "bench-api-key";

export async function startMockTarget(options: { validateResponses?: boolean; name?: string } = {}): Promise<Child> {
  const port = await freePort();
  const flags = options.validateResponses ? ["--validate-responses", "on"] : [];
  return startChild({
    name: options.name ?? "mock",
    args: [...TSX_EXEC_ARGV, "mock-server/main.ts", "--port", String(port), "--api-key", MOCK_API_KEY, ...flags],
    env: { NODE_ENV: "production" },
    url: `http://127.0.0.1:${port}`,
    readyPath: "/__mock/health",
  });
}

/** Prism has no /__mock/health: its first 200 is taken on a documented GET. */
export async function startPrismTarget(): Promise<Child> {
  const port = await freePort();
  return startChild({
    name: "prism",
    command: bin("prism"),
    args: ["mock", "-h", "127.0.0.1", "-p", String(port), "-v", "error", path.join(root, "generated", "openapi.json")],
    url: `http://127.0.0.1:${port}`,
    readyPath: "/v1/agents",
    readyHeaders: { "X-API-Key": MOCK_API_KEY },
  });
}

export async function startBareTarget(kind: "express" | "http", fixtures: Fixture[]): Promise<Child> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "bench-fixtures-")), "fixtures.json");
  writeFileSync(file, JSON.stringify(fixtures));
  const port = await freePort();
  return startChild({
    name: kind === "express" ? "bare Express" : "bare node:http",
    args: [...TSX_EXEC_ARGV, "scripts/bench/bare-server.ts", kind, String(port), file],
    url: `http://127.0.0.1:${port}`,
    readyPath: "/__mock/health",
  });
}
