/** Exit status 2 when the run cannot start, with a one-line reason; never a stack trace. */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../cli.js";

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
    const result = spawnSync(process.execPath, ["--import", "tsx", "conformance/cli.ts", "--base-url", `http://127.0.0.1:${port}`, "--api-key", "k"], { cwd: root, encoding: "utf8", timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/target unreachable/);
  });
});
