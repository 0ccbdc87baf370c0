/**
 * The two doors that parse a multipart body themselves: the standalone server (node:http, reading the
 * stream) and the MSW handlers (setupServer, reading a Request). Upload tests run through both.
 */
import { setupServer } from "msw/node";
import { DEFAULT_API_KEY } from "../../mock/mock.js";
import { createMockHandlers } from "../../msw/handlers.js";
import { startMock } from "../../server.js";

export interface UploadDoor {
  base: string;
  apiKey: string;
  close(): Promise<void>;
}

const quiet = () => undefined;

/** `host`: the MSW door's made-up origin, one per test file so their handlers never meet. */
export function uploadDoors(host: string): { name: string; open(): Promise<UploadDoor> }[] {
  return [
    {
      name: "the standalone server (node:http, streaming reader)",
      async open() {
        const running = await startMock({ log: quiet });
        return { base: running.url, apiKey: running.apiKey, close: () => running.close() };
      },
    },
    {
      name: "the MSW handlers (setupServer)",
      async open() {
        const base = `http://${host}`;
        const { handlers, mock } = createMockHandlers({ baseUrl: base, clock: "virtual", log: quiet });
        const server = setupServer(...handlers);
        server.listen({ onUnhandledRequest: "error" });
        return {
          base,
          apiKey: DEFAULT_API_KEY,
          async close() {
            server.close();
            await mock.close();
          },
        };
      },
    },
  ];
}
