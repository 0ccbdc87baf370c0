import { describe, expect, it } from "vitest";
import { PETSTORE } from "../../mock-server/test/public-specs/support.js";
import { loadSuiteDocument } from "../generic/spec-option.js";
import { bundledDocument, documentBasePath, pathPrefix } from "./document.js";
import { documentedKey, documentIssues } from "./document-issues.js";

const answer = (status: number, json: unknown, path = "/api/v3/pet/1") => ({
  status,
  headers: new Headers({ "content-type": "application/json" }),
  text: JSON.stringify(json),
  json,
  request: { method: "GET", path },
});

describe("answers judged against the run's document", () => {
  it("a status is documented by its code, its range or default", () => {
    expect(documentedKey(["200", "404", "default"], 404)).toBe("404");
    expect(documentedKey(["200", "4XX"], 422)).toBe("4XX");
    expect(documentedKey(["200", "default"], 401)).toBe("default");
    expect(documentedKey(["200", "400"], 401)).toBeUndefined();
  });

  it("another document: its own error schema, no 2.2 body; this API's: the 2.2 body as before", async () => {
    const petstore = await loadSuiteDocument(PETSTORE);
    expect(petstore.referenceErrors).toBe(false);
    // A 401 falls under `default` (Error: code and message); no `status`/`error`/`path` is asked of it.
    expect(documentIssues(petstore, answer(401, { code: 401, message: "no key" }), "getPetById", "documented")).toEqual(
      [],
    );
    expect(
      documentIssues(petstore, answer(200, { name: "rex" }), "getPetById", "documented").map((i) => i.pointer),
    ).toEqual(["/photoUrls"]);
    expect(bundledDocument.referenceErrors).toBe(true);
    const issues = documentIssues(
      bundledDocument,
      answer(404, { message: "gone" }, "/v1/qa-rules/x"),
      "getQaRule",
      "documented",
    );
    expect(issues.map((i) => i.pointer)).toEqual(expect.arrayContaining(["/status", "/error"]));
  });

  it("the base path comes from the first server URL, unless the base URL already ends with it", async () => {
    const petstore = await loadSuiteDocument(PETSTORE);
    expect(petstore.basePath).toBe("/api/v3");
    expect(pathPrefix(petstore, "http://127.0.0.1:4010")).toBe("/api/v3");
    expect(pathPrefix(petstore, "https://petstore3.swagger.io/api/v3/")).toBe("");
    expect(
      documentBasePath({
        servers: [{ url: "{base_url}", variables: { base_url: { default: "https://api.example.com" } } }],
      }),
    ).toBe("");
    expect(pathPrefix(bundledDocument, "https://staging.example.com/api")).toBe("");
  });
});
