/**
 * The rules every list operation shares (section 2.1 and 8): defaults, echo, totalPages, hasNext and
 * hasPrevious on the first, last and an out-of-range page, a bounded walk over every page, and the
 * 400 answers to page=-1, size=0 and size=abc.
 */
import type { RuleContext, RuleSpec } from "../lib/rule.js";
import { fetchPage, walk, type ListConfig } from "./list-pages.js";

export function paginationRules(cfg: ListConfig): RuleSpec[] {
  const op = cfg.operationId;
  const base = { operationId: op, readOnly: true };
  return [
    {
      ...base, id: `${op}.defaults`, level: "documented",
      description: "Without page and size the wrapper answers page 0 of size 10 (sections 4 and 8).",
      run: async (t) => void (await fetchPage(t, cfg)),
    },
    {
      ...base, id: `${op}.page-size-echo`, level: "documented",
      description: "page and size are echoed; data holds at most size items.",
      run: async (t) => {
        await fetchPage(t, cfg, { page: 1, size: 3 });
        await fetchPage(t, cfg, { page: 0, size: 1 });
      },
    },
    {
      ...base, id: `${op}.total-pages`, level: "documented",
      description: "totalPages == ceil(total / size), and hasNext / hasPrevious exact, on the first and last page of several sizes, a full last page included.",
      run: async (t) => {
        let total: number | undefined;
        // The reference shows no maximum page size: a foreign target may cap it, so only the kit's
        // mock (which has none) is asked for large pages. Size 1 always ends on a full last page.
        const large = t.fixtures.isMock;
        for (const size of large ? [1, 2, 5, 10, 1000] : [1, 2, 5, 10]) {
          const first = await fetchPage(t, cfg, { page: 0, size });
          if (!first.ok || !Number.isInteger(first.total)) continue;
          total = first.total;
          const last = Math.ceil(first.total / size) - 1;
          if (last > 0) await fetchPage(t, cfg, { page: last, size });
        }
        // A size that divides the total exactly: the last page is full and still has no next.
        if (large && total !== undefined && total > 1) await fetchPage(t, cfg, { page: 0, size: total });
      },
    },
    {
      ...base, id: `${op}.last-and-out-of-range`, level: "documented",
      description: "The last page has hasNext false; a page past the end is empty with hasNext false and hasPrevious true.",
      run: async (t) => {
        const first = await fetchPage(t, cfg, { page: 0, size: 2 });
        if (!first.ok || !Number.isInteger(first.totalPages)) return;
        if (first.totalPages > 1) await fetchPage(t, cfg, { page: first.totalPages - 1, size: 2 });
        const beyond = await fetchPage(t, cfg, { page: first.totalPages + 3, size: 2 });
        if (beyond.ok) {
          t.expectEqual(beyond.data.length, 0, "/data", "a page past the end holds no items");
          t.expectEqual(beyond.total, first.total, `/${cfg.totalField}`, "the total does not depend on the page asked");
        }
      },
    },
    {
      ...base, id: `${op}.walk`, level: "documented",
      description: "Walking every page yields exactly total distinct items.",
      run: async (t) => {
        const result = await walk(t, cfg);
        if (!result) return;
        if (!result.complete) return t.skip(result.total < 0 ? "the total changed during the walk (live target)" : "more than 40 pages: walk bounded");
        const ids = result.items.map(cfg.idOf);
        const distinct = new Set(ids);
        t.expect(distinct.size === ids.length, { pointer: "/data", expected: "each record on exactly one page", actual: `${ids.length - distinct.size} repeated`, message: "pages do not overlap" });
        t.expectEqual(distinct.size, result.total, `/${cfg.totalField}`, "the pages together hold total records");
      },
    },
    ...(!cfg.emptyQuery ? [] : [{
      ...base, id: `${op}.empty-result`, level: "documented" as const,
      description: "A filter that matches nothing answers an empty page: data [], total 0, totalPages 0, hasNext and hasPrevious false.",
      run: async (t: RuleContext) => {
        const query = cfg.emptyQuery?.(t.fixtures);
        if (!query) return t.skip("no filter value known to match nothing (the fixtures know one on the kit's mock)");
        for (const page of [0, 1]) {
          const result = await fetchPage(t, cfg, { ...query, page, size: 5 });
          if (result.ok) t.expectEqual(result.total, 0, `/${cfg.totalField}`, `${new URLSearchParams(query)} matches nothing`);
        }
      },
    }]),
    {
      ...base, id: `${op}.invalid-params`, level: "documented",
      description: "page=-1, page=abc, size=0, size=-1, size=abc answer 400 with the error body (section 8: page >= 0, size >= 1).",
      run: async (t) => {
        for (const [name, value] of [["page", "-1"], ["page", "abc"], ["size", "0"], ["size", "-1"], ["size", "abc"]]) {
          const ex = await t.call(op, { method: "GET", path: cfg.path, query: { [name]: value } });
          t.expectStatus(ex, 400, `${name}=${value} must be rejected with 400`);
        }
      },
    },
    {
      ...base, id: `${op}.validation-errors-name-param`, level: "assumed",
      description: "A rejected page or size is named in validationErrors (assumption: keyed by parameter name).",
      run: async (t) => {
        for (const [name, value] of [["page", "-1"], ["size", "0"], ["size", "abc"]]) {
          const ex = await t.call(op, { method: "GET", path: cfg.path, query: { [name]: value } });
          if (!t.expectStatus(ex, 400)) continue;
          const errors = (ex.json as Record<string, any>)?.validationErrors;
          t.expect(!!errors && typeof errors[name] === "string", { pointer: `/validationErrors/${name}`, expected: "a message naming the parameter", actual: errors, message: `validationErrors names ${name}` });
        }
      },
    },
  ];
}
