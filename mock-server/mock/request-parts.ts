/**
 * Reading a request's parts for the core (mock/pipeline.ts): its JSON or multipart body under the
 * limits, its query string, a header, and the JSON replies. Shared by the operations and the control
 * plane (mock/control-step.ts).
 */
import { checkJsonCharset, isJsonType, mediaType, parseJsonText } from "../core/body.js";
import { ApiError } from "../core/errors.js";
import type { BodyReader, CoreReply, FormPart, RequestHead } from "../core/exchange.js";
import type { Operation } from "../core/operations.js";
import type { Reply } from "../routes/context.js";

export const JSON_LIMIT_BYTES = 1024 * 1024;
/** Snapshots and fixtures sent to the control plane can be large. */
export const CONTROL_JSON_LIMIT_BYTES = 50 * 1024 * 1024;

export function header(head: RequestHead, name: string): string | undefined {
  const value = head.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** A request's body as read for its operation: JSON parsed, or a form's parts. */
export interface OperationBody {
  body: unknown;
  parts: FormPart[];
}

export const NO_BODY: OperationBody = { body: undefined, parts: Object.freeze([]) as unknown as FormPart[] };

/** JSON operations: the body must be JSON when one is sent, and present when the spec requires it. Multipart: a form. */
export async function readOperationBody(
  head: RequestHead,
  op: Operation,
  readBody: BodyReader,
): Promise<OperationBody> {
  if (op.bodyType === "multipart/form-data") {
    if (mediaType(head.headers["content-type"]).type !== "multipart/form-data")
      throw new ApiError(415, "Content-Type must be multipart/form-data");
    const read = await readBody({ kind: "multipart" });
    return { body: undefined, parts: read.kind === "multipart" ? read.parts : [] };
  }
  let body: unknown;
  if (head.hasBody) {
    const { type, charset } = mediaType(head.headers["content-type"]);
    if (!isJsonType(type))
      throw new ApiError(400, `Content-Type must be application/json for ${op.operationId}`, {
        body: "must be sent as application/json",
      });
    checkJsonCharset(charset);
    const read = await readBody({ kind: "json", limit: JSON_LIMIT_BYTES });
    body = read.kind === "json" ? parseJsonText(read.text) : undefined;
  }
  if (op.bodyRequired && body === undefined)
    throw new ApiError(400, "Request body is required", { body: "is required" });
  return { body, parts: NO_BODY.parts };
}

/** The control plane reads JSON bodies only; any other body is ignored, as if none was sent. */
export async function readControlBody(head: RequestHead, readBody: BodyReader): Promise<unknown> {
  const { type, charset } = mediaType(head.headers["content-type"]);
  if (!head.hasBody || !isJsonType(type)) return undefined;
  checkJsonCharset(charset);
  const read = await readBody({ kind: "json", limit: CONTROL_JSON_LIMIT_BYTES });
  return read.kind === "json" ? parseJsonText(read.text) : undefined;
}

/** Query strings as Express's "simple" parser read them: a repeated name gives an array. */
export function parseQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  if (query.length === 0) return out;
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

export function jsonText(status: number, json: string | undefined): CoreReply {
  return json === undefined
    ? { status, headers: {} }
    : { status, headers: { "Content-Type": "application/json" }, body: json };
}

export function jsonReply(reply: Reply): CoreReply {
  return jsonText(reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body));
}
