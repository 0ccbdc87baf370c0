/**
 * The MSW door under load, run as a forked child with an IPC channel (msw.ts starts it):
 *   node --import tsx scripts/bench/msw-door.ts [KIT | HANDLERS.ts]
 * createMockHandlers() (real clock, response validation on, as `npm start`) behind msw's
 * setupServer in Node; `connections` concurrent loops of `fetch` against the handlers' base URL, where
 * nothing listens (an unhandled request is an error, so no request leaves the process). Client,
 * interception and core share this one process and its one JavaScript thread.
 *
 * It answers msw.ts's messages as msw-load.ts says (msw-bare.ts, the bare handlers it is set beside, is
 * driven the same way); the parent reads this process's CPU time from /proc around measured runs, as
 * for the other targets.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setupServer } from "msw/node";
import type * as Handlers from "../../mock-server/msw/handlers.js";
import { MSW_BASE_URL, MSW_SCENARIOS } from "./msw.js";
import { serveLoad } from "./msw-load.js";
import { buildScenarios } from "./scenarios.js";
import { MOCK_API_KEY } from "./targets.js";

// --against passes the root of a built kit (this tree's or REV's worktree): both then run their dist/.
// msw-ratio.ts --handlers passes a handlers module of its own (an earlier handlers.ts copied beside it).
const kit = process.argv[2];
const { createMockHandlers }: typeof Handlers = !kit
  ? await import("../../mock-server/msw/handlers.js")
  : /\.[cm]?[jt]s$/.test(kit)
    ? await import(pathToFileURL(path.resolve(kit)).href)
    : await import(pathToFileURL(path.join(kit, "dist/mock-server/msw/handlers.js")).href);

const { handlers, mock } = createMockHandlers({
  baseUrl: MSW_BASE_URL,
  apiKey: MOCK_API_KEY,
  clock: "real",
  validateResponses: true,
  log: (line) => console.error(line),
});
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: "error" });

// The same requests and ids as the socket targets get, read through the door itself.
const scenarios = new Map(
  (await buildScenarios(MSW_BASE_URL, MOCK_API_KEY))
    .filter((s) => MSW_SCENARIOS.includes(s.name))
    .map((s) => [s.name, s.request]),
);

serveLoad(MSW_BASE_URL, scenarios, () => {
  server.close();
  void mock.close().then(() => process.exit(0));
});
