/**
 * createApp: the whole request pipeline in one place, and nothing that listens.
 *
 *   request id -> journal -> Host required -> CORS -> /__mock control plane -> /openapi.json, /docs
 *   -> for each operation of the spec: API key to workspace (401/403) -> body parsing
 *      -> request validation (400) -> Prefer controls -> handler -> response validation
 *   -> 405 with Allow for a known path, 404 otherwise -> the one error handler (2.2 body)
 */
import { randomUUID } from "node:crypto";
import express, { type Express, type RequestHandler } from "express";
import { Clock, type ClockOptions } from "./clock.js";
import { controlRouter } from "./control/router.js";
import { docsPage } from "./docs/page.js";
import { authenticate } from "./http/auth.js";
import { requireHost } from "./http/connection-errors.js";
import type { Services } from "./http/context.js";
import { cors } from "./http/cors.js";
import { ApiError, errorHandler, notFoundHandler } from "./http/errors.js";
import { Journal, recordRequests } from "./http/journal.js";
import { loadOperations } from "./http/operations.js";
import { operationStages } from "./http/pipeline.js";
import { loadSpec } from "./http/schemas.js";
import { restoreState, type PersistedState } from "./persistence.js";
import { handlers } from "./routes/index.js";
import { seedWorkspace } from "./seed/index.js";
import { Simulation } from "./sim/simulation.js";
import { Workspaces } from "./store/workspace.js";
import { DEFAULT_DISPATCHER_OPTIONS, WebhookDispatcher, type DispatcherOptions } from "./webhooks/dispatcher.js";

export const DEFAULT_API_KEY = "mock-api-key";
export const DEFAULT_WORKSPACE_ID = "default";

export interface AppOptions {
  apiKey: string;
  seed: number;
  clock: ClockOptions;
  validateResponses: boolean;
  journalCapacity: number;
  webhooks: Partial<Omit<DispatcherOptions, "log">>;
  log: (line: string) => void;
  /** State loaded from --state-file: replaces the seeded world. */
  restore?: PersistedState;
}

export const DEFAULT_APP_OPTIONS: AppOptions = {
  apiKey: DEFAULT_API_KEY,
  seed: 1,
  clock: { mode: "real" },
  validateResponses: true,
  journalCapacity: 500,
  webhooks: {},
  log: (line) => console.error(line),
};

export interface MockApp {
  app: Express;
  services: Services;
  journal: Journal;
  options: AppOptions;
  /** Stops timers and waits for webhook attempts under way. */
  close(): Promise<void>;
}

function requestId(): RequestHandler {
  return function assignRequestId(req, res, next) {
    const given = req.headers["x-request-id"];
    res.setHeader("X-Request-Id", typeof given === "string" && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID());
    next();
  };
}

export function createApp(overrides: Partial<AppOptions> = {}): MockApp {
  const options: AppOptions = { ...DEFAULT_APP_OPTIONS, ...overrides };
  const clock = new Clock(options.clock);
  clock.onTaskError = (error) => options.log(`scheduled task failed: ${(error as Error)?.stack ?? String(error)}`);
  const webhooks = new WebhookDispatcher(clock, { ...DEFAULT_DISPATCHER_OPTIONS, ...options.webhooks, log: options.log });
  const simulation = new Simulation(clock, webhooks);
  const workspaces = new Workspaces((workspace) => {
    seedWorkspace(workspace, clock.now());
    simulation.resume(workspace);
  });
  const services: Services = { clock, workspaces, simulation, webhooks };
  workspaces.add({ workspaceId: DEFAULT_WORKSPACE_ID, apiKey: options.apiKey, seed: options.seed, empty: false, readOnly: false });
  if (options.restore) {
    restoreState(options.restore, workspaces);
    for (const workspace of workspaces.list()) simulation.resume(workspace);
  }
  const journal = new Journal(options.journalCapacity);

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  app.use(requestId(), recordRequests(journal, clock), requireHost(), cors());
  app.use("/__mock", controlRouter({ services, journal, defaultWorkspaceId: DEFAULT_WORKSPACE_ID }));
  app.get("/openapi.json", (_req, res) => void res.json(loadSpec()));
  app.get(["/docs", "/docs/"], (_req, res) => void res.type("html").send(docsPage()));

  const requireKey = authenticate(workspaces);
  const allowed = new Map<string, string[]>();
  for (const op of loadOperations()) {
    const handler = handlers[op.operationId];
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    app[op.method](op.routePath, requireKey, ...operationStages(op, handler as never, services, { validateResponses: options.validateResponses, log: options.log }));
    allowed.set(op.routePath, [...(allowed.get(op.routePath) ?? []), op.method.toUpperCase()]);
  }
  for (const [routePath, methods] of allowed) {
    const allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
    app.all(routePath, (req, res, next) => {
      // A plain OPTIONS (not a CORS preflight, which cors() answered) asks what is allowed.
      if (req.method === "OPTIONS") return void res.setHeader("Allow", allow).status(204).end();
      next(new ApiError(405, `${req.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow }));
    });
  }
  app.use(notFoundHandler());
  app.use(errorHandler(clock, options.log));

  return {
    app,
    services,
    journal,
    options,
    async close() {
      clock.stop();
      await webhooks.idle();
    },
  };
}
