/**
 * The listing `npm run check` prints before its unit tests (scripts/served-generically.ts): on this repository every
 * operation has a hand-written handler; without them, the bundled spec's operations are listed as the
 * generic layer would serve them, collections with their id field.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { defaultContract } from "../../mock-server/core/contract.js";
import { servedGenericallyLines } from "../served-generically.js";
import { cleanEnv, ROOT } from "./lib/throwaway-repo.js";

describe("served generically: the listing of npm run check", () => {
  it("says that every operation has a hand-written handler, here", () => {
    expect(servedGenericallyLines(defaultContract())).toEqual([
      "served generically: none, every operation has a hand-written handler",
    ]);
  });

  it("lists each operation without a handler, collections with their id field", () => {
    const contract = defaultContract();
    const lines = servedGenericallyLines(
      contract,
      (id) => id !== "getIntegration" && id !== "getCall" && id !== "listCalls",
    );
    expect(lines[0]).toBe(
      `served generically: 3 of ${contract.operations.length} operations have no hand-written handler (mock-server/docs/generic-layer.md)`,
    );
    expect(lines.slice(1).join("\n")).toMatch(/getIntegration/);
    expect(lines.slice(1).join("\n")).toMatch(/listCalls/);
    expect(lines.slice(1).every((line) => line.startsWith("  generic "))).toBe(true);
  });

  it("is a step of npm run check, before its unit tests, and a run of it exits 0", async () => {
    const { scripts } = (await import("../../package.json", { with: { type: "json" } })).default;
    expect(scripts.check).toMatch(/&& tsx scripts\/served-generically\.ts && vitest run .* --project unit$/);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/served-generically.ts"],
      {
        cwd: ROOT,
        env: cleanEnv(),
      },
    );
    expect(stdout).toBe("served generically: none, every operation has a hand-written handler\n");
  });
});
