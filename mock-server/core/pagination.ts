/**
 * The one pagination helper: the 2.1 wrapper, with Spring's page arithmetic (totalPages =
 * ceil(total / size), hasNext = page + 1 < totalPages, hasPrevious = page > 0, also past the end).
 */
export type Order = "newest" | "oldest";

export interface PageQuery {
  /** Equality filters; the set of keys must match one declared index (or be empty). */
  where?: Record<string, string | boolean | undefined>;
  order: Order;
  page: number;
  size: number;
}

export interface PageResult<T> {
  items: T[];
  total: number;
}

/** What a page is read from: a store collection, or anything that pages the same way. */
export interface Pageable<T> {
  page(query: PageQuery): PageResult<T>;
}

export type TotalField = "totalCount" | "totalCounts";

export interface PageParams {
  page: number;
  size: number;
}

/** The 2.1 wrapper; its total is named `totalCount`, or `totalCounts` where the reference spells it so. */
export type Page<T> = {
  data: T[];
  page: number;
  size: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
} & { [K in TotalField]?: number };

export function wrapPage<T>(
  items: T[],
  total: number,
  { page, size }: PageParams,
  totalField: TotalField = "totalCount",
): Page<T> {
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
  collection: Pageable<T>,
  query: Omit<PageQuery, "page" | "size"> & PageParams,
  options: { map?: (item: T) => U; totalField?: TotalField } = {},
) {
  const { items, total } = collection.page(query);
  const data = options.map ? items.map(options.map) : (items as unknown as U[]);
  return wrapPage(data, total, query, options.totalField);
}
