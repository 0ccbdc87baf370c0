/**
 * "Read back equal on the fields sent": what a record holds against what was sent, field by field,
 * the way a reader of the document would: keys in any order, timestamps as instants (`+00:00` and `Z`,
 * with or without milliseconds), numbers as numbers. Fields the record schema does not have, or marks
 * writeOnly (a password), are not read back and not compared.
 */
import { deepEqual } from "../lib/rule.js";
import type { PropertyAt } from "./schema-walk.js";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

function normalised(value: unknown): unknown {
  if (typeof value === "string" && TIMESTAMP.test(value)) {
    const at = Date.parse(value);
    return Number.isNaN(at) ? value : new Date(at).toISOString();
  }
  if (Array.isArray(value)) return value.map(normalised);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalised(v)]));
  return value;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return deepEqual(normalised(a), normalised(b));
}

/** A field sent that the record shows differently: its name, what was sent, what came back. */
export interface Difference {
  field: string;
  sent: unknown;
  got: unknown;
}

/** The fields of `sent` the record schema reads back that `record` holds differently. */
export function differences(
  sent: unknown,
  record: Record<string, unknown>,
  recordProperties: Record<string, PropertyAt>,
  skip: readonly string[] = [],
): Difference[] {
  if (!sent || typeof sent !== "object" || Array.isArray(sent)) return [];
  return Object.entries(sent as Record<string, unknown>)
    .filter(([field]) => !skip.includes(field))
    .filter(([field]) => recordProperties[field] && recordProperties[field].schema.writeOnly !== true)
    .filter(([field, value]) => !sameValue(value, record[field]))
    .map(([field, value]) => ({ field, sent: value, got: record[field] }));
}
