/**
 * Every list operation of the spec, with what the rules need to judge one of its pages: the name of the
 * wrapper's total, and the order of its items where the reference states one or the kit assumes one.
 * The suite's list rules (conformance/operations/*.ts) and the upstream door's drift checks read these
 * same entries, so the two cannot disagree on a list. list-operations.test.ts checks the table against
 * the bundled spec (every page-returning operation is here, with its total's name).
 */
import type { TotalField } from "../pagination.js";
import type { Level } from "./leveled-validators.js";
import type { OrderDirection } from "./list-order.js";

export type { TotalField };

export interface ListOrder {
  /** The creation timestamp the items carry, when they carry one: only then can one page show the order. */
  field?: string;
  direction: OrderDirection;
  /** `documented` where the reference states the order (E8, E10, E17); `assumed` where it states none (E1, E14). */
  level: Level;
}

export interface ListOperation {
  /** The wrapper's total field: the phone number list names it totalCounts (2.1). */
  totalField: TotalField;
  order?: ListOrder;
}

/** operationId -> its list, for the operations that answer the 2.1 pagination wrapper. */
export const LIST_OPERATIONS: Readonly<Record<string, ListOperation>> = {
  // E1: the reference states no order; the kit assumes the one of the lists that state theirs.
  listAgents: { totalField: "totalCount", order: { direction: "newest-first", level: "assumed" } },
  // E8, E10: "most recently created first".
  listTestRuns: {
    totalField: "totalCount",
    order: { field: "createdDate", direction: "newest-first", level: "documented" },
  },
  listCalls: {
    totalField: "totalCount",
    order: { field: "createdAt", direction: "newest-first", level: "documented" },
  },
  // E14: totalCounts (2.1), and no order stated.
  listPhoneNumbers: { totalField: "totalCounts", order: { direction: "newest-first", level: "assumed" } },
  // E17: "most recently created first"; a webhook carries no timestamp, so only a walk shows it.
  listWebhooks: { totalField: "totalCount", order: { direction: "newest-first", level: "documented" } },
};

/** The list entry of `operationId`; throws for an operation that is not a list, a slip of the caller. */
export function listOperation(operationId: string): ListOperation {
  const entry = LIST_OPERATIONS[operationId];
  if (!entry) throw new Error(`${operationId} is not a list operation (exchange-rules/list-operations.ts)`);
  return entry;
}
