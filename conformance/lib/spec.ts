/**
 * The bundled spec (generated/openapi.json) as the suite sees it: one entry per operation with its
 * method, path template, documented statuses and whether each documents a JSON body.
 * Everything the suite checks is derived from here, so editing spec/ and regenerating moves the suite too.
 */
import { readFileSync } from "node:fs";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** Documented status codes, as strings ("200", "404"). */
  statuses: string[];
  /** Status -> JSON pointer of the response body schema inside the document, when a body is documented. */
  bodySchemas: Record<string, string | undefined>;
  /** The operation's own x-assumption, if any. */
  assumption?: string;
  requestContentType?: string;
  requestSchemaPointer?: string;
  parameters: JsonObject[];
}

const specUrl = new URL("../../generated/openapi.json", import.meta.url);
export const spec: JsonObject = JSON.parse(readFileSync(specUrl, "utf8"));

const METHODS = ["get", "post", "put", "patch", "delete"];

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Resolves a local $ref chain ("#/components/...") inside the document. */
export function deref(node: Json | undefined, doc: JsonObject = spec): Json | undefined {
  let current = node;
  for (
    let hops = 0;
    hops < 20 && current && typeof current === "object" && !Array.isArray(current) && typeof current.$ref === "string";
    hops++
  ) {
    current = resolvePointer(doc, current.$ref.replace(/^#/, ""));
  }
  return current;
}

export function resolvePointer(doc: Json, pointer: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(key)] : node[key];
  }
  return node;
}

function buildOperations(): Map<string, OperationInfo> {
  const out = new Map<string, OperationInfo>();
  const paths = spec.paths as JsonObject;
  for (const [path, itemRaw] of Object.entries(paths)) {
    const item = itemRaw as JsonObject;
    const shared = (item.parameters as Json[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (!op) continue;
      const base = `/paths/${escapePointer(path)}/${method}`;
      const responses = op.responses as JsonObject;
      const bodySchemas: Record<string, string | undefined> = {};
      for (const [status, respRaw] of Object.entries(responses)) {
        const resp = deref(respRaw) as JsonObject;
        const content = resp.content as JsonObject | undefined;
        const json = content?.["application/json"] as JsonObject | undefined;
        if (!json?.schema) {
          bodySchemas[status] = undefined;
          continue;
        }
        const ref = (responses[status] as JsonObject).$ref;
        bodySchemas[status] =
          typeof ref === "string"
            ? `${ref.replace(/^#/, "")}/content/application~1json/schema`
            : `${base}/responses/${status}/content/application~1json/schema`;
      }
      const requestBody = deref(op.requestBody) as JsonObject | undefined;
      const reqContent = requestBody?.content as JsonObject | undefined;
      const requestContentType = reqContent ? Object.keys(reqContent)[0] : undefined;
      const parameters = [...shared, ...((op.parameters as Json[] | undefined) ?? [])].map(
        (p) => deref(p) as JsonObject,
      );
      out.set(op.operationId as string, {
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path,
        statuses: Object.keys(responses),
        bodySchemas,
        assumption: op["x-assumption"] as string | undefined,
        requestContentType,
        requestSchemaPointer: requestContentType
          ? `${base}/requestBody/content/${escapePointer(requestContentType)}/schema`
          : undefined,
        parameters,
      });
    }
  }
  return out;
}

export const operations = buildOperations();

export function operation(operationId: string): OperationInfo {
  const op = operations.get(operationId);
  if (!op) throw new Error(`Unknown operationId ${operationId}: not in generated/openapi.json`);
  return op;
}

/** The reference's HTTP status texts (section 7), which the error body's `error` field carries. */
export const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
};
