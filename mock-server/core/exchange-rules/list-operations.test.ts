/**
 * LIST_OPERATIONS against the bundled spec: every reference operation answering the 2.1 wrapper, its
 * total's name, its items' timestamp. A list a spec author adds is not in the table: the generic layer
 * pages it from the document alone.
 */
import { describe, expect, it } from "vitest";
import { generatedSpec } from "../spec.js";
import { deref, type Json, type JsonObject } from "./json-document.js";
import { LIST_OPERATIONS } from "./list-operations.js";
import { operationTable } from "./operation-table.js";
import { resolvePointer } from "./json-document.js";
import { isReferenceOperation } from "../../../scripts/test/lib/reference-operations.js";

const doc = generatedSpec().document as unknown as JsonObject;

/** The properties of a schema, through $refs and allOf. */
function properties(schema: Json | undefined): JsonObject {
  const node = deref(schema, doc) as JsonObject | undefined;
  if (!node) return {};
  const own = (node.properties ?? {}) as JsonObject;
  return Object.assign({}, ...((node.allOf as Json[] | undefined) ?? []).map(properties), own);
}

const pages = [...operationTable(doc).values()]
  .filter((op) => isReferenceOperation(op.operationId))
  .flatMap((op) => {
    const pointer = op.bodySchemas["200"];
    const props = pointer ? properties(resolvePointer(doc, pointer)) : {};
    return "data" in props && "totalPages" in props ? [{ op, props }] : [];
  });

describe("LIST_OPERATIONS", () => {
  it("holds every reference operation that answers a page, and no other", () => {
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.map((p) => p.op.operationId).sort()).toEqual(Object.keys(LIST_OPERATIONS).sort());
  });

  it.each(pages.map((p) => [p.op.operationId, p] as const))(
    "%s: names its total and timestamp as the spec does",
    (id, { props }) => {
      const entry = LIST_OPERATIONS[id];
      expect(Object.keys(props)).toContain(entry.totalField);
      const field = entry.order?.field;
      if (field) expect(Object.keys(properties((props.data as JsonObject).items))).toContain(field);
    },
  );
});
