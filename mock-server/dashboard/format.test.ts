import { describe, expect, it } from "vitest";
import { clockTime, curlOf, maskKey, prettyBody, relativeTo, shellQuote, statusMatches } from "./format.js";

describe("curlOf", () => {
  const cases: [string, { given: Parameters<typeof curlOf>[0]; want: string }][] = [
    [
      "a GET with the key as a variable and noise left out",
      {
        given: {
          method: "GET",
          url: "http://127.0.0.1:4010/v1/calls?page=0&size=5",
          headers: [
            { name: "host", value: "127.0.0.1:4010" },
            { name: "x-api-key", value: "[redacted]" },
            { name: "accept", value: "application/json" },
            { name: "user-agent", value: "node" },
            { name: "accept", value: "*/*" },
            { name: "Prefer", value: "code=404" },
          ],
        },
        want: `curl 'http://127.0.0.1:4010/v1/calls?page=0&size=5' -H "x-api-key: $MOCK_API_KEY" -H 'accept: application/json' -H 'Prefer: code=404'`,
      },
    ],
    [
      "a POST with a JSON body that holds a quote",
      {
        given: {
          method: "POST",
          url: "http://h/v1/chat",
          headers: [{ name: "content-type", value: "application/json" }],
          postData: { mimeType: "application/json", text: `{"conversation":"it's me"}` },
        },
        want: `curl -X POST http://h/v1/chat -H 'content-type: application/json' --data-raw '{"conversation":"it'\\''s me"}'`,
      },
    ],
    [
      "a multipart form: fields as -F, no Content-Type (curl writes the boundary)",
      {
        given: {
          method: "POST",
          url: "http://h/v1/knowledge-bases",
          headers: [
            { name: "Content-Type", value: "multipart/form-data; boundary=x" },
            { name: "Authorization", value: "[redacted]" },
          ],
          postData: {
            mimeType: "multipart/form-data",
            params: [
              { name: "name", value: "KB" },
              { name: "file", fileName: "a.pdf" },
            ],
          },
        },
        want: `curl -X POST http://h/v1/knowledge-bases -H "Authorization: $MOCK_AUTHORIZATION" -F name=KB -F file=@a.pdf`,
      },
    ],
  ];
  it.each(cases)("%s", (_, { given, want }) => expect(curlOf(given)).toBe(want));

  it("never writes a key's value, even one the journal did not redact", () => {
    const line = curlOf({
      method: "GET",
      url: "http://h/v1/calls",
      headers: [{ name: "X-API-Key", value: "sk-live-123" }],
    });
    expect(line).not.toContain("sk-live-123");
    expect(line).toContain("$MOCK_API_KEY");
  });

  it("quotes for a shell", () => {
    expect(shellQuote("plain/path-1.2")).toBe("plain/path-1.2");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("$HOME")).toBe("'$HOME'");
  });
});

describe("what a person reads", () => {
  it("pretty-prints JSON and leaves other text alone", () => {
    expect(prettyBody(`{"a":[1]}`)).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(prettyBody("plain")).toBe("plain");
    expect(prettyBody(undefined)).toBe("");
  });

  it("writes times on the clock and relative to it", () => {
    expect(clockTime("2026-11-01T09:30:01.250Z")).toBe("09:30:01.250");
    const now = "2026-11-01T09:30:00.000Z";
    expect(relativeTo("2026-11-01T09:30:25.000Z", now)).toBe("in 25 s");
    expect(relativeTo("2026-11-01T09:27:00.000Z", now)).toBe("3 min ago");
    expect(relativeTo("2026-11-01T11:30:00.000Z", now)).toBe("in 2 h");
    expect(relativeTo(now, now)).toBe("now");
  });

  it("masks a key but its last four characters", () => {
    expect(maskKey("mock-api-key-0a1b")).toBe("••••••••0a1b");
    expect(maskKey("short")).toBe("••••••••");
  });

  it("matches statuses exactly, by class, or a reset", () => {
    expect(statusMatches("", 200)).toBe(true);
    expect(statusMatches("500", 500)).toBe(true);
    expect(statusMatches("500", 503)).toBe(false);
    expect(statusMatches("4XX", 404)).toBe(true);
    expect(statusMatches("4xx", 500)).toBe(false);
    expect(statusMatches("reset", null)).toBe(true);
    expect(statusMatches("5xx", null)).toBe(false);
  });
});
