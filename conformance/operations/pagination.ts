/**
 * The rules every list operation shares (section 2.1 and 8): defaults, echo, totalPages, hasNext and
 * hasPrevious on the first, third, last and an out-of-range page, bounded walks over every page at
 * several sizes, and the 400 answers to page=-1, size=0 and size=abc.
 */
import type { RuleContext, RuleSpec } from "../lib/rule.js";
import { fetchPage, orderDisagreement, walk, WALK_SIZES, type ListConfig } from "./list-pages.js";

export function paginationRules(cfg: ListConfig): RuleSpec[] {
  const op = cfg.operationId;
  const base = { operationId: op, readOnly: true };
  return [
    {
      ...base,
      id: `${op}.defaults`,
      level: "documented",
      description: "Without page and size the wrapper answers page 0 of size 10 (sections 4 and 8).",
      run: async (t) => void (await fetchPage(t, cfg)),
    },
    {
      ...base,
      id: `${op}.page-size-echo`,
      level: "documented",
      description: "page and size are echoed; data holds at most size items.",
      run: async (t) => {
        await fetchPage(t, cfg, { page: 1, size: 3 });
        await fetchPage(t, cfg, { page: 0, size: 1 });
      },
    },
    {
      ...base,
      id: `${op}.total-pages`,
      level: "documented",
      description:
        "totalPages == ceil(total / size), and hasNext / hasPrevious exact, on the first, third and last page of several sizes, full and partial last pages included.",
      run: async (t) => {
        let total: number | undefined;
        // The reference shows no maximum page size: a foreign target may cap it, so only the kit's
        // mock (which has none) is asked for large pages. Size 1 always ends on a full last page.
        const large = t.fixtures.isMock;
        for (const size of large ? [1, ...WALK_SIZES, 1000] : [1, ...WALK_SIZES]) {
          const first = await fetchPage(t, cfg, { page: 0, size });
          if (!first.ok || !Number.isInteger(first.total)) continue;
          total = first.total;
          const last = Math.ceil(first.total / size) - 1;
          // A page past the second: an offset bug that only grows with the page number shows there.
          if (last > 2) await fetchPage(t, cfg, { page: 2, size });
          if (last > 0) await fetchPage(t, cfg, { page: last, size });
        }
        // A size that divides the total exactly: the last page is full and still has no next.
        if (large && total !== undefined && total > 1) await fetchPage(t, cfg, { page: 0, size: total });
      },
    },
    {
      ...base,
      id: `${op}.last-and-out-of-range`,
      level: "documented",
      description:
        "The last page has hasNext false; a page past the end is empty with hasNext false and hasPrevious true.",
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
      ...base,
      id: `${op}.walk`,
      level: "documented",
      description: `Walking every page at sizes ${WALK_SIZES.join(", ")} yields each of the total records exactly once, records created in the same instant included (none lost or repeated where a page boundary falls between them), and every size cuts the same sequence${cfg.order === "documented" ? "" : " (assumption: the reference states no order for this list)"}.`,
      run: async (t) => {
        let reference: { size: number; ids: string[] } | undefined;
        let bounded = false;
        for (const size of WALK_SIZES) {
          const result = await walk(t, cfg, {}, size, 20);
          if (!result) return;
          if (result.total < 0) return t.skip("the total changed during the walk (live target)");
          const ids = result.items.map(cfg.idOf);
          const distinct = new Set(ids);
          t.expect(distinct.size === ids.length, {
            pointer: "/data",
            expected: "each record on exactly one page",
            actual: `${ids.length - distinct.size} repeated at size ${size}: ${ids
              .filter((id, i) => ids.indexOf(id) !== i)
              .slice(0, 3)
              .join(", ")}`,
            message: `pages of size ${size} do not overlap`,
          });
          if (result.complete)
            t.expectEqual(
              distinct.size,
              result.total,
              `/${cfg.totalField}`,
              `the pages of size ${size} together hold total records`,
            );
          else bounded = true;
          if (!reference) {
            reference = { size, ids };
            continue;
          }
          // One list, so one sequence: a boundary between records of equal creation time must not reorder them.
          const differ = orderDisagreement(reference.ids, ids);
          t.expect(!differ, {
            pointer: "/data",
            expected: differ ? `${differ.a} (its place walking by ${reference.size})` : "",
            actual: differ ? `${differ.b} (walking by ${size})` : "",
            message: `walking by ${size} and by ${reference.size} lists the records in the same order (record ${differ?.at} of those both walks hold)`,
            assumed: cfg.order !== "documented",
          });
        }
        // Not a skip: every page read was checked, only the end of a long list was not reached.
        if (bounded)
          t.fixtures.notCovered.push(
            `${op}.walk: more than 20 pages at the small sizes, walks bounded (totals compared only where complete)`,
          );
      },
    },
    ...(!cfg.emptyQuery
      ? []
      : [
          {
            ...base,
            id: `${op}.empty-result`,
            level: "documented" as const,
            description:
              "A filter that matches nothing answers an empty page: data [], total 0, totalPages 0, hasNext and hasPrevious false.",
            run: async (t: RuleContext) => {
              const query = cfg.emptyQuery?.(t.fixtures);
              if (!query)
                return t.skip("no filter value known to match nothing (the fixtures know one on the kit's mock)");
              for (const page of [0, 1]) {
                const result = await fetchPage(t, cfg, { ...query, page, size: 5 });
                if (result.ok)
                  t.expectEqual(result.total, 0, `/${cfg.totalField}`, `${new URLSearchParams(query)} matches nothing`);
              }
            },
          },
        ]),
    {
      ...base,
      id: `${op}.invalid-params`,
      level: "documented",
      description:
        "page=-1, page=abc, size=0, size=-1, size=abc answer 400 with the error body (section 8: page >= 0, size >= 1).",
      run: async (t) => {
        for (const [name, value] of [
          ["page", "-1"],
          ["page", "abc"],
          ["size", "0"],
          ["size", "-1"],
          ["size", "abc"],
        ]) {
          const ex = await t.call(op, { method: "GET", path: cfg.path, query: { [name]: value } });
          t.expectStatus(ex, 400, `${name}=${value} must be rejected with 400`);
        }
      },
    },
    {
      ...base,
      id: `${op}.validation-errors-name-param`,
      level: "assumed",
      description: "A rejected page or size is named in validationErrors (assumption: keyed by parameter name).",
      run: async (t) => {
        for (const [name, value] of [
          ["page", "-1"],
          ["size", "0"],
          ["size", "abc"],
        ]) {
          const ex = await t.call(op, { method: "GET", path: cfg.path, query: { [name]: value } });
          if (!t.expectStatus(ex, 400)) continue;
          const errors = (ex.json as Record<string, any>)?.validationErrors;
          t.expect(!!errors && typeof errors[name] === "string", {
            pointer: `/validationErrors/${name}`,
            expected: "a message naming the parameter",
            actual: errors,
            message: `validationErrors names ${name}`,
          });
        }
      },
    },
  ];
}
