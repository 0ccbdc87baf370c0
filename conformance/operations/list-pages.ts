/**
 * Reading list pages. Every page the suite fetches, whatever the rule, is checked against the
 * invariants of the pagination wrapper (section 2.1), so a broken wrapper is caught wherever it shows.
 */
import type { Fixtures } from "../fixtures/types.js";
import type { RuleContext } from "../lib/rule.js";
import type { Exchange } from "../lib/http.js";
import type { Level } from "../lib/schemas.js";
import { listOperation, type TotalField } from "../../mock-server/core/exchange-rules/list-operations.js";
import { pageInvariantIssues, pageSizeCap } from "../../mock-server/core/exchange-rules/page-invariants.js";

/**
 * The page sizes rules walk lists with. The mock's fixtures fill 24 or 30 records per list (more than
 * 20, so pages past the second exist at every size): 2, 3 and 6 divide both (a full last page), 4 only
 * 24, 5 and 10 only 30 (a partial last page otherwise); filtered subsets have uneven totals.
 */
export const WALK_SIZES = [2, 3, 4, 5, 6, 10];

export interface ListConfig {
  operationId: string;
  path: string;
  /** The wrapper's total field: the phone number list names it totalCounts (2.1). From LIST_OPERATIONS. */
  totalField: TotalField;
  idOf(item: Record<string, any>): string;
  /** A filter known to match nothing, when the fixtures know one. */
  emptyQuery?(f: Fixtures): Record<string, string> | undefined;
  /**
   * Whether the reference states the list's order: `documented` for E8, E10 and E17 (most recently
   * created first, one fixed order, so every page size cuts the same sequence); `assumed` (the default)
   * where it states none (E1, E14). From LIST_OPERATIONS.
   */
  order?: Level;
}

/**
 * What a list's config takes from LIST_OPERATIONS (mock-server/core/exchange-rules/list-operations.ts),
 * the table the mock's upstream door reads too: its total's name and the level of its order.
 */
export function listOf(operationId: string): Pick<ListConfig, "operationId" | "totalField" | "order"> {
  const list = listOperation(operationId);
  return { operationId, totalField: list.totalField, order: list.order?.level };
}

export interface Page {
  exchange: Exchange;
  ok: boolean;
  data: Record<string, any>[];
  page: number;
  size: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export async function fetchPage(
  t: RuleContext,
  cfg: ListConfig,
  query: Record<string, string | number | boolean | undefined> = {},
): Promise<Page> {
  const exchange = await t.call(cfg.operationId, { method: "GET", path: cfg.path, query });
  const body = (exchange.json ?? {}) as Record<string, any>;
  const page: Page = {
    exchange,
    ok: exchange.status === 200 && Array.isArray(body.data),
    data: Array.isArray(body.data) ? body.data : [],
    page: body.page,
    size: body.size,
    total: body[cfg.totalField],
    totalPages: body.totalPages,
    hasNext: body.hasNext,
    hasPrevious: body.hasPrevious,
  };
  if (!t.expectStatus(exchange, 200) || !page.ok) return { ...page, ok: false };
  checkInvariants(t, cfg, page, query);
  return page;
}

function noteCap(t: RuleContext, size: number): void {
  const note = `${t.rule.operationId}: the target caps the page size at ${size}; larger pages were checked at ${size}`;
  if (!t.fixtures.notCovered.includes(note)) t.fixtures.notCovered.push(note);
}

/**
 * The wrapper's invariants for the page and size asked (exchange-rules/page-invariants.ts, which the
 * mock's upstream door applies to the pages it proxies), each broken one a failure of the rule.
 */
function checkInvariants(t: RuleContext, cfg: ListConfig, p: Page, query: Record<string, unknown>): void {
  const exchange = p.exchange;
  // A deployment may cap the page size (section 8 shows no maximum): the page is judged at the size it
  // served, and the run says the larger pages were checked at the cap.
  const cap = pageSizeCap(p.size, query);
  if (cap !== undefined) noteCap(t, cap);
  for (const issue of pageInvariantIssues(exchange.json, query, cfg.totalField))
    t.expect(false, { ...issue, exchange });
}

export interface Walk {
  items: Record<string, any>[];
  pages: Page[];
  complete: boolean;
  total: number;
}

/**
 * Reads pages of `size` until the end or `maxPages`. On a live target records may arrive during the
 * walk; when the total moved, the walk is retried once and then reported incomplete, never failed.
 */
export async function walk(
  t: RuleContext,
  cfg: ListConfig,
  query: Record<string, string | number | boolean | undefined> = {},
  size = 4,
  maxPages = 40,
): Promise<Walk | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const first = await fetchPage(t, cfg, { ...query, page: 0, size });
    if (!first.ok) return undefined;
    const items = [...first.data];
    const pages = [first];
    let complete = true;
    let stable = true;
    for (let page = 1; page < first.totalPages; page++) {
      if (page >= maxPages) {
        complete = false;
        break;
      }
      const next = await fetchPage(t, cfg, { ...query, page, size });
      if (!next.ok) return undefined;
      if (next.total !== first.total) stable = false;
      items.push(...next.data);
      pages.push(next);
    }
    if (stable) return { items, pages, complete, total: first.total };
  }
  return { items: [], pages: [], complete: false, total: -1 };
}

