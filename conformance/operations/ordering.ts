/**
 * Order of list items. E8, E10 and E17 are "most recently created first" (documented); the kit assumes
 * the same for E1 and E14, whose order the reference does not state. Timestamps show it on any target;
 * on the mock the suite also knows the exact creation order of what it created, also among records
 * created in the same instant, whose order no timestamp can show.
 */
import type { Level } from "../lib/schemas.js";
import type { RuleContext, RuleSpec } from "../lib/rule.js";
import type { Fixtures } from "../fixtures/types.js";
import { firstOrderViolation } from "../../mock-server/core/exchange-rules/list-order.js";
import { listOperation, type ListOrder } from "../../mock-server/core/exchange-rules/list-operations.js";
import { walk, type ListConfig } from "./list-pages.js";

/**
 * Sizes the order is checked at. The fixtures' records created in the same instant come in groups of
 * 5, 7, 11 and 14, so boundaries of pages of 3 and of 5 fall between records of equal timestamps.
 */
const ORDER_SIZES = [3, 5];

/**
 * How the suite checks a list's order. The order itself (direction, level, the items' creation
 * timestamp) is the list's entry in LIST_OPERATIONS (mock-server/core/exchange-rules/list-operations.ts),
 * which the mock's upstream door reads too.
 */
export interface OrderConfig {
  /** Ids the suite created, oldest first, restricted to what the unfiltered list shows. */
  knownIds?(f: Fixtures): string[] | undefined;
  /** Kit's mock: the creation order is the control plane's (its lists are newest first), for records the API made. */
  storeOrder?: { collection: string; idOf(record: Record<string, any>): string };
  /**
   * Level of the exact creation order among the known ids; the rule's level by default. `assumed` where
   * the reference gives records made together no order among themselves (E6 runs its test cases in parallel).
   */
  knownLevel?: Level;
  query?: Record<string, string | number | boolean>;
}

/** The order of the list, as LIST_OPERATIONS states it, with how the suite checks it. */
type Ordering = OrderConfig & { direction: ListOrder["direction"]; level: Level; timestampField?: string };

export function orderRule(cfg: ListConfig, config: OrderConfig): RuleSpec {
  const listed = listOperation(cfg.operationId).order;
  if (!listed) throw new Error(`LIST_OPERATIONS states no order for ${cfg.operationId}`);
  const order: Ordering = { ...config, direction: listed.direction, level: listed.level, timestampField: listed.field };
  const what = order.direction === "newest-first" ? "most recently created first" : "in creation order, oldest first";
  return {
    id: `${cfg.operationId}.${order.direction}`,
    operationId: cfg.operationId,
    level: order.level,
    readOnly: true,
    description: `Items are listed ${what}${order.timestampField ? `, records created in the same second included: still in creation order${order.knownLevel === "assumed" ? " (assumption for records made together)" : ""}, across page boundaries` : ""}.`,
    run: (t) => checkOrder(t, cfg, order),
  };
}

/** Oldest first: the fixtures' own list, or the mock's store (newest first) reversed. */
async function knownOrder(t: RuleContext, order: Ordering): Promise<string[] | undefined> {
  const known = order.knownIds?.(t.fixtures);
  if (known) return known;
  const control = t.fixtures.control;
  if (!order.storeOrder || !control) return undefined;
  return (await control.listRecords(order.storeOrder.collection)).map(order.storeOrder.idOf).reverse();
}

async function checkOrder(t: RuleContext, cfg: ListConfig, order: Ordering): Promise<void> {
  const known = await knownOrder(t, order);
  if (!order.timestampField && !known)
    return t.skip("items carry no creation timestamp and the run created none of them");
  const newestFirst = order.direction === "newest-first";
  const field = order.timestampField;
  const stamp = (item: Record<string, any> | undefined) => (field && item ? Date.parse(item[field]) : NaN);
  for (const size of ORDER_SIZES) {
    const result = await walk(t, cfg, order.query ?? {}, size);
    if (!result) return;
    const items = result.items;
    // The first item of the walk out of order by its timestamp (exchange-rules/list-order.ts, which
    // the mock's upstream door applies to one page at a time).
    const wrong = field ? firstOrderViolation(items, field, order.direction) : undefined;
    if (wrong)
      t.expect(false, {
        pointer: `/data/${wrong.index % size}/${field}`,
        expected: `${newestFirst ? "<=" : ">="} ${wrong.before}`,
        actual: wrong.after,
        message: `items ordered ${order.direction} by ${field} (item ${wrong.index} of the walk by ${size})`,
        exchange: result.pages[Math.floor(wrong.index / size)]?.exchange,
      });
    if (!known || !result.complete) continue;
    const knownSet = new Set(known);
    const listed = items.filter((item) => knownSet.has(cfg.idOf(item)));
    const expected = newestFirst ? [...known].reverse() : known;
    const at = expected.findIndex((id, i) => cfg.idOf(listed[i] ?? {}) !== id);
    if (at < 0) continue;
    const item = listed[at];
    const position = item ? items.indexOf(item) : -1;
    const tie =
      item && at > 0 && Math.floor(stamp(item) / 1000) === Math.floor(stamp(listed[at - 1]) / 1000)
        ? `, created in the same second as the record before it`
        : "";
    t.expect(false, {
      pointer: position < 0 ? "/data" : `/data/${position % size}`,
      expected: expected[at],
      actual: item ? cfg.idOf(item) : "(missing)",
      message: `walking by ${size}, the records the suite created appear ${order.direction} (record ${at} of them${tie})`,
      exchange: position < 0 ? undefined : result.pages[Math.floor(position / size)]?.exchange,
      assumed: order.knownLevel === "assumed",
    });
  }
}
