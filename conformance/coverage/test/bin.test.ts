/**
 * `agent-platform-mock coverage` as a process: the command is dispatched (its usage, its exit code from
 * --fail-under on a saved journal, one line when it cannot run), and the server's --help lists it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMockBin } from "../../test/mock-bin.js";

const dir = mkdtempSync(join(tmpdir(), "coverage-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A journal (GET /__mock/requests) of one consumer: a call read, and a call that does not exist. */
const journal = [
  {
    id: "1",
    at: "2026-11-01T12:00:00.000Z",
    method: "GET",
    path: "/v1/calls/c1",
    operationId: "getCall",
    workspaceId: "w1",
    status: 200,
    durationMs: 1,
    faultId: null,
  },
  {
    id: "2",
    at: "2026-11-01T12:00:01.000Z",
    method: "GET",
    path: "/v1/calls/nope",
    operationId: "getCall",
    workspaceId: "w1",
    status: 404,
    durationMs: 1,
    faultId: null,
  },
  {
    id: "3",
    at: "2026-11-01T12:00:02.000Z",
    method: "GET",
    path: "/__mock/health",
    operationId: "getHealth",
    workspaceId: null,
    status: 200,
    durationMs: 1,
    faultId: null,
  },
];

describe("agent-platform-mock coverage", () => {
  it("prints its usage", async () => {
    const exit = await runMockBin(["coverage", "--help"]);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^usage: agent-platform-mock coverage --url URL/);
  });

  it("exits by --fail-under, offline from a journal", async () => {
    const file = join(dir, "journal.json");
    writeFileSync(file, JSON.stringify(journal));
    const low = await runMockBin(["coverage", "--from", file, "--fail-under", "1"]);
    expect(low.code, low.stderr).toBe(0);
    expect(low.stdout).toMatch(/^Coverage of workspace w1, .*journal\.json \(the journal's JSON, 2 of 3 entries/);
    // Statuses only (a journal has no bodies): getCall's 200 and 404 received, 4 of its 6 not.
    expect(low.stdout).toContain("  getCall  GET /v1/calls/{callId}  (2 of 6 received)");
    const high = await runMockBin(["coverage", "--from", file, "--fail-under", "50"]);
    expect(high.code).toBe(1);
    expect(high.stdout).toMatch(/^FAIL: \d+ % is below --fail-under 50$/m);
  });

  it("cannot run: exit 2 with one line", async () => {
    const exit = await runMockBin(["coverage", "--from", join(dir, "missing.har")]);
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe("");
    expect(exit.stderr.trim().split("\n")).toHaveLength(1);
    expect(exit.stderr).toMatch(
      /^agent-platform-mock coverage: cannot run: --from .*missing\.har cannot be read \(ENOENT\)/,
    );
  });

  it("is listed under the server's --help", async () => {
    const exit = await runMockBin(["--help"]);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(/\n {2}agent-platform-mock coverage --url URL/);
  });
});
