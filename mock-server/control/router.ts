/**
 * The /__mock control plane (spec/mock-control.yaml): health, reset, workspaces, fixtures (the generic
 * layer's too), clocks, fault rules, the request journal and the webhook outbox. No API key: it exists
 * only on the mock.
 * Routes of the core like the operations, so every door serves them alike; one file of handlers per
 * group. Methods, paths and validation come from the spec (core/control-operations.ts); an operation
 * without a handler, or a handler without an operation, stops the mock at start.
 */
import { controlOperations, type ControlOperationId } from "../core/control-operations.js";
import { clockHandlers } from "./clock.js";
import { coverageHandlers } from "./coverage.js";
import { faultHandlers } from "./faults.js";
import { journalHandlers } from "./journals.js";
import { announcer, detailHandlers, liveHandlers } from "./live.js";
import { operabilityHandlers } from "./operability.js";
import { genericRecordHandlers } from "./generic-records.js";
import { recordHandlers } from "./records.js";
import { WorkspaceGone } from "../store/store.js";
import type { ControlHandler, ControlHandlers, ControlRoute, ControlServices } from "./types.js";
import { workspaceHandlers, workspaceNotFound } from "./workspaces.js";

export type { ControlHandler, ControlHandlers, ControlRoute, ControlServices } from "./types.js";

/**
 * Every control operation with its handler, in match order (controlOperations). Each handler's
 * synchronous part is one control-plane transaction of the store, but the clock's: an advance runs each
 * task that falls due as a transaction of its own (clock.ts).
 */
export function controlRoutes(services: ControlServices): ControlRoute[] {
  const store = services.workspaces;
  const oneTransaction = <K extends ControlOperationId>(handlers: ControlHandlers<K>): ControlHandlers<K> => {
    const wrapped: Record<string, ControlHandler<never>> = {};
    for (const [id, handler] of Object.entries<ControlHandler<never>>(handlers))
      wrapped[id] = { ...handler, handle: (input) => store.control(() => handler.handle(input)) };
    return wrapped as unknown as ControlHandlers<K>;
  };
  const handlers: Partial<ControlHandlers<ControlOperationId>> = {
    ...oneTransaction(workspaceHandlers(services)),
    ...oneTransaction(recordHandlers(services)),
    ...oneTransaction(genericRecordHandlers(services)),
    ...clockHandlers(services),
    ...oneTransaction(faultHandlers(services)),
    ...oneTransaction(journalHandlers(services)),
    ...oneTransaction(coverageHandlers(services)),
    ...oneTransaction(detailHandlers(services)),
    // Each runs its own transactions: a stream holds none, a redelivery waits for its attempt.
    ...liveHandlers(services),
    // Readiness times its own store read; metrics read no state.
    ...operabilityHandlers(services),
  };
  const announce = announcer(services.events);
  return joinHandlers(handlers as Record<string, ControlHandler<never> | undefined>).map((route) => ({
    ...route,
    handle: async (input) => {
      // A workspace deleted by another process while this ran: as if the request had come after.
      const reply = await Promise.resolve(route.handle(input)).catch((error: unknown) => {
        throw error instanceof WorkspaceGone ? workspaceNotFound(error.workspaceId) : error;
      });
      announce(route.operationId, input, reply as never);
      return reply;
    },
  }));
}

/** The spec's operations joined with their handlers; throws when one of either has no partner. */
export function joinHandlers(
  handlers: Record<string, ControlHandler<never> | undefined>,
  operations = controlOperations,
): ControlRoute[] {
  const known = new Set<string>(operations.map((op) => op.operationId));
  const unknown = Object.keys(handlers).filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new Error(`control handlers for operations spec/mock-control.yaml does not have: ${unknown.join(", ")}`);
  const missing = operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  if (missing.length > 0)
    throw new Error(`no control handler for operations of spec/mock-control.yaml: ${missing.join(", ")}`);
  return operations.map((operation) => {
    const handler = handlers[operation.operationId] as unknown as ControlRoute;
    return {
      operationId: operation.operationId,
      method: operation.method,
      path: operation.path,
      operation,
      handle: (input) => handler.handle(input),
      check: handler.check && ((input) => handler.check!(input)),
    };
  });
}
