import { describe, expect, it } from "vitest";
import { MUSEUM, PETSTORE } from "../../mock-server/test/public-specs/support.js";
import { loadSuiteDocument } from "../generic/spec-option.js";
import { credentialPlacement, operationPlacement, placeCredential, requiresCredential } from "./credentials.js";
import { curlLine, type Exchange } from "./http.js";

const exchange = (
  url: string,
  headers: Record<string, string>,
  credential: Exchange["request"]["credential"],
): Exchange => ({
  request: { method: "GET", url, path: new URL(url).pathname, basePath: "", headers, credential },
  status: 200,
  headers: new Headers(),
  text: "",
  json: undefined,
  durationMs: 1,
});

describe("credentials where the document's security scheme puts them", () => {
  it("reads the placement of the document, and an operation's own where it does not accept the run's", async () => {
    const petstore = await loadSuiteDocument(PETSTORE);
    expect(petstore.credential).toEqual({ type: "bearer", scheme: "petstore_auth" });
    // getPetById takes api_key or petstore_auth: the run's bearer token; getInventory takes api_key only.
    expect(operationPlacement(petstore.doc, "/pet/{petId}", "GET", petstore.credential)).toBeUndefined();
    expect(operationPlacement(petstore.doc, "/store/inventory", "GET", petstore.credential)).toEqual({
      type: "apiKey",
      in: "header",
      name: "api_key",
      scheme: "api_key",
    });
    expect(requiresCredential(petstore.doc, "/store/order", "POST")).toBe(false);
    const museum = await loadSuiteDocument(MUSEUM);
    expect(credentialPlacement(museum.doc)).toEqual({ type: "basic", scheme: "MuseumPlaceholderAuth" });
    expect(requiresCredential(museum.doc, "/special-events", "GET")).toBe(true);
  });

  it("places the key, and a curl line reads it from $API_KEY wherever it went", () => {
    const headers: Record<string, string> = {};
    const url = new URL("https://api.example.com/v3/pets?limit=2");
    placeCredential({ type: "basic" }, "user:s3cret", headers, url);
    expect(headers.Authorization).toBe(`Basic ${Buffer.from("user:s3cret").toString("base64")}`);
    placeCredential({ type: "apiKey", in: "query", name: "key" }, "s3cret", headers, url);
    expect(url.searchParams.get("key")).toBe("s3cret");

    const basic = curlLine(exchange("https://h/p", { Authorization: "Basic c2VjcmV0" }, { type: "basic" }));
    expect(basic).toContain('-u "$API_KEY"');
    expect(basic).not.toContain("c2VjcmV0");
    const bearer = curlLine(exchange("https://h/p", { Authorization: "Bearer s3cret" }, { type: "bearer" }));
    expect(bearer).toContain('-H "Authorization: Bearer $API_KEY"');
    expect(bearer).not.toContain("s3cret");
    // A query credential is never in the recorded URL: the curl line appends it from the environment.
    const query = curlLine(exchange("https://h/p?a=1", {}, { type: "apiKey", in: "query", name: "key" }));
    expect(query).toContain(`'https://h/p?a=1&'"key=$API_KEY"`);
    const cookie = curlLine(
      exchange("https://h/p", { Cookie: "sid=s3cret" }, { type: "apiKey", in: "cookie", name: "sid" }),
    );
    expect(cookie).toContain('-H "Cookie: sid=$API_KEY"');
    expect(cookie).not.toContain("s3cret");
  });
});
