/**
 * The run that mock-server/docs/what-did-we-exercise.md shows still gives what the page says: the app's
 * coverage with the variants it never received, its HAR, the two breaking changes its traffic hits and
 * the one it does not, and parity finding the three behaviours planted in the "staging".
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "exercise-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (file: string) => JSON.parse(readFileSync(join(dir, file), "utf8"));

describe("scripts/exercise-demo.ts", () => {
  it("prints and writes the four reports the docs page shows", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/exercise-demo.ts", "--out", dir],
      { cwd: join(import.meta.dirname, "../.."), timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).toMatch(
      /--fail-under 80 \(exit 1\)\nCoverage of workspace ws-1-a08ff49b, .*: 26 % \(85 of 318 variants received\)/,
    );

    const coverage = read("coverage.json") as {
      variants: { operationId: string; kind: string; value: string; seen: boolean }[];
    };
    const seen = (operationId: string, kind: string, value: string) =>
      coverage.variants.find((v) => v.operationId === operationId && v.kind === kind && v.value === value)?.seen;
    expect(seen("getCall", "status", "404")).toBe(true);
    expect(seen("listCalls", "enum", "status=error")).toBe(true);
    expect(seen("listCalls", "page", "first")).toBe(true);
    expect(seen("listCalls", "page", "empty")).toBe(false);
    expect(seen("listCalls", "page", "last")).toBe(false);

    const har = read("app.har") as { log: { entries: { response: { status: number }; _operationId: string }[] } };
    expect(har.log.entries.map((e) => `${e._operationId} ${e.response.status}`)).toEqual([
      "listAgents 200",
      "listCalls 200",
      "getCall 200",
      "getCall 404",
      "listCalls 200",
      "listAgents 200",
      "createChat 200",
    ]);
    expect(readFileSync(join(dir, "app.har"), "utf8")).not.toMatch(/"x-api-key","value":"(?!\[redacted\])/);

    expect(stdout).toContain("--traffic app.har (exit 1)");
    const radius = JSON.stringify(read("blast-radius.json"));
    expect(stdout).toMatch(
      /Breaking changes hit by recorded traffic \(2\):\n {2}- GET \/v1\/calls 200 response: data\[\]\.recordingUrl: field removed\n {6}3 exchanges/,
    );
    expect(stdout).toMatch(/- POST \/v1\/chat request body: channel: new required field\n {6}1 exchange;/);
    expect(stdout).toMatch(
      /no recorded exchange touches \(1\):\n {2}- PATCH \/v1\/phone-number\/\{phoneNumber\}: operation removed/,
    );
    expect(radius).toContain("recordingUrl");

    const parity = read("parity.json") as { differences: { operationId: string; kind: string; a: any; b: any }[] };
    const kinds = new Set(
      parity.differences.filter((d) => d.kind !== "outcome").map((d) => `${d.operationId} ${d.kind}`),
    );
    expect(kinds).toContain("listCalls status");
    expect(kinds).toContain("listCalls order");
    expect(kinds).toContain("getCall message");
    expect(parity.differences.find((d) => d.operationId === "listCalls" && d.kind === "status")?.b.status).toBe(422);
    expect([...new Set(parity.differences.map((d) => d.kind))].sort()).toEqual([
      "message",
      "order",
      "outcome",
      "status",
    ]);
    expect(stdout).toMatch(/agent-platform-conformance parity .* \(exit 1\)/);
  }, 180_000);
});
