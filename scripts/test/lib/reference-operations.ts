/**
 * The reference's operations, E1 to E17, by operationId: read once from the reference's table
 * (scripts/test/reference/operations.ts), for the tests that hold the kit to them. An operation a spec
 * author adds to spec/ is none of these: the generic layer serves it (issue 36), and a test about the
 * reference lets it be rather than demand what only the hand-written 17 have (named examples, a place in
 * the kit's tables, variants in the every-variant scenario).
 */
import { operations } from "../reference/operations.js";

/** In the reference's order, E1 first. */
export const REFERENCE_OPERATION_IDS: readonly string[] = operations.map(([, { want }]) => want.operationId);

const reference: ReadonlySet<string> = new Set(REFERENCE_OPERATION_IDS);

export const isReferenceOperation = (operationId: unknown): boolean =>
  typeof operationId === "string" && reference.has(operationId);

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * A copy of an OpenAPI document with the reference's operations only: every other operation removed,
 * and a path item left with none removed too. Components stay (unused ones do no harm).
 */
export function referenceOnly<T extends object>(document: T): T {
  const copy = structuredClone(document) as T & { paths?: Record<string, Record<string, unknown>> };
  for (const [path, item] of Object.entries(copy.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: unknown } | undefined;
      if (operation && !isReferenceOperation(operation.operationId)) delete item[method];
    }
    if (!METHODS.some((method) => method in item)) delete copy.paths![path];
  }
  return copy;
}