/**
 * Where two walks of one list disagree on order: the first position, among the records both hold
 * (records may arrive or leave on a live target between walks), where their sequences differ.
 */
export function orderDisagreement(a: string[], b: string[]): { at: number; a: string; b: string } | undefined {
  const inA = new Set(a);
  const inB = new Set(b);
  const firsts = (ids: string[], keep: Set<string>) => [...new Set(ids)].filter((id) => keep.has(id));
  const x = firsts(a, inB);
  const y = firsts(b, inA);
  const at = x.findIndex((id, i) => id !== y[i]);
  return at < 0 ? undefined : { at, a: x[at], b: y[at] };
}

export interface FilterCheck {
  /** Ids of the unfiltered list, in its order: the filtered pages must keep it (a filter selects, never reorders). */
  unfiltered?: string[];
  /** Kit's mock: the workspace's records (the list shapes), so the total is checked as the store's count. */
  stored?: Record<string, any>[];
  size?: number;
}

/**
 * Walks a filtered list over several pages: every item satisfies `predicate` (any target), the items keep
 * the unfiltered order, and on the kit's mock the total is the number of stored records satisfying it.
 */
export async function checkFilter(
  t: RuleContext,
  cfg: ListConfig,
  query: Record<string, string>,
  predicate: (item: Record<string, any>) => boolean,
  what: string,
  check: FilterCheck = {},
): Promise<Walk | undefined> {
  const label = new URLSearchParams(query).toString() || "no filter";
  const result = await walk(t, cfg, query, check.size ?? 3, 20);
  if (!result) return undefined;
  const wrong = result.items.findIndex((item) => !predicate(item));
  t.expect(wrong < 0, {
    pointer: `/data/${wrong % (check.size ?? 3)}`,
    expected: what,
    actual: result.items[wrong],
    message: `${label} lists only ${what}`,
    exchange: result.pages[Math.floor(wrong / (check.size ?? 3))]?.exchange,
  });
  if (check.unfiltered) {
    const differ = orderDisagreement(check.unfiltered, result.items.map(cfg.idOf));
    t.expect(!differ, {
      pointer: "/data",
      expected: differ ? `${differ.a} next, as in the unfiltered list` : "",
      actual: differ?.b ?? "",
      message: `${label} keeps the order of the unfiltered list`,
      assumed: cfg.order !== "documented",
    });
  }
  if (check.stored && result.complete)
    t.expectEqual(
      result.total,
      check.stored.filter(predicate).length,
      `/${cfg.totalField}`,
      `${label}: every record of the workspace that is ${what} is counted`,
    );
  return result;
}
