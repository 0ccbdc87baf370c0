/**
 * npm run scaffold -- OPERATION_ID, end to end on one throwaway copy of the repository: the spec there
 * gains the operations of the spec author's walk-through (spec/README.md, "Adding an operation"), applied
 * as the guide writes them, and `npm run generate` runs. Then the scaffold of a non-collection operation
 * (a required query parameter), a collection's create (a JSON body), its read and its delete (a path
 * parameter: their tests put a record first): the handlers and their tests compile with the whole copy
 * (`npx tsc --noEmit`), biome finds nothing to fix, and the scaffolded tests pass as written. And its
 * refusals, exit 2 with one line.
 *
 * The four scaffolds run once, one after another (each registers its handler in the same
 * mock-server/routes/index.ts), before the tests; then the refusals, which only read, run beside the
 * type-check of the whole copy, two commands at a time.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import pLimit from "p-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyEdits, walkthroughEdits } from "./lib/spec-walkthrough.js";
import { type Ran, type ThrowawayRepo, throwawayRepo } from "./lib/throwaway-repo.js";

const SCAFFOLDED = [
  { id: "getUsage", file: "get-usage", table: "getUsageHandlers" },
  { id: "createContact", file: "create-contact", table: "createContactHandlers" },
  { id: "getContact", file: "get-contact", table: "getContactHandlers" },
  { id: "deleteContact", file: "delete-contact", table: "deleteContactHandlers" },
];

const said = (ran: Ran) => `exit ${ran.code}\n${ran.stdout}\n${ran.stderr}`;

describe.concurrent("npm run scaffold, on a copy of the repository with the walk-through's operations", () => {
  let repo: ThrowawayRepo;
  /** Commands in the copy running at once, across the tests: the cores of a small machine. */
  const slots = pLimit(2);
  const run = (program: string, args: string[]) => slots(() => repo.run(program, args));
  const scaffold = (id: string) => run("npm", ["run", "-s", "scaffold", "--", id]);
  /** What `npm run scaffold` said for each of SCAFFOLDED, in order. */
  const written: Ran[] = [];

  beforeAll(async () => {
    repo = await throwawayRepo("scaffold-test");
    await applyEdits(repo.dir, walkthroughEdits());
    const generated = await repo.run("npm", ["run", "generate"]);
    expect(generated.code, said(generated)).toBe(0);
    for (const { id } of SCAFFOLDED) written.push(await scaffold(id));
  }, 240_000);
  afterAll(async () => {
    await repo?.remove();
  });

  it("refuses an id the spec does not have, and one with a hand-written handler: exit 2, one line", async () => {
    for (const [id, message] of [
      ["getContacts", /^scaffold: no operation "getContacts" in generated\/openapi\.json/],
      ["listCalls", /^scaffold: listCalls already has a hand-written handler/],
    ] as const) {
      const ran = await scaffold(id);
      expect(ran.code, said(ran)).toBe(2);
      expect(ran.stderr.trim().split("\n"), said(ran)).toHaveLength(1);
      expect(ran.stderr).toMatch(message);
    }
    const none = await scaffold("");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: npm run scaffold -- OPERATION_ID/);
    // Its commands may wait for a slot while the type-check runs.
  }, 240_000);

  it("writes a handler and its test beside the others, registered, compiling, and the test passes", async () => {
    for (const [i, { file }] of SCAFFOLDED.entries()) {
      const ran = written[i]!;
      expect(ran.code, said(ran)).toBe(0);
      expect(ran.stdout).toContain(`wrote mock-server/routes/${file}.ts`);
      expect(ran.stdout).toContain(`wrote mock-server/routes/${file}.test.ts`);
      // The generic layer's answer is documented: the scaffolded test holds as written.
      expect(ran.stdout).not.toContain("note:");
    }
    const routes = (name: string) => readFile(path.join(repo.dir, "mock-server/routes", name), "utf8");
    const index = await routes("index.ts");
    for (const { id, file, table } of SCAFFOLDED) {
      expect(index).toContain(`import { ${table} } from "./${file}.js";`);
      expect(index).toContain(`  ...${table},\n`);
      const handler = await routes(`${file}.ts`);
      expect(handler).toContain(`export const ${table}: HandlerTable<"${id}"> = {`);
      expect(handler).toContain(`return genericAnswer("${id}", { workspace, params, query, body, services });`);
    }
    expect(await routes("create-contact.test.ts")).toMatch(/expect\(reply\.status\)\.toBe\(201\)/);
    // A read and a delete are about a record: the test puts one first, as the collection's create made it.
    for (const file of ["get-contact", "delete-contact"]) {
      const test = await routes(`${file}.test.ts`);
      expect(test).toContain('workspace.generic.collection("contacts", "contactId").create(');
      expect(test).toMatch(file === "get-contact" ? /toBe\(200\);/ : /toBe\(204\);/);
    }
    expect(await routes("get-usage.test.ts")).toMatch(/expect\(reply\.status\)\.toBe\(200\)/);

    const files = SCAFFOLDED.flatMap(({ file }) => [
      `mock-server/routes/${file}.ts`,
      `mock-server/routes/${file}.test.ts`,
    ]);
    // The type-check first: the longest, the other commands share the second slot.
    const [tsc, biome, tests, again] = await Promise.all([
      run("npx", ["tsc", "--noEmit", "-p", "."]),
      run("npx", ["biome", "check", "mock-server/routes/index.ts", ...files]),
      run("npx", [
        "vitest",
        "run",
        "--config",
        "scripts/vitest.config.ts",
        ...files.filter((f) => f.endsWith(".test.ts")),
      ]),
      scaffold("getUsage"),
    ]);
    expect(tsc.code, said(tsc)).toBe(0);
    expect(biome.code, said(biome)).toBe(0);
    expect(tests.code, said(tests)).toBe(0);
    expect(stripVTControlCharacters(tests.stdout)).toMatch(/Tests\s+4 passed/);

    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^scaffold: getUsage already has a hand-written handler/);
  }, 240_000);
});
