/**
 * startMock: the app on a real socket. Tests bind 127.0.0.1 on an ephemeral port and close it when
 * done. Slow clients are cut off by Node's own request and header timeouts, so one stalled upload
 * cannot hold a connection slot forever while others are served.
 */
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { createApp, DEFAULT_API_KEY, type AppOptions, type MockApp } from "./app.js";
import type { ClockMode } from "./clock.js";
import { answerClientErrors } from "./http/client-errors.js";

export interface StartOptions extends Partial<Omit<AppOptions, "clock">> {
  port?: number;
  host?: string;
  clock?: ClockMode | AppOptions["clock"];
  /** Whole-request deadline in ms (headers and body). */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
}

export interface RunningMock {
  url: string;
  apiKey: string;
  mock: MockApp;
  server: Server;
  close(): Promise<void>;
}

export async function startMock(options: StartOptions = {}): Promise<RunningMock> {
  const { port = 0, host = "127.0.0.1", clock = "virtual", requestTimeoutMs = 120_000, headersTimeoutMs = 20_000, ...appOptions } = options;
  const mock = createApp({ ...appOptions, clock: typeof clock === "string" ? { mode: clock } : clock });
  // Host is checked in the app (requireHost), so its absence gets the 2.2 body like other failures.
  const server = createServer({ requireHostHeader: false }, mock.app);
  answerClientErrors(server, mock.services.clock);
  server.listen(port, host);
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = headersTimeoutMs;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return {
    url,
    apiKey: appOptions.apiKey ?? DEFAULT_API_KEY,
    mock,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      await mock.close();
    },
  };
}
