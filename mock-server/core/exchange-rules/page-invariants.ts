/**
 * The invariants of one page of the 2.1 pagination wrapper, for the page and size asked: page and size
 * echoed (0 and 10 when not asked), at most size items, totalPages == ceil(total / size), hasNext and
 * hasPrevious exact, the exact number of items, and no item twice. Pure, so the suite (on every page it
 * reads) and the upstream door (on every page it proxies) report the same pointers and messages.
 */
import { shown, type Issue } from "./issue.js";
import type { TotalField } from "./list-operations.js";

/** What the client asked; absent means the default. Query strings and numbers alike. */
export interface PageAsked {
  page?: unknown;
  size?: unknown;
}

export const DEFAULT_PAGE = 0;
export const DEFAULT_SIZE = 10;

const askedSize = (asked: PageAsked) => (asked.size === undefined ? DEFAULT_SIZE : Number(asked.size));

/**
 * Section 8: "Maximum page size: not shown". A deployment may cap it (at the default or more) and echo
 * the size it served: the page is then judged at that size. The cap, when the served size shows one.
 */
export function pageSizeCap(servedSize: unknown, asked: PageAsked): number | undefined {
  return Number.isInteger(servedSize) &&
    (servedSize as number) >= DEFAULT_SIZE &&
    (servedSize as number) < askedSize(asked)
    ? (servedSize as number)
    : undefined;
}

/** Equal as the suite's expectEqual compares: as JSON, keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/**
 * The broken invariants of a page `body` answered to `asked`; none when the body holds no `data` array
 * (then it is no page, which the schema says). `totalField` names the total (totalCounts for E14).
 */
export function pageInvariantIssues(body: unknown, asked: PageAsked, totalField: TotalField): Issue[] {
  if (!body || typeof body !== "object" || !Array.isArray((body as { data?: unknown }).data)) return [];
  const p = body as Record<string, any>;
  const data = p.data as unknown[];
  const total = p[totalField];
  const issues: Issue[] = [];
  const expectEqual = (actual: unknown, expected: unknown, pointer: string, message: string) => {
    if (!sameJson(actual, expected))
      issues.push({ pointer, expected: shown(expected), actual: shown(actual), message });
  };
  const wantPage = asked.page === undefined ? DEFAULT_PAGE : Number(asked.page);
  const wantSize = pageSizeCap(p.size, asked) ?? askedSize(asked);
  expectEqual(
    p.page,
    wantPage,
    "/page",
    asked.page === undefined ? "page defaults to 0" : "page echoes the requested page",
  );
  expectEqual(
    p.size,
    wantSize,
    "/size",
    asked.size === undefined ? "size defaults to 10" : "size echoes the requested size",
  );
  if (!(data.length <= wantSize))
    issues.push({
      pointer: "/data",
      expected: `at most ${wantSize} items`,
      actual: `${data.length} items`,
      message: "data holds at most size items",
    });
  if (!Number.isInteger(total) || !Number.isInteger(p.totalPages)) return issues;
  const pages = Math.ceil(total / wantSize);
  expectEqual(p.totalPages, pages, "/totalPages", `totalPages == ceil(${total} / ${wantSize})`);
  expectEqual(
    p.hasNext,
    wantPage < pages - 1,
    "/hasNext",
    `hasNext: a later page exists (page ${wantPage} of ${pages})`,
  );
  if (wantPage === 0 || pages > 0)
    expectEqual(
      p.hasPrevious,
      wantPage > 0,
      "/hasPrevious",
      `hasPrevious: an earlier page exists (page ${wantPage} of ${pages})`,
    );
  const expectedLength = Math.max(0, Math.min(wantSize, total - wantPage * wantSize));
  expectEqual(
    data.length,
    expectedLength,
    "/data",
    `page ${wantPage} of size ${wantSize} over ${total} records holds ${expectedLength} items`,
  );
  if (hasRepeatedItem(data))
    issues.push({
      pointer: "/data",
      expected: "distinct items",
      actual: data.map((item) => JSON.stringify(item)).join(","),
      message: "a page lists each record once",
    });
  return issues;
}

/**
 * Whether two items of a page are the same JSON. Items equal as JSON have equal top-level scalar
 * values, so those are compared first (cheap); the whole JSON only for items that agree on them.
 */
function hasRepeatedItem(data: unknown[]): boolean {
  const byScalars = new Map<string, unknown[]>();
  for (const item of data) {
    const key =
      item !== null && typeof item === "object"
        ? Object.values(item)
            .filter((v) => v === null || typeof v !== "object")
            .join("\u0000")
        : `scalar:${JSON.stringify(item)}`;
    const same = byScalars.get(key);
    if (!same) byScalars.set(key, [item]);
    else {
      const json = JSON.stringify(item);
      if (same.some((other) => JSON.stringify(other) === json)) return true;
      same.push(item);
    }
  }
  return false;
}
