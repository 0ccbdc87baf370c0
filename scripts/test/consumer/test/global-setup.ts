/** The README's global setup: one mock server for the whole test run, its URL provided to the tests. */
import type { TestProject } from "vitest/node";
import { startMock } from "agent-platform-mock-kit/server";

declare module "vitest" {
  export interface ProvidedContext {
    apiUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const mock = await startMock({ port: 0, clock: "virtual" });
  project.provide("apiUrl", mock.url);
  return () => mock.close();
}
