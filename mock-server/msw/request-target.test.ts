import { describe, expect, it } from "vitest";
import { targetOf } from "./request-target.js";

/** What the door took before: the URL parsed. */
function parsed(url: string, prefix: string) {
  const u = new URL(url);
  return { path: u.pathname.slice(prefix.length) + u.search, host: u.host };
}

const BASES = [
  "http://127.0.0.1:4010",
  "https://api.example.com/api/",
  "http://mock.bench.invalid",
  "https://h.test:8443/a/b",
];
const TAILS = [
  "/v1/calls",
  "/v1/calls?page=0&size=10",
  "/v1/calls?",
  "/v1/calls??",
  "/v1/calls?a=1?",
  "/v1/calls#frag",
  "/v1/calls?x=1#frag?",
  "/v1/calls#frag?x",
  "",
  "/",
  "?q=1",
  "/__mock/health",
  "/V1/Calls/%20x?q=%C3%A9",
];

describe("targetOf", () => {
  it("gives the path, query and host new URL gives, for every request the handlers take", () => {
    for (const baseUrl of BASES) {
      const base = new URL(baseUrl);
      const prefix = base.pathname.replace(/\/+$/, "");
      for (const tail of TAILS) {
        // As fetch hands the URL over: serialized.
        const url = new Request(`${base.origin}${prefix}${tail}`).url;
        expect(targetOf(url, base, prefix), url).toEqual(parsed(url, prefix));
      }
    }
  });

  it("parses a URL of another origin, or with credentials, as before", () => {
    const base = new URL("http://127.0.0.1:4010");
    for (const url of [
      "http://user:pw@127.0.0.1:4010/v1/calls?x",
      "http://127.0.0.1:40100/v1/calls",
      "http://other.test/v1",
    ])
      expect(targetOf(url, base, "")).toEqual(parsed(url, ""));
  });
});
