/**
 * The generic layer's entry: the handler of an operation that has no hand-written one. The plan
 * (plan.ts) says whether the operation is a collection's (records.ts) or answers from its schema
 * (answer.ts); the pipeline has validated the request and answered Prefer before, and validates the
 * reply after, as for any handler.
 */
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";
import type { GenericHandler } from "./context.js";
import { schemaAnswer } from "./answer.js";
import { decisionOf } from "./plan.js";
import { collectionHandler } from "./records.js";

export type { GenericContext, GenericHandler } from "./context.js";

/** The handler of `op`, an operation of `contract`; asked once per operation and contract. */
export function genericHandler(contract: Contract, op: Operation): GenericHandler {
  const decision = decisionOf(contract, op.operationId);
  if (decision.kind === "collection") return collectionHandler(contract, op, decision);
  return (ctx) => schemaAnswer(contract, op, ctx);
}

/** Another document's error body (the pipeline asks it for documents served with `--spec`). */
export { documentErrorBody } from "./error-body.js";
