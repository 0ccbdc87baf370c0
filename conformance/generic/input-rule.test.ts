import { describe, expect, it } from "vitest";
import { checkedDocument, specWithNewOperations } from "../test/generic-spec.js";
import { inputCases } from "./input-rule.js";

const document = checkedDocument(specWithNewOperations());
const op = (id: string) => document.operations.get(id)!;

describe("invalid-input cases", () => {
  it("a create: each required field left out, the body left out, then one breakage per field before a second", () => {
    const body = { name: "Dana", email: "dana@example.com", tier: "free" };
    const cases = inputCases(document, op("createContact"), {
      request: { method: "POST", path: "/v1/contacts", body, headers: {} },
      body,
      path: {},
    });
    expect(cases.map((c) => c.why)).toEqual([
      "the required body left out",
      "required body field name left out",
      "required body field email left out",
      "body field name a number where a string is documented",
      "body field email a number where a string is documented",
      "body field tier a number where a string is documented",
      "body field name shorter than 1 characters",
      "body field email not a email",
      'body field tier not one of ["free","pro"]',
    ]);
    expect(cases[1].request.body).toEqual({ email: "dana@example.com", tier: "free" });
    expect(cases[0].request.body).toBeUndefined();
  });

  it("a query parameter: left out when required, and values its schema refuses; page and size by their documented bounds", () => {
    const usage = inputCases(document, op("getUsage"), {
      request: { method: "GET", path: "/v1/usage", query: { month: "2030-01" } },
      path: {},
    });
    // The pattern is not broken (no value is certain to break a pattern): leaving it out is.
    expect(usage.map((c) => c.why)).toEqual(["required query parameter month left out"]);
    const list = inputCases(document, op("listContacts"), {
      request: { method: "GET", path: "/v1/contacts", query: {} },
      path: {},
    });
    expect(list.map((c) => c.request.query)).toEqual(expect.arrayContaining([{ page: "not-a-number" }, { size: "0" }]));
  });
});
