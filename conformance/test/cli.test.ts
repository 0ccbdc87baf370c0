/** Exit status 2 when the run cannot start, with a one-line reason; never a stack trace. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { allRules } from "../operations/index.js";
import { hasMock, startKitMock } from "./support.js";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function capture() {
  const err: string[] = [];
  return { err, io: { out: () => {}, err: (t: string) => err.push(t) } };
}

describe("conformance CLI: cannot start", () => {
  it.each([
    ["no base URL", [], {}],
    ["no API key", ["--base-url", "http://127.0.0.1:9"], {}],
    ["a bad level", ["--base-url", "http://127.0.0.1:9", "--api-key", "k", "--level", "strict"], {}],
    ["an unknown option", ["--base-url", "http://127.0.0.1:9", "--api-key", "k", "--colour"], {}],
    ["a base URL that is not http", ["--base-url", "ftp://x", "--api-key", "k"], {}],
  ] as const)("exits 2 with %s", async (_name, argv, env) => {
    const { err, io } = capture();
    const { code } = await main([...argv], env, io);
    expect(code).toBe(2);
    expect(err.join("\n")).toMatch(/^conformance: (cannot start|bad options): /);
  });

  it("exits 2 on an unreachable target, from the environment variables", async () => {
    const port = await closedPort();
    const { err, io } = capture();
    const { code } = await main([], { CONFORMANCE_BASE_URL: `http://127.0.0.1:${port}`, CONFORMANCE_API_KEY: "k" }, io);
    expect(code).toBe(2);
    expect(err[0]).toMatch(/cannot start: target unreachable/);
  });

  it("the npm entry point exits 2 on an unreachable target", async () => {
    const port = await closedPort();
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const result = spawnSync(
      process.execPath,
      ["--import", "tsx", "conformance/cli.ts", "--base-url", `http://127.0.0.1:${port}`, "--api-key", "k"],
      { cwd: root, encoding: "utf8", timeout: 20_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/target unreachable/);
  });
});

describe.skipIf(!hasMock)("conformance CLI: setup mistakes say what to fix, in one line", () => {
  it.each([
    [
      "a key the target refuses",
      (url: string) => ["--base-url", url, "--api-key", "not-a-key"],
      /cannot start: the target refuses --api-key \(GET \/v1\/agents answered 401.*check the key$/,
    ],
    [
      "a second key the target refuses",
      (url: string, key: string) => ["--base-url", url, "--api-key", key, "--second-api-key", "nope"],
      /the target refuses --second-api-key/,
    ],
    [
      "the same key twice",
      (url: string, key: string) => ["--base-url", url, "--api-key", key, "--second-api-key", key],
      /--second-api-key is the same key as --api-key/,
    ],
    [
      "--only matching no rule",
      (url: string, key: string) => ["--base-url", url, "--api-key", key, "--only", "no-such-rule"],
      /--only no-such-rule matches no rule \(see --list\)$/,
    ],
    [
      "a base URL ending in /v1",
      (url: string, key: string) => ["--base-url", `${url}/v1/`, "--api-key", key],
      /ends in \/v1: give the base address without it .* e\.g\. http:\/\/127\.0\.0\.1:\d+$/,
    ],
    [
      "--ca that is no certificate",
      (url: string, key: string) => ["--base-url", url, "--api-key", key, "--ca", fileURLToPath(import.meta.url)],
      /--ca .* holds no PEM certificate$/,
    ],
  ] as const)("exits 2 on %s", async (_name, argv, pattern) => {
    const mock = await startKitMock();
    try {
      const err: string[] = [];
      const out: string[] = [];
      const { code, run } = await main(
        [...argv(mock.url, mock.apiKey)],
        {},
        { out: (t) => out.push(t), err: (t) => err.push(t) },
      );
      expect(code).toBe(2);
      expect(run).toBeUndefined();
      expect(err).toHaveLength(1);
      expect(err[0].split("\n")).toHaveLength(1);
      expect(err[0]).toMatch(pattern);
      // Nothing was run: no rule result was printed.
      expect(out.join("\n")).not.toMatch(/passed|failed/);
      // --junit still gets a file, whose one testcase holds the error.
      const junit = join(mkdtempSync(join(tmpdir(), "conformance-cli-")), "junit.xml");
      expect(
        (await main([...argv(mock.url, mock.apiKey), "--junit", junit], {}, { out: () => {}, err: () => {} })).code,
      ).toBe(2);
      const xml = readFileSync(junit, "utf8");
      expect(xml.match(/<testcase /g)).toHaveLength(1);
      expect(xml).toContain(
        `<error message="the run could not start: ${err[0]
          .replace(/^conformance: cannot start: /, "")
          .replace(/&/g, "&amp;")
          .replace(/"/g, "&quot;")
          .replace(/</g, "&lt;")
          .replace(/>/g, "&gt;")}"`,
      );
    } finally {
      await mock.close();
    }
  });
});

describe("conformance CLI: --list", () => {
  it("prints every rule with its level and whether it is read-only, without a target", async () => {
    const out: string[] = [];
    const { code } = await main(["--list"], {}, { out: (t) => out.push(t), err: () => {} });
    expect(code).toBe(0);
    const lines = out.join("\n").split("\n");
    expect(lines).toHaveLength(allRules.length + 1);
    for (const rule of allRules) {
      const line = lines.find((l) => l.startsWith(`${rule.id} `));
      expect(line, rule.id).toMatch(new RegExp(` ${rule.level} +${rule.readOnly ? "read-only" : "writes"} `));
    }
    expect(lines.at(-1)).toMatch(new RegExp(`^${allRules.length} rules \\(\\d+ documented, \\d+ read-only\\)$`));
    const only: string[] = [];
    await main(["--list", "--only", "listCalls."], {}, { out: (t) => only.push(t), err: () => {} });
    expect(
      only
        .join("\n")
        .split("\n")
        .slice(0, -1)
        .every((l) => l.startsWith("listCalls.")),
    ).toBe(true);
  });
});
