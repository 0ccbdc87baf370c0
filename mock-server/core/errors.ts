/**
 * The one place failures become the reference's error body (section 2.2). Handlers, the control
 * plane, the store and the doors throw ApiError (or the store's StoreError); toApiError maps anything
 * thrown onto a status, and errorBody writes the body. Nothing here knows a transport.
 */
import type { Clock } from "./clock.js";

/** Reason phrases: of the error bodies (`error`), and of the statuses a HAR export shows. */
export const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
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
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
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

/** A request URL (path and query) without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** The 2.2 body; `path` is the request path as the client sent it, without the query. */
export function errorBody(
  clock: Clock,
  path: string,
  status: number,
  message: string,
  validationErrors?: ValidationErrors,
): ErrorBody {
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

/** Maps what handlers, the store and the doors raise onto the statuses of the reference. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreError) return new ApiError(err.code === "NOT_FOUND" ? 404 : 409, err.message);
  return new ApiError(500, "Unexpected server error");
}

/** A store refusal (no such record, a duplicate id), mapped to 404 or 409 once, by toApiError. */
export class StoreError extends Error {
  constructor(
    readonly code: "NOT_FOUND" | "CONFLICT",
    message: string,
  ) {
    super(message);
  }
}
