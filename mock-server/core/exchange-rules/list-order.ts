/**
 * The order of a list's items by a timestamp they carry. Pure, so that the suite (which walks whole
 * lists) and the upstream door (which sees one page at a time) apply the same comparison. Items whose
 * timestamps do not parse are left to the schema: they break no order.
 */
export type OrderDirection = "newest-first" | "oldest-first";

export interface OrderViolation {
  /** The first item out of order: it should not come after item `index - 1`. */
  index: number;
  /** The timestamp of item `index - 1` and of item `index`, as the items hold them. */
  before: unknown;
  after: unknown;
}

/** The first item out of `direction` order by `field`, or undefined when the items are in order. */
export function firstOrderViolation(
  items: readonly unknown[],
  field: string,
  direction: OrderDirection,
): OrderViolation | undefined {
  const newestFirst = direction === "newest-first";
  const valueOf = (item: unknown) => (item ? (item as Record<string, any>)[field] : undefined);
  const stamp = (item: unknown) => (item ? Date.parse(valueOf(item)) : NaN);
  for (let i = 1; i < items.length; i++) {
    const [before, after] = [stamp(items[i - 1]), stamp(items[i])];
    const ok = newestFirst ? before >= after : before <= after;
    if (!ok && !Number.isNaN(before) && !Number.isNaN(after))
      return { index: i, before: valueOf(items[i - 1]), after: valueOf(items[i]) };
  }
  return undefined;
}
