/**
 * The agent-platform-mock command as a process: `drift ...` runs the drift command (its usage, its exit
 * code, one line when it cannot run), any other argv the server as `npm start` runs it (its usage, with
 * the commands below it; listening).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runMockBin } from "./mock-bin.js";

describe("agent-platform-mock drift", () => {
  it("prints its usage", async () => {
    const exit = await runMockBin(["drift", "--help"]);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^usage: agent-platform-mock drift --url URL/);
  });

  it("exits with the drift command's code: 1 when findings count", async () => {
    const finding = {
      id: "d1",
      at: "2026-11-01T12:00:00Z",
      operationId: "listCalls",
      workspaceId: "default",
      rule: "status",
      level: "documented",
      where: "response",
      path: "#status",
      message: "listCalls answered 418",
      exchange: { request: { method: "GET", url: "/v1/calls", headers: {} }, response: { status: 418, headers: {} } },
    };
    const server = createServer((_, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify([finding])),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const exit = await runMockBin(["drift", "--url", url]);
      expect(exit.code, exit.stderr).toBe(1);
      expect(exit.stdout).toMatch(/✗ response status \[documented\] +1× +e\.g\. listCalls answered 418/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("cannot run: exit 2 with one line", async () => {
    const exit = await runMockBin(["drift", "--url", "http://127.0.0.1:4010/v1"]);
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe("");
    expect(exit.stderr.trim().split("\n")).toEqual([
      "agent-platform-mock drift: cannot run: --url http://127.0.0.1:4010/v1 names the mock's API (/v1); give its base URL: http://127.0.0.1:4010",
    ]);
  });
});

describe("agent-platform-mock without a command", () => {
  it("prints the server's usage, then the commands", async () => {
    const exit = await runMockBin(["--help"]);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(/^Usage: agent-platform-mock \[options\]/);
    expect(exit.stdout).toMatch(/--port/);
    expect(exit.stdout).toMatch(/\nCommands:\n {2}agent-platform-mock drift --url URL/);
  });

  it("refuses a bad flag as the server does", async () => {
    const exit = await runMockBin(["--no-such-flag"]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/no-such-flag/);
  });

  it("runs the server", async () => {
    let health: unknown;
    const exit = await runMockBin(
      ["--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
      /listening on (http:\/\/[^\s]+)\/v1/,
      async (found) => {
        health = await (await fetch(`${found[1]}/__mock/health`)).json();
      },
    );
    expect(exit.matched, `${exit.stdout}\n${exit.stderr}`).toBeDefined();
    expect(health).toMatchObject({ status: "ok", kit: "agent-platform-mock-kit" });
    expect(exit.stdout).toMatch(/API key \(X-API-Key\): mock-api-key/);
    expect(exit.code).toBe(0);
  });
});
