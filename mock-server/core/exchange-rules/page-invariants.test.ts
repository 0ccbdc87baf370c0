/** The 2.1 page invariants as one pure function: what the suite's fetchPage and the drift checks report. */
import { describe, expect, it } from "vitest";
import { pageInvariantIssues, pageSizeCap } from "./page-invariants.js";

const page = (more: Record<string, unknown> = {}) => ({
  data: [{ id: "a" }, { id: "b" }, { id: "c" }],
  page: 1,
  size: 3,
  totalCount: 7,
  totalPages: 3,
  hasNext: true,
  hasPrevious: true,
  ...more,
});
const pointers = (body: unknown, asked: { page?: unknown; size?: unknown }, total = "totalCount" as const) =>
  pageInvariantIssues(body, asked, total).map((i) => i.pointer);

describe("pageInvariantIssues", () => {
  it("passes a page that keeps every invariant", () => {
    expect(pageInvariantIssues(page(), { page: 1, size: 3 }, "totalCount")).toEqual([]);
    expect(pageInvariantIssues(page(), { page: "1", size: "3" }, "totalCount")).toEqual([]);
  });

  it.each([
    ["a page not echoed", page({ page: 2 }), "/page"],
    ["a size not echoed", page({ size: 4 }), "/size"],
    ["totalPages off", page({ totalPages: 4 }), "/totalPages"],
    ["hasNext off", page({ hasNext: false }), "/hasNext"],
    ["hasPrevious off", page({ hasPrevious: false }), "/hasPrevious"],
    ["an item short", page({ data: [{ id: "a" }, { id: "b" }] }), "/data"],
    ["an item twice", page({ data: [{ id: "a" }, { id: "a" }, { id: "c" }] }), "/data"],
  ])("reports %s", (_name, body, pointer) => expect(pointers(body, { page: 1, size: 3 })).toEqual([pointer]));

  it("reads the total under the list's own name (E14: totalCounts)", () => {
    const phones = page({ totalCount: undefined, totalCounts: 7 });
    expect(pageInvariantIssues(phones, { page: 1, size: 3 }, "totalCounts")).toEqual([]);
  });

  it("judges the defaults, page 0 of size 10, when none is asked", () => {
    const first = page({ page: 0, size: 10, totalPages: 1, hasNext: false, hasPrevious: false, totalCount: 3 });
    expect(pointers(first, {})).toEqual([]);
    const [issue] = pageInvariantIssues({ ...first, size: 20 }, {}, "totalCount");
    expect(issue).toEqual({ pointer: "/size", expected: "10", actual: "20", message: "size defaults to 10" });
  });

  it("tolerates a page size cap at the default or more, and judges the page at the cap", () => {
    const capped = { data: Array.from({ length: 50 }, (_, i) => i), page: 0, size: 50, totalCount: 60 };
    const body = { ...capped, totalPages: 2, hasNext: true, hasPrevious: false };
    expect(pageSizeCap(50, { size: 100 })).toBe(50);
    expect(pageInvariantIssues(body, { size: 100 }, "totalCount")).toEqual([]);
    expect(pageSizeCap(5, { size: 100 })).toBeUndefined();
    expect(pageSizeCap(10, { size: 10 })).toBeUndefined();
  });

  it("leaves a body without a data array to the schema", () => {
    expect(pageInvariantIssues({ page: 0 }, {}, "totalCount")).toEqual([]);
    expect(pageInvariantIssues(undefined, {}, "totalCount")).toEqual([]);
  });
});
