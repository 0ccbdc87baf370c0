import { describe, expect, it } from "vitest";
import { listBody, listShapeOf, pagingOf, windowOf, type WrapperHelp } from "./list-shape.js";

const deref = (node: unknown) => node;
const int = { type: "integer" };
const items = { type: "array", items: { type: "object", properties: { id: int } } };
const help: WrapperHelp = {
  deref,
  link: (start) => `https://api.example.com/things?offset=${start}`,
  sample: () => "drawn",
};
const records = [5, 4, 3, 2, 1].map((id) => ({ id }));

describe("list shapes", () => {
  it("reads Django REST's { count, next, previous, results } and fills it", () => {
    const shape = listShapeOf(
      {
        type: "object",
        required: ["count", "next", "previous", "results"],
        properties: {
          count: int,
          next: { type: ["string", "null"], format: "uri" },
          previous: { type: ["string", "null"], format: "uri" },
          results: items,
        },
      },
      deref,
    )!;
    expect(shape).toMatchObject({ kind: "wrapper", itemsField: "results", fields: { count: "total", next: "next" } });
    const paging = pagingOf({ limit: int, offset: int }, deref);
    expect(listBody(shape, records, windowOf(paging, { limit: 2, offset: 2 }), help)).toEqual({
      count: 5,
      next: "https://api.example.com/things?offset=4",
      previous: "https://api.example.com/things?offset=0",
      results: [{ id: 3 }, { id: 2 }],
    });
  });

  it("reads Spring's page with one-based numbers when the parameter starts at 1", () => {
    const shape = listShapeOf(
      {
        type: "object",
        properties: {
          content: items,
          totalElements: int,
          totalPages: int,
          number: int,
          size: int,
          first: { type: "boolean" },
          last: { type: "boolean" },
          numberOfElements: int,
        },
      },
      deref,
    )!;
    const paging = pagingOf({ page: { type: "integer", minimum: 1, default: 1 }, per_page: int }, deref);
    expect(paging).toEqual({ kind: "page", page: "page", size: "per_page", base: 1 });
    expect(listBody(shape, records, windowOf(paging, { page: 2, per_page: 2 }), help)).toEqual({
      content: [{ id: 3 }, { id: 2 }],
      totalElements: 5,
      totalPages: 3,
      number: 2,
      size: 2,
      first: false,
      last: false,
      numberOfElements: 2,
    });
  });

  it("builds this API's 2.1 wrapper through wrapPage, Spring's arithmetic past the end too", () => {
    const shape = listShapeOf(
      {
        type: "object",
        properties: {
          data: items,
          page: int,
          size: int,
          totalCounts: int,
          totalPages: int,
          hasNext: { type: "boolean" },
          hasPrevious: { type: "boolean" },
        },
      },
      deref,
    )!;
    expect(shape).toMatchObject({ reference: "totalCounts" });
    const paging = pagingOf({ page: int, size: int }, deref);
    expect(listBody(shape, records, windowOf(paging, { page: 9, size: 2 }), help)).toEqual({
      data: [],
      page: 9,
      size: 2,
      totalCounts: 5,
      totalPages: 3,
      hasNext: false,
      hasPrevious: true,
    });
  });

  it("answers everything without paging parameters, and draws a required field it does not know", () => {
    const shape = listShapeOf(
      { type: "object", required: ["items", "etag"], properties: { items, etag: { type: "string" } } },
      deref,
    )!;
    const body = listBody(shape, records, windowOf(pagingOf({}, deref), {}), help);
    expect(body).toEqual({ items: records, etag: "drawn" });
    expect(listShapeOf({ type: "array", items: int }, deref)).toEqual({ kind: "array", items: int });
  });

  it("takes a record with a list in it for no page", () => {
    expect(
      listShapeOf({ type: "object", properties: { name: { type: "string" }, tools: items } }, deref),
    ).toBeUndefined();
  });
});
