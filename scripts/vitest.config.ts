/**
 * Two projects: `unit` (tests beside their units, and the spec's own checks: no server, no browser,
 * no child process; `npm run check` runs them) and `integration` (the `test/` folders, grouped by
 * concern). `npm test` runs both.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/lib/slow-first-sequencer.js";

const UNIT = [
  "{mock-server,conformance}/**/*.test.ts",
  "scripts/test/spec/**/*.test.ts",
  "scripts/test/layers.test.ts",
];

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Servers under test bind ephemeral ports, so files can run side by side. Vitest's default is one
    // worker fewer than the cores: one at a time on a 2-core machine, where the files mostly wait on
    // the processes and sockets they start (the whole run used 68 % of one core). One file per core.
    pool: "forks",
    maxWorkers: availableParallelism(),
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: ["{mock-server,conformance}/**/test/**", "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          // The bench's smoke run (npm run bench -- --quick) sits beside the bench it keeps working.
          include: ["{spec,mock-server,conformance,scripts}/**/test/**/*.test.ts", "scripts/bench/bench.test.ts"],
          exclude: ["scripts/test/spec/**", "scripts/test/layers.test.ts", "**/node_modules/**"],
        },
      },
    ],
  },
});
