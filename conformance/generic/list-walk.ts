/**
 * A collection's list read page by page, as the document pages it (page/size or offset/limit query
 * parameters, or a single answer), until an item is found. Every page is judged like every answer; on
 * this API's page wrapper the 2.1 arithmetic too.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { pageInvariantIssues } from "../../mock-server/core/exchange-rules/page-invariants.js";
import type { SuiteDocument } from "../lib/document.js";
import type { RuleContext } from "../lib/rule.js";
import { type Collection, listedItems } from "./collections.js";
import { credentialFor, parametersOf, pathWith, requiredParts } from "./requests.js";
import { documentOf, prefixOf, valueOptions } from "./run-context.js";

/** What a walk through a list found. */
export interface Walk {
  items: unknown[];
  found?: Record<string, unknown>;
  problem?: string;
}

const PAGE = /^(page|pageNumber|page_number|pageIndex|page_index)$/i;
const SIZE = /^(size|limit|pageSize|page_size|perPage|per_page|maxResults|max_results)$/i;
const OFFSET = /^(offset|skip|start)$/i;

/** How the list pages: its page and size (or offset and limit) parameters, where it has them. */
function paging(document: SuiteDocument, list: OperationInfo) {
  const params = parametersOf(document, list).filter((p) => p.in === "query");
  const page = params.find((p) => PAGE.test(p.name));
  const offset = params.find((p) => OFFSET.test(p.name));
  const size = params.find((p) => SIZE.test(p.name));
  const sizeValue = size ? Math.max(size.schema.minimum ?? 1, Math.min(size.schema.maximum ?? 50, 50)) : undefined;
  const first = page ? Number(page.schema.default ?? page.schema.minimum ?? 0) : 0;
  return { page, offset, size, sizeValue, first: Number.isFinite(first) ? first : 0 };
}

/**
 * Reads `collection`'s list page by page (its page/size or offset/limit parameters, at most `maxPages`)
 * until `match` accepts an item. Every page is judged like every answer; on this API's page wrapper the
 * 2.1 arithmetic too.
 */
export async function walkList(
  t: RuleContext,
  collection: Collection,
  parents: Record<string, string>,
  match: (item: Record<string, unknown>) => boolean,
  maxPages = 20,
): Promise<Walk> {
  const document = documentOf(t);
  const list = collection.list!;
  const parts = requiredParts(document, list, valueOptions(t));
  if (parts.problem) return { items: [], problem: parts.problem };
  const where = listedItems(document, list);
  const { page, offset, size, sizeValue, first } = paging(document, list);
  const items: unknown[] = [];
  for (let n = 0; n < maxPages; n++) {
    const query: Record<string, string | number> = { ...parts.query };
    if (page) query[page.name] = first + n;
    if (offset) query[offset.name] = n * (sizeValue ?? 0);
    if (size && sizeValue !== undefined) query[size.name] = sizeValue;
    const exchange = await t.call(list.operationId, {
      method: "GET",
      path: pathWith(prefixOf(t), list.path, parents),
      query,
      headers: parts.headers,
      ...credentialFor(document, list),
    });
    if (exchange.status < 200 || exchange.status >= 300)
      return { items, problem: `${list.operationId} answered ${exchange.status}` };
    const body = exchange.json as Record<string, unknown> | unknown[] | undefined;
    const pageItems = where.property ? (body as Record<string, unknown> | undefined)?.[where.property] : body;
    if (!Array.isArray(pageItems)) return { items, problem: `${list.operationId} answered no list of records` };
    if (document.referenceErrors && where.property === "data" && page && size)
      for (const issue of pageInvariantIssues(
        body,
        { page: query[page.name], size: query[size.name] },
        "totalCounts" in (body as object) ? "totalCounts" : "totalCount",
      ))
        t.expect(false, { ...issue, exchange });
    items.push(...pageItems);
    const found = pageItems.find((item) => item && typeof item === "object" && match(item as Record<string, unknown>));
    if (found) return { items, found: found as Record<string, unknown> };
    const more =
      (page || offset) &&
      pageItems.length > 0 &&
      (sizeValue === undefined || pageItems.length >= sizeValue) &&
      (body as { hasNext?: unknown }).hasNext !== false;
    if (!more) break;
  }
  return { items };
}
