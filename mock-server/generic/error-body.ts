/**
 * Error bodies of other documents. This API's failures carry its 2.2 body (core/errors.ts errorBody);
 * a document served with `--spec` documents its own (`{ code, message }`, RFC 7807 problems,
 * `{ error: { message } }`...). documentErrorBody builds one valid against what the document gives
 * for the status (or its class, `4XX`, or `default`), the message in its message-like field.
 */
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";
import { hash32 } from "../core/random.js";
import type { CompiledValidator } from "../core/validation.js";
import { nameKey } from "../core/sampling/by-name.js";
import { documentedResponse, jsonMedia } from "./document.js";
import { seededSampler } from "../core/sampling/sample.js";
import { type Deref, flatten, type Schema, typesOf } from "../core/sampling/schema.js";

/** Fields a message goes in, most telling first. */
const MESSAGE_FIELDS = [
  "message",
  "detail",
  "details",
  "title",
  "error",
  "description",
  "errordescription",
  "errormessage",
  "msg",
  "reason",
];
const STATUS_FIELDS = ["status", "statuscode", "code", "httpstatus"];
/** A fixed date: an error body's drawn timestamps need not follow any clock. */
const REF_DATE = new Date("2026-01-01T00:00:00.000Z");

/**
 * The body of an error answer with `status` for `op`, as the document describes it: none when the
 * status (or its class, or `default`) is documented without a body; `{ message }` as JSON when it is
 * not documented at all.
 */
export function documentErrorBody(
  contract: Contract,
  op: Operation,
  status: number,
  message: string,
): { body?: unknown; contentType?: string } {
  const found = documentedResponse(contract, op, status);
  if (!found) return { body: { message }, contentType: "application/json" };
  const json = jsonMedia(found.response);
  if (!json)
    return Object.keys(found.response.content ?? {}).length > 0 ? { body: message, contentType: "text/plain" } : {};
  const schema = json.media.schema;
  if (schema === undefined) return { body: { message }, contentType: json.type };
  const deref: Deref = (node) => contract.deref(node);
  const validate = (contract.validators.operationValidators as Record<string, any>)[op.operationId]?.responses?.[
    found.key
  ] as CompiledValidator | null | undefined;
  const check = (value: unknown) => !validate || validate(value);
  let fallback: unknown;
  for (let attempt = 0; attempt < 8; attempt++) {
    const seed = hash32(`${op.operationId}\n${status}\n${message}\n${attempt}`);
    const drawn = seededSampler(deref, seed, REF_DATE).value(schema);
    fallback ??= drawn;
    for (const candidate of [
      withMessage(drawn, schema, deref, message, status, true),
      withMessage(drawn, schema, deref, message, status, false),
      drawn,
    ])
      if (check(candidate)) return { body: candidate, contentType: json.type };
  }
  return { body: fallback, contentType: json.type };
}

/** `value` with the message (and, if `withStatus`, the status) in the fields the schema has for them. */
function withMessage(
  value: unknown,
  schema: unknown,
  deref: Deref,
  message: string,
  status: number,
  withStatus: boolean,
): unknown {
  const flat: Schema = flatten(schema, deref);
  if (typeof value === "string") return message;
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const properties = (flat.properties ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const byKey = (keys: string[]) =>
    Object.keys(properties)
      .sort((a, b) => rank(keys, a) - rank(keys, b))
      .filter((k) => rank(keys, k) < keys.length);
  const messageField = byKey(MESSAGE_FIELDS).find((k) => isFreeString(properties[k], deref));
  if (messageField) out[messageField] = message;
  else {
    // `{ error: { code, message } }`: the message goes one level down.
    const nested = byKey(["error", "errors", "problem", "fault"]).find((k) => out[k] && typeof out[k] === "object");
    if (nested) out[nested] = withMessage(out[nested], properties[nested], deref, message, status, withStatus);
  }
  if (withStatus)
    for (const key of byKey(STATUS_FIELDS)) {
      const types = typesOf(properties[key], deref);
      if (types.includes("integer") || types.includes("number")) out[key] = status;
      else if (types.includes("string") && isFreeString(properties[key], deref)) out[key] = String(status);
    }
  return out;
}

function rank(keys: string[], name: string): number {
  const at = keys.indexOf(nameKey(name));
  return at === -1 ? keys.length : at;
}

/** A string any message fits in: no enum, const, pattern or format. */
function isFreeString(schema: unknown, deref: Deref): boolean {
  const flat = flatten(schema, deref);
  return typesOf(schema, deref).includes("string") && !flat.enum && !("const" in flat) && !flat.pattern && !flat.format;
}

/**
 * Whether a document's errors are this API's 2.2 body (`timestamp, status, error, message, path`
 * required): then the pipeline's own errorBody is the document's, and documentErrorBody is not needed.
 */
export function hasReferenceErrorBody(contract: Contract): boolean {
  const deref: Deref = (node) => contract.deref(node);
  for (const op of contract.operations)
    for (const [status, info] of op.responses) {
      if (status < 400 || info.schema === undefined) continue;
      const required = new Set<string>(flatten(info.schema, deref).required ?? []);
      return ["timestamp", "status", "error", "message", "path"].every((k) => required.has(k));
    }
  return false;
}
