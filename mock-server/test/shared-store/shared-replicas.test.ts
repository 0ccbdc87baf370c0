/**
 * The mock's own tests, again, against two replicas on one Redis, and on a Redis Cluster of 3 masters,
 * behind a proxy that sends each request to the other replica (harness.ts, MOCK_TEST_STORE=redis or
 * redis-cluster): a client cannot tell them from one mock, on either store. Run in a child vitest with
 * a project per store (replicas.vitest.config.ts; the files are replica-runs.ts's), so these files also
 * keep their ordinary in-memory run.
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
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type FileResult, RESULTS_FILE_VARIABLE, RUNS, testFile } from "./replica-runs.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CONFIG = "mock-server/test/shared-store/replicas.vitest.config.ts";

interface ChildRun {
  code: number | null;
  output: string;
  results: FileResult[];
}

/**
 * Every store's files in one child vitest (replicas.vitest.config.ts: a project per store): its exit
 * code, its output and what each file ended as. One child rather than one per store: vitest starts and
 * transforms the mock once, and its workers take the next file of either store as they come free.
 */
function runReplicas(): Promise<ChildRun> {
  const dir = mkdtempSync(join(tmpdir(), "shared-replicas-"));
  const resultsFile = join(dir, "results.json");
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--config", CONFIG],
      {
        cwd: ROOT,
        env: { ...process.env, [RESULTS_FILE_VARIABLE]: resultsFile, CI: "true" },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        let results: FileResult[] = [];
        try {
          results = JSON.parse(readFileSync(resultsFile, "utf8")) as FileResult[];
        } catch {
          /* no results written: the output says why */
        }
        rmSync(dir, { recursive: true, force: true });
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr, results });
      },
    );
    child.stdin?.end();
  });
}

let run: Promise<ChildRun> | undefined;

describe("the mock's tests against two replicas", () => {
  for (const { store, on, files } of RUNS)
    it(`pass ${on}: ${files.join(", ")}`, async () => {
      run ??= runReplicas();
      const { code, output, results } = await run;
      // Every file of this store ran, under this store, and passed with tests in it.
      const mine = results
        .filter((r) => r.store === store)
        .map((r) => [r.file, r.state, r.tests > 0])
        .sort();
      expect(mine, output.slice(-6000)).toEqual(files.map((f) => [testFile(f), "passed", true]).sort());
      expect(code, output.slice(-6000)).toBe(0);
    }, 300_000);
});
