/**
 * The generic layer's entry: the handler of an operation that has no hand-written one.
 * PLACEHOLDER (being replaced by the generic layer's real implementation in this change).
 */
import type { Clock } from "../core/clock.js";
import { ApiError } from "../core/errors.js";
import type { Contract } from "../core/contract.js";
import type { Reply } from "../core/exchange.js";
import type { Operation } from "../core/operations.js";
import type { Workspace } from "../store/workspace.js";

/**
 * What a generic handler reads of a request: a part of routes/context.ts's RequestContext (which sits a
 * layer above), so a generic handler serves where a hand-written one would.
 */
export interface GenericContext {
  workspace: Workspace;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  services: { clock: Clock; contract(): Contract };
}

export type GenericHandler = (ctx: GenericContext) => Reply;

export function genericHandler(_contract: Contract, op: Operation): GenericHandler {
  return () => {
    throw new ApiError(501, `${op.operationId} has no handler yet`);
  };
}
