import { describe, expect, it } from "vitest";
import { parseParityArgs } from "./options.js";

const both = [
  "--base-url",
  "https://a.example",
  "--api-key",
  "KA",
  "--against",
  "https://b.example/",
  "--against-api-key",
  "KB",
];

describe("parseParityArgs", () => {
  it("reads both targets, level assumed by default, the gateway options for both", () => {
    const parsed = parseParityArgs([...both, "--retries", "5", "--timeout", "2", "--rate-limit", "10/s"], {});
    if (!("options" in parsed)) throw new Error(JSON.stringify(parsed));
    const { sides, level, run } = parsed.options;
    expect(sides.map((s) => [s.name, s.baseUrl, s.apiKey, s.keyOption])).toEqual([
      ["A", "https://a.example", "KA", "--api-key"],
      ["B", "https://b.example", "KB", "--against-api-key"],
    ]);
    expect(level).toBe("assumed");
    expect(run).toMatchObject({ retries: 5, timeoutMs: 2000, rateLimit: { kind: "fixed", perSecond: 10 } });
  });

  it("takes the targets and keys from the environment", () => {
    const parsed = parseParityArgs([], {
      CONFORMANCE_BASE_URL: "http://a",
      CONFORMANCE_API_KEY: "KA",
      CONFORMANCE_AGAINST_URL: "http://b",
      CONFORMANCE_AGAINST_API_KEY: "KB",
      CONFORMANCE_AGAINST_SECOND_API_KEY: "KB2",
    });
    if (!("options" in parsed)) throw new Error(JSON.stringify(parsed));
    expect(parsed.options.sides[1].secondApiKey).toBe("KB2");
    expect(parsed.options.sides[0].secondApiKey).toBeUndefined();
  });

  it("names the first problem in one line, never a key", () => {
    const problem = (argv: string[]) => {
      const parsed = parseParityArgs(argv, {});
      return "problem" in parsed ? parsed.problem : undefined;
    };
    expect(problem(both.slice(0, 4))).toMatch(/^no --against B/);
    expect(problem(both.slice(0, 6))).toMatch(/^no --against-api-key/);
    expect(problem([...both, "--level", "strict"])).toMatch(/--level must be documented or assumed/);
    expect(problem([...both, "--concurrency", "0"])).toMatch(/--concurrency must be a whole number of at least 1/);
    expect(problem([...both, "--rate-limit", "fast"])).toMatch(/--rate-limit must be auto/);
    expect(problem([...both, "--insecure", "--ca", "x.pem"])).toMatch(/exclude each other/);
    expect(problem(["--against", "ftp://b", ...both.slice(0, 2)])).toMatch(
      /--against ftp:\/\/b is not an http\(s\) URL/,
    );
    expect(problem(["--nope"])).toMatch(/^bad options/);
    expect(parseParityArgs(["--help"], {})).toEqual({ help: true });
  });
});
