/**
 * Graceful shutdown on the real process: SIGTERM lets a request in flight finish (200, whole body),
 * refuses new connections, writes the state file, and exits 0. SIGINT does the same.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnMock, type MockProcess } from "../process.js";

const dir = mkdtempSync(join(tmpdir(), "mock-shutdown-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A request whose bytes are on the wire when this resolves; `response` settles with the answer. */
function sendSlow(mock: MockProcess, path: string, delayMs: number) {
  let sent!: () => void;
  const written = new Promise<void>((resolve) => (sent = resolve));
  const response = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(
        mock.url + path,
        { headers: { "X-API-Key": mock.apiKey, Prefer: `delay=${delayMs}` } },
        (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on("error", reject);
      req.on("finish", sent);
      req.end();
    },
  );
  return { written, response };
}

describe.each(["SIGTERM", "SIGINT"] as const)("%s", (signal) => {
  it("finishes the request in flight, flushes the state and exits 0", async () => {
    const file = join(dir, `${signal}.json`);
    const mock = await spawnMock(["--state-file", file, "--save-interval", "3600", "--clock", "virtual"]);
    const created = await (
      await fetch(`${mock.url}/v1/integrations`, {
        method: "POST",
        headers: { "X-API-Key": mock.apiKey, "Content-Type": "application/json" },
        body: '{"name":"written before the signal"}',
      })
    ).json();
    expect(readFileSync(file, "utf8")).not.toContain(created.integrationId);

    // Longer than the 2 s after which close() used to cut every connection.
    const slow = sendSlow(mock, "/v1/calls?size=3", 2500);
    await slow.written;
    // Answered after the slow request was on the wire: by now the mock has read it.
    expect((await fetch(`${mock.url}/__mock/health`)).status).toBe(200);
    mock.child.kill(signal);

    const answer = await slow.response;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data).toHaveLength(3);
    expect(answer.headers.connection).toBe("close");
    const exit = await mock.exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toContain(`${signal}: finishing 1 request(s) in flight`);
    expect(readFileSync(file, "utf8")).toContain(created.integrationId);
    await expect(fetch(`${mock.url}/__mock/health`)).rejects.toThrow();
  });
});
