/** The whole suite at level assumed against the kit's mock passes, reports are written, and nothing runs but GET under --read-only. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import type { RunResult } from "../lib/runner.js";
import { hasMock, NO_MOCK, silentIo, startKitMock, startProxy, type Running } from "./support.js";

function failuresOf(run: RunResult | undefined): string {
  return (run?.results ?? [])
    .filter((r) => r.outcome === "failed")
    .map(
      (r) =>
        `${r.id}: ${r.failures
          .slice(0, 3)
          .map((f) => `${f.pointer} ${f.message} (expected ${f.expected}, got ${f.actual})`)
          .join("; ")}`,
    )
    .join("\n");
}

describe.skipIf(!hasMock)(`suite against the kit's mock${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  const dir = mkdtempSync(join(tmpdir(), "conformance-test-"));
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("passes at level assumed and writes JUnit and JSON", async () => {
    const junit = join(dir, "report.xml");
    const json = join(dir, "report.json");
    const clocks = async () =>
      Promise.all(
        ["", "?workspaceId=default"].map(
          async (q) => ((await (await fetch(`${mock.url}/__mock/clock${q}`)).json()) as { now: string }).now,
        ),
      );
    const before = await clocks();
    const { code, run } = await main(
      [
        "--base-url",
        mock.url,
        "--api-key",
        mock.apiKey,
        "--level",
        "assumed",
        "--junit",
        junit,
        "--json",
        json,
        "--quiet",
      ],
      {},
      silentIo,
    );
    expect(failuresOf(run)).toBe("");
    expect(code).toBe(0);
    expect(run!.isMock).toBe(true);
    expect(run!.target.reason).toMatch(/answered the kit's identity \(agent-platform-mock-kit /);
    // The run moved its own workspace's clock (hours, for batch runs and calls), never the root's or another workspace's.
    expect(await clocks()).toEqual(before);
    // Everything ran: against its own mock the suite has no reason to skip a rule.
    expect(run!.results.filter((r) => r.outcome === "skipped").map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    expect(readFileSync(junit, "utf8")).toMatch(
      /<testcase classname="calls.listCalls" name="listCalls.total-pages \[documented\]"/,
    );
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.summary.failed).toBe(0);
    expect(
      report.coverage
        .find((r: { operationId: string }) => r.operationId === "createKnowledgeBase")
        .statuses.filter((s: { exercised: number }) => s.exercised > 0)
        .map((s: { status: string }) => s.status),
    ).toEqual(expect.arrayContaining(["201", "400", "401", "413", "415"]));
  });

  it("fuzzes every operation without a 5xx or a malformed error", async () => {
    const { code, run } = await main(
      ["--base-url", mock.url, "--api-key", mock.apiKey, "--only", "fuzz", "--fuzz", "15", "--quiet"],
      {},
      silentIo,
    );
    expect(failuresOf(run)).toBe("");
    expect(code).toBe(0);
    expect(run!.results.filter((r) => r.outcome === "passed")).toHaveLength(17);
  });

  it("--read-only sends no request that changes state", async () => {
    const proxy = await startProxy(mock.url);
    try {
      const { code, run } = await main(
        ["--base-url", proxy.url, "--api-key", mock.apiKey, "--read-only", "--quiet"],
        {},
        silentIo,
      );
      expect(failuresOf(run)).toBe("");
      expect(code).toBe(0);
      expect(proxy.seen.length).toBeGreaterThan(50);
      expect(proxy.seen.filter((r) => r.method !== "GET")).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
