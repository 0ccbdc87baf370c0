/**
 * The drift check (npm run check:generated) and the spec lint (npm run lint:spec).
 * Failure cases run on a temporary copy of spec/, generated/ and the generator, never on the real
 * generated/ (test files run in parallel).
 *
 * Every case has a copy of its own, so the cases run concurrently: each command regenerates or lints
 * the whole spec (seconds of one core), two at a time, so a 2-core machine uses both cores and a test
 * file beside this one still gets its share.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pLimit from "p-limit";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./lib/openapi-doc.js";

const bin = (name: string): string => path.join(repoRoot, "node_modules", ".bin", name);
/** A case's time includes its wait for a free slot. */
const TIMEOUT = 120_000;
/** Commands running at once: the cores of a small machine. */
const slots = pLimit(2);

interface Run {
  code: number;
  output: string;
}

const run = (command: string, args: string[], cwd: string): Promise<Run> => slots(() => runNow(command, args, cwd));

async function runNow(command: string, args: string[], cwd: string): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

const driftCheck = (cwd: string): Promise<Run> => run(bin("tsx"), ["scripts/check-generated.ts"], cwd);
const lint = (cwd: string): Promise<Run> => run(bin("redocly"), ["lint", "--config", "spec/redocly.yaml"], cwd);

const copies: string[] = [];
afterAll(async () => {
  await Promise.all(copies.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A throwaway copy of what the generator and the lint read, sharing the repo's node_modules. */
async function copyOfRepo(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "spec-tooling-"));
  copies.push(dir);
  await cp(path.join(repoRoot, "spec"), path.join(dir, "spec"), { recursive: true });
  await cp(path.join(repoRoot, "generated"), path.join(dir, "generated"), { recursive: true });
  for (const file of ["generate.ts", "check-generated.ts", "lib"]) {
    await cp(path.join(repoRoot, "scripts", file), path.join(dir, "scripts", file), { recursive: true });
  }
  // The ajv setup and the operation schemas the generator compiles from live in the mock's bottom layer,
  // which imports nothing above it: the whole layer, so a file it gains is there too.
  await cp(path.join(repoRoot, "mock-server/core"), path.join(dir, "mock-server/core"), { recursive: true });
  await cp(path.join(repoRoot, "package.json"), path.join(dir, "package.json"));
  await symlink(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

async function edit(file: string, change: (text: string) => string): Promise<void> {
  const text = await readFile(file, "utf8");
  const changed = change(text);
  expect(changed, `${file} was changed`).not.toBe(text);
  await writeFile(file, changed);
}

describe.concurrent("npm scripts", () => {
  it("run the commands these tests run", async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["check:generated"]).toBe("tsx scripts/check-generated.ts");
    expect(pkg.scripts["lint:spec"]).toBe("redocly lint --config spec/redocly.yaml");
  });
});

describe.concurrent("drift check", () => {
  it(
    "passes on the working tree",
    async () => {
      const result = await driftCheck(repoRoot);
      expect(result.output).toContain("up to date");
      expect(result.code).toBe(0);
    },
    TIMEOUT,
  );

  it.each([
    [
      "a hand edit of generated/openapi.json",
      {
        given: (dir: string) =>
          edit(path.join(dir, "generated", "openapi.json"), (t) => t.replace('"version": "1.0"', '"version": "1.1"')),
        want: ["openapi.json"],
      },
    ],
    [
      "a hand edit of generated/client.ts",
      {
        given: (dir: string) => edit(path.join(dir, "generated", "client.ts"), (t) => `${t}\n// edited\n`),
        want: ["client.ts"],
      },
    ],
    [
      "a spec change that was not regenerated",
      {
        given: (dir: string) =>
          edit(path.join(dir, "spec", "components", "schemas", "CallStatus.yaml"), (t) =>
            t.replace("not_connected, error]", "not_connected, error, paused]"),
          ),
        want: ["openapi.json", "schema.d.ts"],
      },
    ],
    [
      "a generated file that is missing",
      {
        given: (dir: string) => unlink(path.join(dir, "generated", "mock-control.d.ts")),
        want: ["mock-control.d.ts (missing)"],
      },
    ],
    [
      "a file the generator does not produce",
      {
        given: (dir: string) => writeFile(path.join(dir, "generated", "stray.json"), "{}\n"),
        want: ["stray.json (not produced by the generator)"],
      },
    ],
  ])(
    "fails on %s",
    async (_name, { given, want }) => {
      const dir = await copyOfRepo();
      await given(dir);
      const result = await driftCheck(dir);
      expect(result.code, result.output).toBe(1);
      expect(result.output).toContain("generated/ is stale");
      for (const file of want) expect(result.output).toContain(file);
    },
    TIMEOUT,
  );

  it(
    "passes on an untouched copy, so the failures above come from the edits",
    async () => {
      const result = await driftCheck(await copyOfRepo());
      expect(result.code, result.output).toBe(0);
    },
    TIMEOUT,
  );
});

describe.concurrent("spec lint", () => {
  it(
    "passes on the working tree",
    async () => {
      const result = await lint(repoRoot);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/Your API descriptions? (is|are) valid/);
      expect(result.output).not.toMatch(/\d+ warnings?/);
    },
    TIMEOUT,
  );

  it(
    "fails when an operation loses its operationId",
    async () => {
      const dir = await copyOfRepo();
      await edit(path.join(dir, "spec", "paths", "calls.yaml"), (t) => t.replace("    operationId: listCalls\n", ""));
      const result = await lint(dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain("operation-operationId");
    },
    TIMEOUT,
  );
});
