/**
 * The pipeline's part around a generic handler, for the generic layer's tests: parameters validated
 * and coerced, the body validated, the handler run, an ApiError turned into its status, and the reply
 * checked against the document (a drift fails the test, as response validation fails the mock).
 */
import { Clock } from "../../core/clock.js";
import type { Contract } from "../../core/contract.js";
import { ApiError, toApiError } from "../../core/errors.js";
import { replyDrift, toValidationErrors } from "../../core/validation.js";
import { Workspace } from "../../store/workspace.js";
import { type GenericHandler, genericHandler } from "../handler.js";

export const NOW = new Date("2026-11-01T12:00:00.000Z");

export function workspaceOf(seed = 1, workspaceId = `w${seed}`): Workspace {
  return new Workspace(
    { workspaceId, apiKey: `key-${workspaceId}`, seed, empty: true, readOnly: false },
    new Clock({ mode: "virtual", start: NOW }),
  );
}

export interface Call {
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
}

export interface Answer {
  status: number;
  body?: any;
  message?: string;
  validationErrors?: Record<string, string>;
}

/** Calls operations of `contract` the way the mock's pipeline does. */
export function server(contract: Contract) {
  const handlers = new Map<string, GenericHandler>();
  return (workspace: Workspace, operationId: string, call: Call = {}): Answer => {
    const op = contract.operation(operationId);
    let handler = handlers.get(operationId);
    if (!handler) handlers.set(operationId, (handler = genericHandler(contract, op)));
    const target = { path: { ...call.params }, query: { ...call.query } };
    if (!op.validateParams(target)) {
      // Parameters by their own name, as the pipeline reports them.
      const errors = op.validateParams.errors?.map((e) => ({
        ...e,
        instancePath: e.instancePath.replace(/^\/(path|query)/, ""),
      }));
      return { status: 400, validationErrors: toValidationErrors(errors) };
    }
    const body = call.body === undefined ? undefined : structuredClone(call.body);
    if (body !== undefined && op.validateBody && !op.validateBody(body))
      return { status: 400, validationErrors: toValidationErrors(op.validateBody.errors) };
    try {
      const reply = handler({
        workspace,
        params: target.path,
        query: target.query,
        body,
        services: { clock: workspace.clock, contract: () => contract },
      });
      const documented = op.responses.get(reply.status);
      const drift = replyDrift(reply, documented?.check, () => documented?.errors() ?? []);
      if (drift) throw new Error(`${operationId}: ${drift}: ${JSON.stringify(reply.body)}`);
      // Through JSON, as a client gets it.
      return {
        status: reply.status,
        body: reply.body === undefined ? undefined : JSON.parse(JSON.stringify(reply.body)),
      };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const failure = toApiError(error);
      return { status: failure.status, message: failure.message, validationErrors: failure.validationErrors };
    }
  };
}
