/**
 * createApp: the mock as an Express app that does not listen, mountable in another Express app:
 * `parent.use("/mock", createApp().app)` serves the API under /mock/v1/... Express only routes the
 * request here; the core (core/pipeline.ts) does everything else, exactly as for `npm start`.
 */
import express, { type Express } from "express";
import { createMock, DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID, type Mock, type MockOptions } from "./core/mock.js";
import { nodeDocsSite } from "./docs/site.js";
import { nodeSha256 } from "./node/platform.js";
import { serveNode } from "./node/serve.js";

export { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID };

export interface MockApp extends Mock {
  app: Express;
}

export function createApp(overrides: Partial<MockOptions> = {}): MockApp {
  const mock = createMock({ sha256: nodeSha256, docs: nodeDocsSite({ apiKey: overrides.apiKey ?? DEFAULT_API_KEY }), ...overrides });
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((req, res) => void serveNode(mock.core, req, res, { base: req.baseUrl }));
  return { ...mock, app };
}
