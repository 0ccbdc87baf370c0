/**
 * The per-operation stages after authentication: body parsing, request validation from the spec,
 * Prism-style Prefer controls, the handler, and the reply with response validation.
 */
import express, { type NextFunction, type RequestHandler } from "express";
import { ApiError, invalid } from "./errors.js";
import type { Operation } from "./operations.js";
import { toValidationErrors } from "./schemas.js";
import type { Handler, Reply, Services } from "./context.js";
import { preferredReply } from "./prefer.js";
import { readReplyJson, sendJson } from "./reply-json.js";

export const JSON_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: JSON_LIMIT_BYTES, strict: true, type: ["application/json", "application/*+json"] });

const tooLarge = () => new ApiError(413, `Request body exceeds the ${JSON_LIMIT_BYTES} byte limit`);

/**
 * express.json, answering 413 as soon as the body passes the limit. express.json alone reads the
 * whole body before it answers, so a client sending 100 MB would have to send all of it; here the
 * answer comes at the limit, and the connection closes with it (sendError), which ends the upload.
 */
function parseJsonBody(): RequestHandler {
  return function parseCappedJson(req, res, next) {
    let settled = false;
    const once: NextFunction = (error?: unknown) => {
      if (settled) return;
      settled = true;
      req.off("data", count);
      next(error);
    };
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > JSON_LIMIT_BYTES) once(tooLarge());
    };
    if (Number(req.headers["content-length"]) > JSON_LIMIT_BYTES) return once(tooLarge());
    parseJson(req, res, once);
    // express.json is reading now (it listens to "data"); counting alongside it takes nothing from it.
    if (!settled && !req.complete) req.on("data", count);
  };
}

export interface PipelineOptions {
  validateResponses: boolean;
  log: (line: string) => void;
}

/** JSON operations: the body must be JSON when one is sent, and present when the spec requires it. */
function requireJsonBody(op: Operation): RequestHandler {
  return function checkJsonBody(req, _res, next) {
    const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    if (hasBody && !req.is(["application/json", "application/*+json"])) {
      next(new ApiError(400, `Content-Type must be application/json for ${op.operationId}`, { body: "must be sent as application/json" }));
      return;
    }
    if (op.bodyRequired && req.body === undefined) {
      next(new ApiError(400, "Request body is required", { body: "is required" }));
      return;
    }
    next();
  };
}

function validateRequest(op: Operation): RequestHandler {
  return function validateAgainstSpec(req, res, next) {
    // Both objects are this request's own (Express builds req.params per match and req.query per
    // read), so ajv may coerce them in place without a copy.
    const target = { path: req.params, query: req.query as Record<string, unknown> };
    if (!op.validateParams(target)) {
      // Parameters are reported by their own name (`size`, `phoneNumber`), not by location.
      const errors = toValidationErrors(op.validateParams.errors?.map((e) => ({ ...e, instancePath: e.instancePath.replace(/^\/(path|query)/, "") })));
      next(invalid(errors));
      return;
    }
    if (op.validateBody && req.body !== undefined && !op.validateBody(req.body)) {
      next(invalid(toValidationErrors(op.validateBody.errors)));
      return;
    }
    res.locals.params = target.path;
    res.locals.query = target.query;
    next();
  };
}

function runHandler(op: Operation, handler: Handler<never>, services: Services, options: PipelineOptions): RequestHandler {
  return async function handleOperation(req, res) {
    // Most requests carry no Prefer header and most handlers are synchronous: no await for them.
    const preferred = req.headers.prefer ? await preferredReply(op, req, services.clock) : undefined;
    const ctx = { req, workspace: req.workspace!, params: res.locals.params, query: res.locals.query, body: req.body, services };
    const result = preferred ?? (handler as Handler<any>)(ctx);
    const reply: Reply = result instanceof Promise ? await result : result;
    if (options.validateResponses) checkReply(op, reply, options);
    if (preferred) res.setHeader("Preference-Applied", String(req.headers.prefer));
    sendJson(res, reply.status, reply.body, reply.body !== undefined && op.method === "get" ? readReplyJson(reply.body) : undefined);
  };
}

/** The mock must not drift from the spec unnoticed: an off-spec reply becomes a loud 500. */
function checkReply(op: Operation, reply: Reply, options: PipelineOptions): void {
  const documented = op.responses.get(reply.status);
  if (!documented) throw driftError(op, `status ${reply.status} is not documented`, options);
  if (documented.validate === null) {
    if (reply.body !== undefined) throw driftError(op, `status ${reply.status} must have no body`, options);
    return;
  }
  if (!documented.validate(reply.body)) {
    const detail = (documented.validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
    throw driftError(op, `body of ${reply.status} does not match the spec: ${detail}`, options);
  }
}

function driftError(op: Operation, detail: string, options: PipelineOptions): ApiError {
  options.log(`response validation failed for ${op.operationId}: ${detail}`);
  return new ApiError(500, `Mock response failed validation against the spec (${op.operationId}): ${detail}`);
}

export function operationStages(op: Operation, handler: Handler<never>, services: Services, options: PipelineOptions): RequestHandler[] {
  const body = op.bodyType === "application/json" ? [parseJsonBody(), requireJsonBody(op)] : [];
  return [...body, validateRequest(op), runHandler(op, handler, services, options)];
}
