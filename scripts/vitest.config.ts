import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["{spec,mock-server,conformance,scripts}/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Servers under test bind ephemeral ports; files run in parallel on the two cores.
    pool: "forks",
  },
});
