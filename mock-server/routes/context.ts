/**
 * What a handler gets and gives. Handlers return a Reply; the core sends it and validates it against
 * the spec, so no handler writes HTTP by hand, and none sees a transport.
 */
import type { operations } from "../../generated/schema.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import type { Clock } from "../core/clock.js";
import type { Contract } from "../core/contract.js";
import type { OperationId } from "../core/operations.js";
import type { Reply } from "../core/exchange.js";
import type { MultipartForm } from "../core/uploads.js";

export type { Reply };
import type { Simulation } from "../sim/simulation.js";
import type { Scheduler } from "../sim/scheduler.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";

export interface Services {
  clock: Clock;
  /** Where the workspaces live (store/store.ts): in memory, or in Redis. */
  workspaces: Store;
  simulation: Simulation;
  webhooks: WebhookDispatcher;
  scheduler: Scheduler;
  /** The spec the mock serves now: its own, replaced by a reload (--watch). Ask it each time. */
  contract(): Contract;
}

type Op<K extends OperationId> = operations[K];
type JsonBody<K extends OperationId> =
  Op<K> extends { requestBody: { content: { "application/json": infer B } } } ? B : undefined;
type Query<K extends OperationId> = Op<K>["parameters"] extends { query?: infer Q } ? NonNullable<Q> : never;
type PathParams<K extends OperationId> = Op<K>["parameters"] extends { path: infer P } ? P : never;

export interface RequestContext<K extends OperationId = OperationId> {
  workspace: Workspace;
  /** Path parameters, decoded and validated. */
  params: PathParams<K>;
  /** Query parameters, coerced to their types, with documented defaults filled in. */
  query: Query<K>;
  /** JSON body, validated against the spec (undefined for multipart operations). */
  body: JsonBody<K>;
  /** A multipart/form-data body: its rules applied and its fields validated (multipart operations only; empty otherwise). */
  form: MultipartForm;
  services: Services;
}

export type Handler<K extends OperationId> = (ctx: RequestContext<K>) => Reply | Promise<Reply>;

/** One table per resource group: operationId -> handler. */
export type HandlerTable<K extends OperationId> = { [P in K]: Handler<P> };
