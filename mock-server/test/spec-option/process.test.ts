/**
 * `npm start -- --spec FILE` as a process: the start log says where the document is served (base URL
 * and base path), how to authenticate (the schemes, no secret) and what the generic layer infers; the
 * flags that do not combine with --spec, and a document the mock cannot serve, exit 2 with one line.
 * A document split over files is bundled.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startMock } from "../../server.js";
import { runMockToExit } from "../process.js";
import { GADGETS } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "spec-option-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The whole start log of `main.ts ARGS`: read until the control plane's line, then the process is stopped. */
async function startLog(args: string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "mock-server/main.ts", "--port", "0", "--host", "127.0.0.1", ...args],
    { cwd: fileURLToPath(new URL("../../..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (/Request log:/.test(out)) resolve();
    });
    void exited.then(() => resolve());
  });
  child.kill("SIGTERM");
  await exited;
  return out;
}

describe("--spec FILE", () => {
  it("prints the base URL with the base path, how to authenticate, and each generic collection", async () => {
    const stdout = await startLog(["--spec", GADGETS, "--log-format", "off"]);
    expect(stdout).toMatch(
      /Mock of Gadget Shop \(.*gadgets\.yaml\) listening on http:\/\/127\.0\.0\.1:\d+\/shop\/v2\n/,
    );
    expect(stdout).toMatch(
      /Authenticate: +the api_key query parameter, or Authorization: Bearer <token> \(any value: each distinct credential is a workspace of its own; 1 of 7 operations open/,
    );
    expect(stdout).toMatch(
      /generic collection gadgets \(id: id\): listGadgets, createGadget, getGadget, replaceGadget, deleteGadgetsByGadgetId/,
    );
    // Nothing of the kit's own API: no X-API-Key line.
    expect(stdout).not.toMatch(/X-API-Key/);
  });

  it.each([
    [["--watch"], /^--watch regenerates the kit's spec\/; it does not combine with --spec$/],
    [
      ["--upstream", "http://127.0.0.1:9"],
      /^--upstream stands in front of a deployment of the kit's API; it does not combine with --spec$/,
    ],
    [["--scenario", "every-variant"], /^--scenario seeds the kit's world; a document given with --spec starts empty$/],
  ])("refuses --spec with %j in one line, exit 2", async (flags, message) => {
    const exit = await runMockToExit(["--spec", GADGETS, ...flags]);
    expect(exit.code).toBe(2);
    expect(exit.stderr.trim()).toMatch(message);
  });

  it("refuses a Swagger 2.0 document, a missing file and a reference it cannot bundle, exit 2", async () => {
    const swagger = join(dir, "swagger.yaml");
    writeFileSync(swagger, "swagger: '2.0'\ninfo: { title: Old, version: '1' }\npaths: {}\n");
    const dangling = join(dir, "dangling.yaml");
    writeFileSync(
      dangling,
      "openapi: 3.1.0\ninfo: { title: D, version: '1' }\npaths:\n  /a:\n    $ref: ./missing.yaml\n",
    );
    for (const [file, message] of [
      [swagger, /^Swagger 2\.0 is not served: the mock serves OpenAPI 3\.0 and 3\.1 documents/],
      [join(dir, "absent.yaml"), /^--spec .*absent\.yaml cannot be read: ENOENT$/],
      [dangling, /^--spec .*dangling\.yaml refers to a file that cannot be bundled/],
    ] as const) {
      const exit = await runMockToExit(["--spec", file]);
      expect(exit.code).toBe(2);
      expect(exit.stderr.trim().split("\n")).toHaveLength(1);
      expect(exit.stderr.trim()).toMatch(message);
    }
  });

  it("bundles a document whose paths and schemas live in other files", async () => {
    writeFileSync(
      join(dir, "main.yaml"),
      [
        "openapi: 3.1.0",
        "info: { title: Split, version: '1' }",
        "servers: [{ url: /split }]",
        "paths:",
        "  /parts:",
        "    $ref: ./paths/parts.yaml",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "schemas.yaml"),
      "Part:\n  type: object\n  required: [name]\n  properties:\n    name: { type: string }\n    id: { type: integer }\n",
    );
    mkdirSync(join(dir, "paths"));
    writeFileSync(
      join(dir, "paths", "parts.yaml"),
      [
        "post:",
        "  operationId: createPart",
        "  requestBody:",
        "    required: true",
        "    content: { application/json: { schema: { $ref: '../schemas.yaml#/Part' } } }",
        "  responses:",
        "    '201': { description: made, content: { application/json: { schema: { $ref: '../schemas.yaml#/Part' } } } }",
        "get:",
        "  operationId: listParts",
        "  responses:",
        "    '200': { description: all, content: { application/json: { schema: { type: array, items: { $ref: '../schemas.yaml#/Part' } } } } }",
      ].join("\n"),
    );
    const mock = await startMock({ spec: join(dir, "main.yaml"), log: () => undefined });
    try {
      const post = (body: unknown) =>
        fetch(`${mock.url}/split/parts`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await post({})).status).toBe(400);
      const created = await post({ name: "axle" });
      expect(created.status).toBe(201);
      expect(await (await fetch(`${mock.url}/split/parts`)).json()).toEqual([await created.json()]);
    } finally {
      await mock.close();
    }
  });
});
