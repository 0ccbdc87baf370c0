/**
 * What a generic handler reads of a request and gives back (handler.ts exports them to the pipeline;
 * records.ts and answer.ts read them without importing the entry).
 */
import type { Clock } from "../core/clock.js";
import type { Contract } from "../core/contract.js";
import type { Reply } from "../core/exchange.js";
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
