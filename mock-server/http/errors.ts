/**
 * The one place errors become HTTP. Routers and stages throw ApiError (or the store's StoreError);
 * the handler below turns every failure, on every path, into the reference's error body (2.2).
 */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { StoreError } from "../store/collection.js";
import type { Clock } from "../clock.js";
import { lingerAfterResponse } from "./linger.js";
import { sendJson } from "./reply-json.js";

export const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export type ValidationErrors = Record<string, string>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors?: ValidationErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** 400 with one validationErrors entry per field, and a message that names them all. */
export function invalid(validationErrors: ValidationErrors, prefix = "Request validation failed"): ApiError {
  const detail = Object.entries(validationErrors)
    .map(([field, message]) => `${field} ${message}`)
    .join("; ");
  return new ApiError(400, `${prefix}: ${detail}`, validationErrors);
}

export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
  validationErrors?: ValidationErrors;
}

/** The request path as the client sent it, without the query: what the error body's `path` reports. */
export function requestPath(req: Request): string {
  return pathOf(req.originalUrl || req.url);
}

/** A request URL (path and query) without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

export function errorBody(clock: Clock, req: Request, status: number, message: string, validationErrors?: ValidationErrors): ErrorBody {
  return errorBodyAt(clock, requestPath(req), status, message, validationErrors);
}

/** The 2.2 body for a path given as text: for failures met before Express has a request (server.ts). */
export function errorBodyAt(clock: Clock, path: string, status: number, message: string, validationErrors?: ValidationErrors): ErrorBody {
  const body: ErrorBody = {
    timestamp: clock.iso(),
    status,
    error: STATUS_TEXT[status] ?? "Error",
    message,
    path,
  };
  if (validationErrors && Object.keys(validationErrors).length > 0) body.validationErrors = validationErrors;
  return body;
}

/** Maps what body-parser, the store and Node raise onto the statuses of the reference. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreError) return new ApiError(err.code === "NOT_FOUND" ? 404 : 409, err.message);
  const e = err as { type?: string; status?: number; limit?: number; message?: string };
  switch (e?.type) {
    case "entity.too.large":
      return new ApiError(413, `Request body exceeds the ${e.limit ?? 1048576} byte limit`);
    case "entity.parse.failed":
      return new ApiError(400, "Malformed JSON in request body");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ApiError(400, "Unsupported request body encoding or charset");
    case "request.aborted":
      return new ApiError(400, "Request aborted by the client");
    case "request.size.invalid":
      return new ApiError(400, "Request body size does not match Content-Length");
  }
  if (typeof e?.status === "number" && e.status >= 400 && e.status < 500) {
    return new ApiError(e.status, e.message ?? STATUS_TEXT[e.status] ?? "Bad request");
  }
  return new ApiError(500, "Unexpected server error");
}

export function sendError(res: Parameters<RequestHandler>[1], clock: Clock, req: Request, error: ApiError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  if (!req.complete) {
    // Answered while the body is still arriving (past a size limit, a bad key on an upload): the
    // connection ends with this answer, so the client stops sending and nothing is drained for it.
    res.setHeader("Connection", "close");
    lingerAfterResponse(req, res);
  }
  // Written like every success, so the type is exactly application/json (Express's send adds a charset).
  sendJson(res, error.status, errorBody(clock, req, error.status, error.message, error.validationErrors));
}

export function errorHandler(clock: Clock, log: (line: string) => void): ErrorRequestHandler {
  return function handleError(err, req, res, _next) {
    const apiError = toApiError(err);
    if (apiError.status >= 500) log(`${req.method} ${requestPath(req)} failed: ${(err as Error)?.stack ?? String(err)}`);
    sendError(res, clock, req, apiError);
  };
}

export function notFoundHandler(): RequestHandler {
  return function handleNotFound(req, _res, next) {
    next(new ApiError(404, `No operation at ${req.method} ${requestPath(req)}`));
  };
}
