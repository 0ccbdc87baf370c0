/**
 * What is validated of each operation of a document, decided once for everyone who compiles
 * validators from it: `npm run generate` (scripts/lib/standalone-validators.ts, standalone code), a
 * mock serving another document (compile-spec.ts, at run time), and the operation table
 * (operations.ts), which must read the same media types the validators were compiled from.
 *
 * Media types: a request body counts as `application/json` first, then any `*\/*+json`
 * (`application/merge-patch+json`), then `multipart/form-data` (read by the kit's upload rules for its
 * own spec only: operations.ts). A body documented only in another type (XML,
 * `application/x-www-form-urlencoded`, `application/octet-stream`, text) is not read or validated: the
 * operation is served as if it had no body. A response counts as `application/json`
 * first, then any `*\/*+json` (`application/problem+json`); a status with neither is documented without
 * a body the mock can check.
 */
import { derefIn } from "./json-ref.js";
import { derivedOperationId, OPERATION_METHODS } from "./openapi-document.js";

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: unknown;
}

/** One operation of a document, with the schemas its validators are compiled from. */
export interface OperationSchemas {
  operationId: string;
  method: (typeof OPERATION_METHODS)[number];
  path: string;
  /** The path item's parameters and the operation's, resolved. */
  parameters: ParameterObject[];
  /** `{ path: {...}, query: {...} }`: what the params validator checks (strings coerced, defaults filled). */
  params: unknown;
  /** The request body the mock reads, in the media type that counts; absent when none does. */
  body?: { mediaType: string; schema: unknown; required: boolean };
  /** Every documented status, in document order, with the schema of the media type that counts. */
  responses: { code: string; mediaType?: string; schema?: unknown }[];
}

const essence = (type: string) => type.split(";")[0].trim().toLowerCase();
const isJson = (type: string) => essence(type) === "application/json";
const isJsonSuffix = (type: string) => /^[\w.+-]+\/[\w.+-]+\+json$/.test(essence(type));

/** The request body's media type that the mock reads and validates, among the documented ones. */
export function requestMediaType(content: Record<string, unknown> | undefined): string | undefined {
  const types = Object.keys(content ?? {});
  return types.find(isJson) ?? types.find(isJsonSuffix) ?? types.find((t) => essence(t) === "multipart/form-data");
}

/** The response's media type whose schema the mock answers and checks by, among the documented ones. */
export function responseMediaType(content: Record<string, unknown> | undefined): string | undefined {
  const types = Object.keys(content ?? {});
  return types.find(isJson) ?? types.find(isJsonSuffix);
}

/**
 * The schema of one location's parameters: path parameters are always required. `closed`: no other
 * name is accepted (the control plane's query filters; an API's queries stay open).
 */
export function paramsSchema(params: ParameterObject[], location: "path" | "query", closed = false) {
  const own = params.filter((p) => p.in === location);
  return {
    type: "object",
    properties: Object.fromEntries(own.map((p) => [p.name, p.schema])),
    required: own.filter((p) => p.required || location === "path").map((p) => p.name),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

/** The parameters of an operation: its path item's and its own, resolved in `document`. */
export function parametersOf(document: unknown, item: Record<string, any>, op: Record<string, any>) {
  return [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => derefIn<ParameterObject>(document, p));
}

/** Every operation under the document's paths (not its webhooks), in document order. */
export function operationSchemas(document: unknown): OperationSchemas[] {
  const paths = (document as { paths?: Record<string, unknown> }).paths ?? {};
  const out: OperationSchemas[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = derefIn<Record<string, any>>(document, rawItem);
    for (const method of OPERATION_METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const parameters = parametersOf(document, item, op);
      const requestBody = op.requestBody ? derefIn<Record<string, any>>(document, op.requestBody) : undefined;
      const bodyType = requestMediaType(requestBody?.content);
      out.push({
        operationId: op.operationId ?? derivedOperationId(method, path),
        method,
        path,
        parameters,
        params: {
          type: "object",
          properties: { path: paramsSchema(parameters, "path"), query: paramsSchema(parameters, "query") },
        },
        ...(bodyType && {
          body: {
            mediaType: bodyType,
            schema: requestBody!.content[bodyType].schema,
            required: Boolean(requestBody!.required),
          },
        }),
        responses: Object.entries<unknown>(op.responses ?? {}).map(([code, ref]) => {
          const content = derefIn<Record<string, any>>(document, ref)?.content;
          const mediaType = responseMediaType(content);
          return { code, ...(mediaType && { mediaType, schema: content[mediaType].schema }) };
        }),
      });
    }
  }
  return out;
}
