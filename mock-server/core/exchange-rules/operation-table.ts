/**
 * The operations of a document as the rules see them: method, path template, documented statuses,
 * where each status's JSON body schema sits, the parameters and the request body. Built once per
 * document object (a WeakMap), so the suite and the upstream door's checks ask for it on every exchange.
 */
import { STATUS_TEXT as HTTP_STATUS_TEXT } from "../errors.js";
import { deref, escapePointer, targetPointer, type Json, type JsonObject } from "./json-document.js";

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
  /** Whether the document requires a request body (requestBody.required). */
  requestBodyRequired?: boolean;
  /** Path-level then operation-level parameters, $refs resolved. */
  parameters: JsonObject[];
  /** Where each of `parameters` sits in the document (its $ref target), in the same order. */
  parameterPointers: string[];
}

const METHODS = ["get", "post", "put", "patch", "delete"];

function buildOperations(doc: JsonObject): Map<string, OperationInfo> {
  const out = new Map<string, OperationInfo>();
  const paths = (doc.paths ?? {}) as JsonObject;
  for (const [path, itemRaw] of Object.entries(paths)) {
    const item = itemRaw as JsonObject;
    const itemPointer = `/paths/${escapePointer(path)}`;
    const shared = ((item.parameters as Json[] | undefined) ?? []).map((p, i) => ({
      node: p,
      at: `${itemPointer}/parameters/${i}`,
    }));
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (!op) continue;
      const base = `${itemPointer}/${method}`;
      const responses = op.responses as JsonObject;
      const bodySchemas: Record<string, string | undefined> = {};
      for (const [status, respRaw] of Object.entries(responses)) {
        const resp = deref(respRaw, doc) as JsonObject;
        const content = resp.content as JsonObject | undefined;
        const json = content?.["application/json"] as JsonObject | undefined;
        bodySchemas[status] = json?.schema
          ? `${targetPointer(respRaw, `${base}/responses/${status}`, doc)}/content/application~1json/schema`
          : undefined;
      }
      const requestBody = deref(op.requestBody, doc) as JsonObject | undefined;
      const reqContent = requestBody?.content as JsonObject | undefined;
      const requestContentType = reqContent ? Object.keys(reqContent)[0] : undefined;
      const own = ((op.parameters as Json[] | undefined) ?? []).map((p, i) => ({
        node: p,
        at: `${base}/parameters/${i}`,
      }));
      const parameters = [...shared, ...own];
      out.set(op.operationId as string, {
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path,
        statuses: Object.keys(responses),
        bodySchemas,
        assumption: op["x-assumption"] as string | undefined,
        requestContentType,
        requestSchemaPointer: requestContentType
          ? `${targetPointer(op.requestBody, `${base}/requestBody`, doc)}/content/${escapePointer(requestContentType)}/schema`
          : undefined,
        requestBodyRequired: requestBody ? requestBody.required === true : undefined,
        parameters: parameters.map((p) => deref(p.node, doc) as JsonObject),
        parameterPointers: parameters.map((p) => targetPointer(p.node, p.at, doc)),
      });
    }
  }
  return out;
}

const tables = new WeakMap<object, Map<string, OperationInfo>>();

/** operationId -> OperationInfo of the document, built on first use. */
export function operationTable(doc: object): Map<string, OperationInfo> {
  let table = tables.get(doc);
  if (!table) tables.set(doc, (table = buildOperations(doc as JsonObject)));
  return table;
}

/** The operation of that id; throws when the document has none. */
export function operationIn(doc: object, operationId: string): OperationInfo {
  const op = operationTable(doc).get(operationId);
  if (!op) throw new Error(`Unknown operationId ${operationId}: not in the document`);
  return op;
}

/** The statuses section 7 of the reference lists: their error bodies must carry the status text. */
const SECTION_7_STATUSES = [400, 401, 403, 404, 413, 415, 500];

/**
 * The reference's HTTP status texts (section 7), which the error body's `error` field carries. The texts
 * are the mock's own (errors.ts), so the mock and the rules cannot spell one differently; the statuses
 * are the reference's only, so a status it never names (405, 431) is not held to a text.
 */
export const REFERENCE_STATUS_TEXT: Record<number, string> = Object.fromEntries(
  SECTION_7_STATUSES.map((status) => [status, HTTP_STATUS_TEXT[status]]),
);
