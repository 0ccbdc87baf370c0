/**
 * The Node side of a consumer: the server in a test's globalSetup, the Express mount, MSW handlers
 * and webhook verification, type-checked like src/app.ts.
 */
import { createApp, startMock, type RunningMock } from "agent-platform-mock-kit/server";
import { createMockHandlers } from "agent-platform-mock-kit/msw";
import { verifyWebhookSignature } from "agent-platform-mock-kit/webhooks";

export async function globalSetup(): Promise<() => Promise<void>> {
  const mock: RunningMock = await startMock({ port: 0, apiKey: "test-key", clock: "virtual" });
  process.env.PLATFORM_URL = mock.url;
  return () => mock.close();
}

export function mount(parent: { use(path: string, app: unknown): unknown }): void {
  parent.use("/mock", createApp({ apiKey: "test-key" }).app);
}

export function mswHandlers(): unknown[] {
  return createMockHandlers({ baseUrl: "https://api.example.com", seed: 7, clock: "virtual" }).handlers;
}

export function verified(payload: string, header: string | null, secret: string): boolean {
  return verifyWebhookSignature({ payload, header, secret });
}
