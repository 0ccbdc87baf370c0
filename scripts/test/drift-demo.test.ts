/**
 * The drift demo the upstream guide shows (mock-server/docs/upstream.md) still finds what it plants:
 * the four drifts of its "staging" and the app's own size=0, each once, at the paths the guide prints.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "drift-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scripts/drift-demo.ts", () => {
  it("prints the drift report with every planted drift once, and writes the reports", async () => {
    const json = join(dir, "drift.json");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/drift-demo.ts", "--json", json, "--html", join(dir, "drift.html")],
      { cwd: join(import.meta.dirname, "../.."), timeout: 60_000 },
    );
    expect(stdout).toContain("FAIL: 5 findings of 5 kinds count");
    const report = JSON.parse(readFileSync(json, "utf8"));
    const kinds = (report.findings as { operationId: string; where: string; rule: string; path: string }[])
      .map((f) => `${f.operationId} ${f.where} ${f.rule} ${f.path}`)
      .sort();
    expect(kinds).toEqual([
      "getCall response enum /status",
      "getCall response error-body /path",
      "listAgents request schema /query/size",
      "listCalls response pagination /hasNext",
      "listPhoneNumbers response required /totalCounts",
      "listPhoneNumbers response schema /totalCount",
    ]);
    expect(readFileSync(join(dir, "drift.html"), "utf8")).toContain("on_hold");
  }, 90_000);
});
