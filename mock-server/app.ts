/**
 * createApp: the mock as an Express app that does not listen, mountable in another Express app:
 * `parent.use("/mock", createApp().app)` serves the API under /mock/v1/... Express only routes the
 * request here; the core (core/pipeline.ts) does everything else, exactly as for `npm start`.
 *
 * Express is an optional peer dependency of the kit (it alone would pull 68 packages into every app
 * that installs the kit), so it is loaded here, on first use, from the app's own node_modules.
 * Like startMock, the app serves Prometheus metrics at /__mock/metrics and sends OpenTelemetry traces
 * when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK loads in the background: createApp stays synchronous).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import {
  createMock,
  DEFAULT_API_KEY,
  DEFAULT_MOCK_OPTIONS,
  DEFAULT_WORKSPACE_ID,
  type Mock,
  type MockOptions,
} from "./mock/mock.js";
import { combineTelemetry } from "./core/telemetry.js";
import { createMetrics, mockSources } from "./node/metrics.js";
import { startTracing } from "./node/tracing.js";
import { nodeDocsSite } from "./docs-site/site.js";
import { nodeDashboardSite } from "./dashboard/site.js";
import { nodeSha256 } from "./node/platform.js";
import { serveNode } from "./node/serve.js";
import { compileSpec } from "./core/compile-spec.js";
import { parseDocumentText } from "./core/document-text.js";
import { readFileSync } from "node:fs";

export { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID };

/**
 * The Express application (what `express()` returns), typed by what a parent needs to mount it
 * (`parent.use(path, app)`), so that the kit's types do not require @types/express.
 */
export type MountableApp = ((req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void) & {
  disable(setting: string): unknown;
  set(setting: string, value: unknown): unknown;
  use(...handlers: unknown[]): unknown;
};

export interface MockApp extends Mock {
  app: MountableApp;
}

/** A document's file, read at once (createApp is synchronous). */
function readDocumentFile(file: string): object {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(
      `spec ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseDocumentText(text, `spec ${file}`) as object;
}

function loadExpress(): () => MountableApp {
  try {
    return createRequire(import.meta.url)("express") as () => MountableApp;
  } catch {
    throw new Error(
      "createApp() needs Express, an optional peer dependency of agent-platform-mock-kit: npm install express",
    );
  }
}

export interface AppOptions extends Partial<Omit<MockOptions, "spec">> {
  /**
   * The kit's spec by default; another OpenAPI 3.0/3.1 document as a parsed object or the path of its
   * YAML or JSON file (one file: startMock also bundles `$ref`s to other files), served by the generic
   * layer alone under its first server URL's path: `parent.use("/mock", createApp({ spec }).app)`
   * serves `/mock/api/v3/...` for a document whose server URL ends in /api/v3.
   */
  spec?: MockOptions["spec"] | string;
}

export function createApp(options: AppOptions = {}): MockApp {
  const { spec, ...rest } = options;
  const overrides: Partial<MockOptions> = {
    ...rest,
    ...(spec !== undefined && { spec: typeof spec === "string" ? readDocumentFile(spec) : spec }),
  };
  const express = loadExpress();
  const log = overrides.log ?? DEFAULT_MOCK_OPTIONS.log;
  const tracing = startTracing(process.env, { log });
  // No await here: missing OpenTelemetry packages are told in the log, and the app serves untraced.
  tracing?.ready.catch((error: Error) => log(error.message));
  const metrics = createMetrics(mockSources(() => mock));
  const mock: Mock = createMock(
    {
      sha256: nodeSha256,
      docs: nodeDocsSite({ apiKey: overrides.apiKey ?? DEFAULT_API_KEY }),
      dashboard: nodeDashboardSite(),
      metrics,
      ...overrides,
      telemetry: combineTelemetry(metrics, tracing, overrides.telemetry),
    },
    { compileDocument: compileSpec },
  );
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(
    (req: IncomingMessage & { baseUrl: string }, res: ServerResponse) =>
      void serveNode(mock.core, req, res, { base: req.baseUrl }),
  );
  return {
    ...mock,
    app,
    async close() {
      await mock.close();
      await tracing?.shutdown();
    },
  };
}
