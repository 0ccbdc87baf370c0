/**
 * The /__mock control plane (spec/mock-control.yaml): health, reset, workspaces, fixtures, clocks,
 * fault rules, the request journal and the webhook outbox. No API key: it exists only on the mock.
 * Routes of the core like the operations, so every door serves them alike; one file per group.
 */
import type { Reply, Services } from "../core/context.js";
import type { FaultRules } from "../core/faults.js";
import type { RequestJournal } from "../core/journal.js";
import { clockRoutes } from "./clock.js";
import { faultRoutes } from "./faults.js";
import { journalRoutes } from "./journals.js";
import { recordRoutes } from "./records.js";
import { workspaceRoutes } from "./workspaces.js";

export interface ControlRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when none (or no JSON) was sent. */
  body: unknown;
}

export interface ControlRoute {
  /** Its operationId in spec/mock-control.yaml: the journal and the request log name it. */
  operationId: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /__mock: `/workspaces/{workspaceId}`. */
  path: string;
  handle(request: ControlRequest): Reply | Promise<Reply>;
  /** The handler runs its own transactions (Workspaces.control); otherwise its synchronous part is one. */
  ownTransactions?: boolean;
}

/** What the control plane works on: the mock's services, and the core's journal and fault rules. */
export interface ControlServices extends Services {
  journal: RequestJournal;
  faults: FaultRules;
}

/** In match order: a fixed segment (`/workspaces/{id}/reset`) before the `{collection}` it would also fit. */
export function controlRoutes(services: ControlServices): ControlRoute[] {
  return [
    ...workspaceRoutes(services),
    ...recordRoutes(services),
    ...clockRoutes(services),
    ...faultRoutes(services),
    ...journalRoutes(services),
  ];
}
