/**
 * Order of list items. E8, E10 and E17 are "most recently created first" (documented); the kit assumes
 * the same for E1 and E14, whose order the reference does not state. Timestamps show it on any target;
 * on the mock the suite also knows the exact creation order of what it created.
 */
import type { Level } from "../lib/schemas.js";
import type { RuleContext, RuleSpec } from "../lib/rule.js";
import type { Fixtures } from "../fixtures/types.js";
import { walk, type ListConfig } from "./list-pages.js";

export interface OrderConfig {
  direction: "newest-first" | "oldest-first";
  level: Level;
  /** A creation timestamp on the items, when they have one. */
  timestampField?: string;
  /** Ids the suite created, oldest first, restricted to what the unfiltered list shows. */
  knownIds?(f: Fixtures): string[] | undefined;
  query?: Record<string, string | number | boolean>;
}

export function orderRule(cfg: ListConfig, order: OrderConfig): RuleSpec {
  return {
    id: `${cfg.operationId}.${order.direction}`,
    operationId: cfg.operationId,
    level: order.level,
    readOnly: true,
    description: `Items are listed ${order.direction === "newest-first" ? "most recently created first" : "in creation order, oldest first"}.`,
    run: (t) => checkOrder(t, cfg, order),
  };
}

async function checkOrder(t: RuleContext, cfg: ListConfig, order: OrderConfig): Promise<void> {
  const known = order.knownIds?.(t.fixtures);
  if (!order.timestampField && !known) return t.skip("items carry no creation timestamp and the run created none of them");
  const result = await walk(t, cfg, order.query ?? {}, 5);
  if (!result) return;
  if (order.timestampField) {
    const field = order.timestampField;
    for (let i = 1; i < result.items.length; i++) {
      const before = Date.parse(result.items[i - 1][field]);
      const after = Date.parse(result.items[i][field]);
      const ok = order.direction === "newest-first" ? before >= after : before <= after;
      if (!t.expect(ok || Number.isNaN(before) || Number.isNaN(after), {
        pointer: `/data/${i}/${field}`,
        expected: `${order.direction === "newest-first" ? "<=" : ">="} ${result.items[i - 1][field]}`,
        actual: result.items[i][field],
        message: `items ordered ${order.direction} by ${field} (item ${i} of the walk)`,
      })) break;
    }
  }
  if (known && result.complete) {
    const knownSet = new Set(known);
    const listed = result.items.map(cfg.idOf).filter((id) => knownSet.has(id));
    const expected = order.direction === "newest-first" ? [...known].reverse() : known;
    t.expectEqual(listed, expected, "/data", `the records the suite created appear ${order.direction}`);
  }
}
