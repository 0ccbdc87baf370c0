/**
 * The child vitest of shared-replicas.test.ts: the files of replica-runs.ts once per store, in one
 * run, a project per store whose workers get its MOCK_TEST_STORE. Vitest never hands a worker of one
 * project a file of another, so the modules a worker keeps between files (isolate off: the files share
 * their worker's modules instead of importing the mock again each, which took a third of the run)
 * were always loaded under the same store. Each file still starts and stops its own mocks and store.
 * What every file ended as goes to the JSON file $SHARED_REPLICAS_RESULTS names, for the parent to check.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { type FileResult, RESULTS_FILE_VARIABLE, RUNS, testFile } from "./replica-runs.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export default defineConfig({
  root: ROOT,
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    isolate: false,
    // More workers than the two cores: most of a file's time on the Cluster is spent waiting for it to
    // form (redis-cli --cluster create), and the docs page's run waits on Chromium.
    maxWorkers: 4,
    projects: RUNS.map(({ store, files }) => ({
      extends: true,
      test: { name: store, include: files.map(testFile), env: { MOCK_TEST_STORE: store } },
    })),
    reporters: [
      "default",
      {
        onTestRunEnd(modules) {
          const results: FileResult[] = modules.map((m) => ({
            store: m.project.name,
            file: m.relativeModuleId,
            state: m.state(),
            tests: [...m.children.allTests()].length,
          }));
          const out = process.env[RESULTS_FILE_VARIABLE];
          if (out) writeFileSync(out, JSON.stringify(results, null, 2));
        },
      },
    ],
  },
});
