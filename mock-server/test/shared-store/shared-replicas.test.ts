/**
 * The mock's own tests, again, against two replicas on one Redis, then on a Redis Cluster of 3 masters,
 * behind a proxy that sends each request to the other replica (harness.ts, MOCK_TEST_STORE=redis or
 * redis-cluster): a client cannot tell them from one mock, on either store. Run as a child vitest per
 * store, so these files also keep their ordinary in-memory run.
 * Left out, and why:
 *  - slow-clients: it tests how the node:http door treats raw sockets (408s, malformed heads), which
 *    the proxy in front replaces with its own;
 *  - isolation: it reads the store's objects in-process, which on a replica are a copy of a moment;
 *    its promise is checked over HTTP by the conformance suite (run against replicas in
 *    conformance/test/shared-store.test.ts);
 *  - spec-watch: --watch reloads one process and does not combine with --store.
 * On the Cluster also doors/docs: it drives the docs page in Chromium (about half of the whole run's
 * time) and asks the store nothing the api/ files do not; its run on one Redis covers replicas.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** Under mock-server/test/, by concern. */
const FILES = [
  "api/auth",
  "control/control-contract",
  "control/control-plane-input",
  "control/control-plane",
  "control/coverage",
  "control/har",
  "doors/docs",
  "api/integrations",
  "api/knowledge-bases",
  "api/lists",
  "api/resources",
  "api/routing",
  "api/secrets",
  "webhooks/webhook-failures",
  "webhooks/webhooks",
];

const RUNS = [
  { store: "redis", on: "on one Redis", files: FILES },
  { store: "redis-cluster", on: "on a Redis Cluster of 3 masters", files: FILES.filter((f) => f !== "doors/docs") },
] as const;

/**
 * Runs `names` (under mock-server/test/) in a child vitest with MOCK_TEST_STORE=`store`: its exit code
 * and output. --no-isolate: the files share their worker's modules instead of importing the mock again
 * each (each starts and stops its own mocks and store all the same), which took a third of the run.
 */
function runFiles(store: string, names: readonly string[]): Promise<{ code: number | null; output: string }> {
  const files = names.map((f) => `mock-server/test/${f}.test.ts`);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--config", "scripts/vitest.config.ts", "--no-isolate", ...files],
      {
        cwd: ROOT,
        env: { ...process.env, MOCK_TEST_STORE: store, CI: "true" },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
    child.stdin?.end();
  });
}

describe("the mock's tests against two replicas", () => {
  for (const { store, on, files } of RUNS)
    it(`pass ${on}: ${files.join(", ")}`, async () => {
      const { code, output } = await runFiles(store, files);
      const summary =
        /Test Files .*\n.*Tests .*/.exec(output.replace(/\x1b\[[0-9;]*m/g, ""))?.[0] ?? output.slice(-3000);
      expect(code, output.slice(-6000)).toBe(0);
      expect(summary).toMatch(new RegExp(`Test Files +${files.length} passed`));
    }, 300_000);
});
