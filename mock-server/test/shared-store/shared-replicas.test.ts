/**
 * The mock's own tests, again, against two replicas on one Redis behind a proxy that sends each
 * request to the other replica (harness.ts, MOCK_TEST_STORE=redis): a client cannot tell them from one
 * mock. Run as a child vitest, so these files also keep their ordinary in-memory run.
 * Left out, and why:
 *  - slow-clients: it tests how the node:http door treats raw sockets (408s, malformed heads), which
 *    the proxy in front replaces with its own;
 *  - isolation: it reads the store's objects in-process, which on a replica are a copy of a moment;
 *    its promise is checked over HTTP by the conformance suite (run against replicas in
 *    conformance/test/shared-store.test.ts);
 *  - spec-watch: --watch reloads one process and does not combine with --store.
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

describe("the mock's tests against two replicas on one Redis", () => {
  it(`pass: ${FILES.join(", ")}`, async () => {
    const files = FILES.map((f) => `mock-server/test/${f}.test.ts`);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["node_modules/vitest/vitest.mjs", "run", "--config", "scripts/vitest.config.ts", ...files],
        {
          cwd: ROOT,
          env: { ...process.env, MOCK_TEST_STORE: "redis", CI: "true" },
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
      child.stdin?.end();
    });
    const summary = /Test Files .*\n.*Tests .*/.exec(output.replace(/\x1b\[[0-9;]*m/g, ""))?.[0] ?? output.slice(-3000);
    expect(code, output.slice(-6000)).toBe(0);
    expect(summary).toMatch(new RegExp(`Test Files +${FILES.length} passed`));
  }, 300_000);
});
