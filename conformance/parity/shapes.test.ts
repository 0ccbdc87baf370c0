import { describe, expect, it } from "vitest";
import { activeDefault, describeDefault, errorShape, isStatusText, orderOf, presence } from "./shapes.js";

const body = {
  timestamp: "2026-11-01T12:00:00.000Z",
  status: 400,
  error: "Bad Request",
  message: "Request validation failed: size must be >= 1",
  path: "/v1/calls",
  validationErrors: { size: "must be >= 1" },
};
const sent = { path: "/v1/calls", basePath: "", field: "size" };

describe("errorShape", () => {
  it("describes a 2.2 body by its aspects, never its text", () => {
    expect(errorShape(400, body, JSON.stringify(body), sent)).toEqual({
      status: "the HTTP status",
      error: "the status text",
      message: "text",
      messageNamesField: true,
      path: "the request path",
      timestamp: "ISO 8601",
      validationErrors: "names the field",
      extraFields: [],
    });
  });

  it("gives equal shapes for bodies that differ only in data (ids, wording of values)", () => {
    const one = errorShape(
      404,
      {
        ...body,
        status: 404,
        error: "Not Found",
        message: "Call not found: abc",
        path: "/v1/calls/abc",
        validationErrors: undefined,
      },
      "x",
      { path: "/v1/calls/abc", basePath: "", id: "abc" },
    );
    const two = errorShape(
      404,
      {
        ...body,
        status: 404,
        error: "Not Found",
        message: "Call not found: 9f1e",
        path: "/v1/calls/9f1e",
        validationErrors: undefined,
      },
      "x",
      { path: "/v1/calls/9f1e", basePath: "", id: "9f1e" },
    );
    expect(one).toEqual(two);
    expect(one.messageEchoesId).toBe(true);
  });

  it("sees a missing path, another error text, a status field that disagrees, extra fields", () => {
    const { path: _path, ...noPath } = body;
    expect(errorShape(400, noPath, "x", sent).path).toBe("(absent)");
    expect(errorShape(400, { ...body, error: "BAD_REQUEST" }, "x", sent).error).toBe("BAD_REQUEST");
    expect(errorShape(422, { ...body, error: "Unprocessable Entity" }, "x", sent)).toMatchObject({
      error: "the status text",
      status: "another status",
    });
    expect(errorShape(400, { ...body, traceId: "t-1", code: 7 }, "x", sent).extraFields).toEqual(["code", "traceId"]);
  });

  it("takes the path relative to the base path, decoded, or with the query as the request's", () => {
    const behind = { path: "/api/v1/phone-number/%2B1415", basePath: "/api" };
    expect(errorShape(400, { ...body, path: "/v1/phone-number/+1415" }, "x", behind).path).toBe("the request path");
    expect(errorShape(400, { ...body, path: "/api/v1/phone-number/%2B1415" }, "x", behind).path).toBe(
      "the request path",
    );
    expect(errorShape(400, { ...body, path: "/v1/calls?size=0" }, "x", sent).path).toBe("the request path and query");
    expect(errorShape(400, { ...body, path: "/elsewhere" }, "x", sent).path).toBe("another path");
  });

  it("says whether the message names the field as a word, and where validationErrors point", () => {
    expect(errorShape(400, { ...body, message: "sizes are wrong" }, "x", sent).messageNamesField).toBe(false);
    expect(errorShape(400, { ...body, message: "Invalid value for 'size'" }, "x", sent).messageNamesField).toBe(true);
    expect(errorShape(400, { ...body, validationErrors: { page: "x" } }, "x", sent).validationErrors).toBe(
      "names other fields",
    );
  });

  it("names what is not a 2.2 body at all", () => {
    expect(errorShape(502, undefined, "<html>", sent)).toEqual({ body: "not JSON" });
    expect(errorShape(400, undefined, "", sent)).toEqual({ body: "empty" });
    expect(errorShape(400, ["x"], '["x"]', sent)).toEqual({ body: "not an object" });
  });
});

describe("isStatusText", () => {
  it("knows the reference's texts and HTTP's, in any case", () => {
    expect(isStatusText("Bad Request", 400)).toBe(true);
    expect(isStatusText("unprocessable entity", 422)).toBe(true);
    expect(isStatusText("Bad Request", 404)).toBe(false);
  });
});

describe("orderOf", () => {
  const at = (...isos: string[]) => isos.map((createdAt) => ({ createdAt }));
  it("reads newest first, oldest first, or neither, ties allowed", () => {
    expect(orderOf(at("2026-01-03T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-01T00:00:00Z"), "createdAt")).toBe(
      "newest-first",
    );
    expect(orderOf(at("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"), "createdAt")).toBe("oldest-first");
    expect(orderOf(at("2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z"), "createdAt")).toBe(
      "unordered",
    );
  });
  it("says nothing when the items cannot show an order", () => {
    expect(orderOf(at("2026-01-01T00:00:00Z"), "createdAt")).toBeUndefined();
    expect(orderOf(at("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"), "createdAt")).toBeUndefined();
    expect(orderOf([{}, { createdAt: "not a date" }], "createdAt")).toBeUndefined();
  });
});

describe("presence", () => {
  it("classes keys always or sometimes, nested objects and array items one level down", () => {
    const p = presence([
      { id: "1", campaign: { name: "x", date: "d" }, tools: [{ type: "a" }, { type: "b", extra: 1 }] },
      { id: "2", campaign: null, endedAt: "t", tools: [] },
    ]);
    expect(p.records).toBe(2);
    expect(p.keys).toEqual({
      campaign: "always",
      "campaign.date": "always",
      "campaign.name": "always",
      endedAt: "sometimes",
      id: "always",
      tools: "always",
      "tools[].extra": "sometimes",
      "tools[].type": "always",
    });
    expect(p.parents).toEqual(["campaign", "tools[]"]);
  });
});

describe("describeDefault", () => {
  it("keeps short values and names the rest", () => {
    expect(describeDefault(undefined)).toBe("(absent)");
    expect(describeDefault(null)).toBeNull();
    expect(describeDefault(10)).toBe(10);
    expect(describeDefault("")).toBe("");
    expect(describeDefault("x".repeat(50))).toBe("a string of 50 characters");
    expect(describeDefault([])).toBe("an empty array");
    expect(describeDefault({ a: 1 })).toBe("an object");
  });
});

describe("activeDefault", () => {
  it("tells the default from the three totals, or nothing when two coincide by the data", () => {
    expect(activeDefault(9, 9, 4)).toBe("active=true");
    expect(activeDefault(13, 9, 4)).toBe("both");
    expect(activeDefault(4, 9, 4)).toBe("active=false");
    expect(activeDefault(9, 9, 0)).toBeUndefined();
  });
});
