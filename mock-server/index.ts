/**
 * `agent-platform-mock-kit/server`: the mock inside a Node process, for an app's tests
 * (`startMock` in a globalSetup) or mounted in the app's own Express server (`createApp`).
 */
export {
  startMock,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type RunningMock,
  type StartOptions,
} from "./server.js";
export { type AppOptions, createApp, type MockApp, type MountableApp } from "./app.js";
export { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID, type Mock, type MockOptions } from "./mock/mock.js";
export type { ClockMode, ClockOptions } from "./core/clock.js";
