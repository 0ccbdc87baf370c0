/**
 * The generic layer's answer to an operation, for a hand-written handler that starts from it (what
 * `npm run scaffold -- OPERATION_ID` writes) or falls back to it for the cases it does not handle yet.
 * One generic handler per operation and contract, made on first use: a reloaded spec (--watch) gets its own.
 */
import type { Contract } from "../core/contract.js";
import type { OperationId } from "../core/operations.js";
import { type GenericContext, type GenericHandler, genericHandler } from "../generic/handler.js";
import type { Reply, RequestContext } from "./context.js";

const handlersOf = new WeakMap<Contract, Map<string, GenericHandler>>();

/** What the generic layer reads of a request: the handler passes on the parts it was given. */
export type GenericRequest<K extends OperationId> = Pick<
  RequestContext<K>,
  "workspace" | "params" | "query" | "body" | "services"
>;

/** The reply the generic layer gives this request; it throws the error replies (404, 400) as handlers do. */
export function genericAnswer<K extends OperationId>(operationId: K, request: GenericRequest<K>): Reply {
  const contract = request.services.contract();
  let handlers = handlersOf.get(contract);
  if (!handlers) handlersOf.set(contract, (handlers = new Map()));
  let handler = handlers.get(operationId);
  if (!handler) handlers.set(operationId, (handler = genericHandler(contract, contract.operation(operationId))));
  return handler(request as unknown as GenericContext);
}
