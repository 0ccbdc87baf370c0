/**
 * The one pagination helper: the 2.1 wrapper, with Spring's page arithmetic (totalPages =
 * ceil(total / size), hasNext = page + 1 < totalPages, hasPrevious = page > 0, also past the end).
 */
import type { Collection, PageQuery } from "../store/collection.js";

export type TotalField = "totalCount" | "totalCounts";

export interface PageParams {
  page: number;
  size: number;
}

export function wrapPage<T>(
  items: T[],
  total: number,
  { page, size }: PageParams,
  totalField: TotalField = "totalCount",
) {
  const totalPages = Math.ceil(total / size);
  return {
    data: items,
    page,
    size,
    [totalField]: total,
    totalPages,
    hasNext: page + 1 < totalPages,
    hasPrevious: page > 0,
  };
}

/** One page of a collection, O(page size), optionally mapped to the response shape. */
export function pageOf<T extends object, U = T>(
  collection: Collection<T>,
  query: Omit<PageQuery, "page" | "size"> & PageParams,
  options: { map?: (item: T) => U; totalField?: TotalField } = {},
) {
  const { items, total } = collection.page(query);
  const data = options.map ? items.map(options.map) : (items as unknown as U[]);
  return wrapPage(data, total, query, options.totalField);
}
