/**
 * The servers the bench measures, each in its own child process on a free loopback port:
 *   (a) bare Express, (b) bare node:http: the mock's response bytes as constants (bare-server.ts)
 *   (c) the mock exactly as `npm start` runs it (`node dist/mock-server/main.js`, the compiled mock,
 *       NODE_ENV unset): the node:http door in front of the core, response validation on (its default),
 *       its console request log off (--log-format off)
 *   (c-prod) the same with NODE_ENV=production: response validation off, for comparison
 *   (d) `prism mock generated/openapi.json`, with its per-request logging turned down to errors
 * The MSW door has no socket; it is measured in its own child by msw.ts.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Fixture } from "./bare-server.js";
import { bin, freePort, root, startChild, TSX_EXEC_ARGV, type Child } from "./children.js";

export const MOCK_API_KEY = "bench-api-key";

/**
 * How the mock runs: "npm-start" as `npm start` runs it (NODE_ENV unset, so response validation is
 * on), "production" with NODE_ENV=production (response validation off). Either way no
 * --validate-responses flag: the setting is the one main.ts derives from the environment.
 */
export type MockConfig = "npm-start" | "production";

/**
 * `nodeArgs`: flags for node itself before the entry (profile.ts adds --cpu-prof). `sources`: run the
 * TypeScript sources through tsx instead of the compiled dist/, for profile.ts, whose samples are
 * named by their source file. `args`: more flags for the mock (shared-store.ts: --store, --workers).
 */
export async function startMockTarget(
  options: {
    config?: MockConfig;
    name?: string;
    nodeArgs?: string[];
    sources?: boolean;
    args?: string[];
    /** Another checkout of the kit, built (against.ts): its compiled mock runs instead of this one's. */
    root?: string;
  } = {},
): Promise<Child> {
  const config = options.config ?? "npm-start";
  const port = await freePort();
  return startChild({
    name: options.name ?? (config === "production" ? "mock (NODE_ENV=production)" : "mock"),
    // The request log off (Prism runs with -v error too): a line per request on a pipe the bench reads
    // would measure the console and the bench's own reading, not the mock.
    args: [
      ...(options.nodeArgs ?? []),
      ...(options.sources
        ? [...TSX_EXEC_ARGV, "mock-server/main.ts"]
        : [path.join(options.root ?? root, "dist/mock-server/main.js")]),
      "--port",
      String(port),
      "--api-key",
      MOCK_API_KEY,
      "--log-format",
      "off",
      ...(options.args ?? []),
    ],
    // Not inherited from the bench's own environment (vitest sets NODE_ENV=test).
    env: { NODE_ENV: config === "production" ? "production" : undefined },
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

export async function startBareTarget(
  kind: "express" | "http",
  fixtures: Fixture[],
  nodeArgs: string[] = [],
): Promise<Child> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "bench-fixtures-")), "fixtures.json");
  writeFileSync(file, JSON.stringify(fixtures));
  const port = await freePort();
  return startChild({
    name: kind === "express" ? "bare Express" : "bare node:http",
    args: [...nodeArgs, ...TSX_EXEC_ARGV, "scripts/bench/bare-server.ts", kind, String(port), file],
    url: `http://127.0.0.1:${port}`,
    readyPath: "/__mock/health",
  });
}
