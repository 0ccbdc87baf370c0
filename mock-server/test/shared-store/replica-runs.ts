/**
 * Which of the mock's own test files run again against two replicas, on which store
 * (shared-replicas.test.ts says why these and not the others), and where the child vitest that runs
 * them (replicas.vitest.config.ts) writes what each file ended as.
 */

/** Under mock-server/test/, by concern. */
export const FILES = [
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

/** One run per store, named as the harness's MOCK_TEST_STORE (mock-server/test/harness.ts) takes it. */
export const RUNS = [
  { store: "redis", on: "on one Redis", files: FILES },
  { store: "redis-cluster", on: "on a Redis Cluster of 3 masters", files: FILES.filter((f) => f !== "doors/docs") },
] as const;

export const testFile = (name: string): string => `mock-server/test/${name}.test.ts`;

/** The environment variable that names the file the child writes its results to. */
export const RESULTS_FILE_VARIABLE = "SHARED_REPLICAS_RESULTS";

/** One test file's end in one store's project. */
export interface FileResult {
  store: string;
  /** Relative to the repository, as testFile() names it. */
  file: string;
  state: string;
  tests: number;
}
