/**
 * The bundled spec (generated/openapi.json) as the suite sees it: one entry per operation with its
 * method, path template, documented statuses and whether each documents a JSON body.
 * Everything the suite checks is derived from here, so editing spec/ and regenerating moves the suite too.
 * The table itself is built by mock-server/core/exchange-rules/ (for any document, so the mock's
 * upstream door judges with the same one); this binds it to the bundled spec.
 */
import { readFileSync } from "node:fs";
import {
  deref as derefIn,
  escapePointer,
  resolvePointer,
  type Json,
  type JsonObject,
} from "../../mock-server/core/exchange-rules/json-document.js";
import {
  operationTable,
  REFERENCE_STATUS_TEXT,
  type OperationInfo,
} from "../../mock-server/core/exchange-rules/operation-table.js";

export { escapePointer, resolvePointer, type Json, type JsonObject, type OperationInfo };

const specUrl = new URL("../../generated/openapi.json", import.meta.url);
export const spec: JsonObject = JSON.parse(readFileSync(specUrl, "utf8"));

/** Resolves a local $ref chain ("#/components/...") inside the document. */
export function deref(node: Json | undefined, doc: JsonObject = spec): Json | undefined {
  return derefIn(node, doc);
}

export const operations = operationTable(spec);

export function operation(operationId: string): OperationInfo {
  const op = operations.get(operationId);
  if (!op) throw new Error(`Unknown operationId ${operationId}: not in generated/openapi.json`);
  return op;
}

/** The reference's HTTP status texts (section 7), which the error body's `error` field carries. */
export const STATUS_TEXT: Record<number, string> = REFERENCE_STATUS_TEXT;
