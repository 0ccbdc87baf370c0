/**
 * The spec leads, end to end, as a spec author meets it: on one throwaway copy of the repository the
 * spec gains a new collection (contacts: list, create, read, change, delete) and an operation that is
 * no collection (a month's usage), applied as spec/README.md's walk-through writes them. Then:
 *
 * - `npm run generate` succeeds;
 * - `npm run check` passes, all of it: the type-check and the lint of the copy, the served-generically
 *   listing (which names the new collection, its id field and the schema-answered operation) and the
 *   unit tests, which hold the reference's 17 operations as before and let the new ones be
 *   (scripts/test/lib/reference-operations.ts);
 * - `node scripts/build.mjs` builds, and the built mock starts (`node dist/mock-server/main.js --port 0`,
 *   on a virtual clock: the day a drawn answer is seeded with does not turn), its start log naming the
 *   collection and its id field;
 * - over HTTP the collection keeps records (create, read back, list newest first with the page wrapper,
 *   filter, change, delete, then 404 with the 2.2 error body), and the other operation answers its
 *   documented status with a body valid against the documented schema, the same body for the same
 *   request; the reference's operations answer as before;
 * - `npm run conformance` against it passes the generic rules the suite derives for the six new
 *   operations (the round trip of contacts among them).
 *
 * The check's commands run in two lanes (scripts/test/lib/check-lanes.ts): its unit tests from the
 * start, the build then the rest of the check beside them; the mock starts as soon as it is built,
 * and the tests over HTTP run while the check goes on. The check's own test comes last and waits for it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckLanes, startCheckInLanes } from "./lib/check-lanes.js";
import { applyEdits, walkthroughEdits } from "./lib/spec-walkthrough.js";
import { cleanEnv, type Ran, type ThrowawayRepo, throwawayRepo } from "./lib/throwaway-repo.js";

type Validators = Record<string, { responses: Record<string, ((body: unknown) => boolean) | null> }>;
type Json = Record<string, any>;

const NEW_OPERATIONS = ["listContacts", "createContact", "getContact", "updateContact", "deleteContact", "getUsage"];

/** What a command said, its last 20000 characters (the unit tests' report ends with what failed). */
const said = (ran: Ran) => `exit ${ran.code}\n${ran.stdout}\n${ran.stderr}`.slice(-20_000);

/** The served-generically listing among what `npm run check` printed: its first line and the ones indented under it. */
function listingOf(output: string): string[] {
  const lines = stripVTControlCharacters(output).split("\n");
  const start = lines.findIndex((line) => line.startsWith("served generically:"));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && !line.startsWith("  "));
  return lines.slice(start, end < 0 ? undefined : end);
}

describe("the spec leads: a new collection and a new operation in spec/, served at once", () => {
  let repo: ThrowawayRepo;
  let mock: ChildProcess | undefined;
  let url = "";
  let apiKey = "";
  let startLog = "";
  let checks: { check: CheckLanes; build: Ran } | undefined;
  /** The copy's own compiled response validators (its generated/validators.js). */
  let validators: Validators;

  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { "X-API-Key": apiKey, ...(body !== undefined && { "Content-Type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : undefined };
  };
  const valid = (operationId: string, status: number, body: unknown) =>
    validators[operationId]!.responses[String(status)]!(body);

  beforeAll(async () => {
    repo = await throwawayRepo("spec-leads-test");
    await applyEdits(repo.dir, walkthroughEdits());
    const generated = await repo.run("npm", ["run", "generate"]);
    expect(generated.code, said(generated)).toBe(0);
    const { first: build, check } = await startCheckInLanes(repo, () => repo.run("node", ["scripts/build.mjs"]));
    checks = { check, build };
    validators = (await import(pathToFileURL(path.join(repo.dir, "generated/validators.js")).href))
      .operationValidators as Validators;
    if (build.code !== 0) return;
    const child = spawn(
      process.execPath,
      ["dist/mock-server/main.js", "--port", "0", "--host", "127.0.0.1", "--clock", "virtual"],
      {
        cwd: repo.dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    mock = child;
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      const look = (chunk: Buffer) => {
        startLog += chunk;
        const listening = /listening on (http:\/\/\S+)\/v1/.exec(startLog);
        const key = /API key \(X-API-Key\): (\S+)/.exec(startLog);
        // The start log is written in one go; the request log follows it.
        if (listening && key && /Request log:/.test(startLog)) {
          child.stdout!.off("data", look);
          [url, apiKey] = [listening[1]!, key[1]!];
          resolve();
        }
      };
      child.stdout!.on("data", look);
      child.once("exit", (code) => reject(new Error(`the mock exited with ${code}:\n${startLog}\n${stderr}`)));
    });
  }, 600_000);

  afterAll(async () => {
    // The check may still run when a test before its own failed: the copy goes once it is done.
    await checks?.check.result;
    if (mock && mock.exitCode === null) {
      const exited = new Promise((resolve) => mock!.once("exit", resolve));
      mock.kill("SIGTERM");
      await exited;
    }
    await repo?.remove();
  }, 600_000);

  it("starts, its log naming the new collection and its id field", () => {
    expect(startLog).toContain(
      "  generic collection contacts (id: contactId): listContacts, createContact, getContact, updateContact, deleteContact\n",
    );
    expect(startLog).toContain("  generic answers from the schema: getUsage\n");
  });

  it("keeps contacts: create, read back, list newest first, filter, change, delete, then 404", async () => {
    const ada = await call("POST", "/v1/contacts", {
      name: "Ada Lovelace",
      phoneNumber: "+14155550100",
      company: "Analytical",
    });
    expect(ada.status, JSON.stringify(ada.body)).toBe(201);
    expect(valid("createContact", 201, ada.body)).toBe(true);
    const id = ada.body!.contactId as string;
    // Identifier's example is a UUID: the generic layer issues UUIDs.
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Server fields: the id, the timestamps; under the document's record rule a field not sent is null.
    expect(ada.body).toMatchObject({ name: "Ada Lovelace", company: "Analytical", notes: null });
    expect(ada.body!.createdAt).toBe(ada.body!.updatedAt);

    const read = await call("GET", `/v1/contacts/${id}`);
    expect(read).toEqual({ status: 200, body: ada.body });

    const alan = await call("POST", "/v1/contacts", { name: "Alan Turing", phoneNumber: "+442071838750" });
    expect(alan.status).toBe(201);
    expect(alan.body!.company).toBeNull();
    const list = await call("GET", "/v1/contacts?size=1");
    expect(list.status).toBe(200);
    expect(valid("listContacts", 200, list.body)).toBe(true);
    expect(list.body).toMatchObject({
      page: 0,
      size: 1,
      totalCount: 2,
      totalPages: 2,
      hasNext: true,
      hasPrevious: false,
    });
    expect(list.body!.data).toEqual([alan.body]);
    const filtered = await call("GET", "/v1/contacts?company=Analytical");
    expect(filtered.body!.data).toEqual([ada.body]);
    expect((await call("GET", "/v1/contacts?size=0")).status).toBe(400);

    const changed = await call("PATCH", `/v1/contacts/${id}`, { notes: "Prefers mornings." });
    expect(changed.status).toBe(200);
    expect(valid("updateContact", 200, changed.body)).toBe(true);
    expect(changed.body).toEqual({ ...ada.body, notes: "Prefers mornings.", updatedAt: changed.body!.updatedAt });
    expect((await call("GET", `/v1/contacts/${id}`)).body).toEqual(changed.body);
    expect((await call("PATCH", `/v1/contacts/${id}`, { phoneNumber: "not a number" })).status).toBe(400);

    const deleted = await call("DELETE", `/v1/contacts/${id}`);
    expect(deleted).toEqual({ status: 204, body: undefined });
    const gone = await call("GET", `/v1/contacts/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ status: 404, error: "Not Found", path: `/v1/contacts/${id}` });
    expect(valid("getContact", 404, gone.body)).toBe(true);
    expect((await call("DELETE", `/v1/contacts/${id}`)).status).toBe(404);
    expect((await call("GET", "/v1/contacts")).body!.data).toEqual([alan.body]);
  });

  it("answers the usage from its schema: documented status, a valid body, the same for the same request", async () => {
    const first = await call("GET", "/v1/usage?month=2026-11");
    expect(first.status).toBe(200);
    expect(valid("getUsage", 200, first.body)).toBe(true);
    expect(await call("GET", "/v1/usage?month=2026-11")).toEqual(first);
    const other = await call("GET", "/v1/usage?month=2026-10");
    expect(valid("getUsage", 200, other.body)).toBe(true);
    expect((await call("GET", "/v1/usage")).status).toBe(400);
    expect((await call("GET", "/v1/usage?month=November")).status).toBe(400);
  });

  it("passes the conformance suite's generic rules, derived for every new operation", async () => {
    const report = path.join(repo.dir, "conformance.json");
    const only = ["--only", "/^generic\\//", "--json", report];
    const ran = await repo.run("npm", [
      "run",
      "-s",
      "conformance",
      "--",
      "--base-url",
      url,
      "--api-key",
      apiKey,
      ...only,
    ]);
    expect(ran.code, said(ran)).toBe(0);
    expect(ran.stdout).toContain("23 operations, 17 with hand-written rules, 6 with generic rules");
    const run = JSON.parse(await readFile(report, "utf8")) as {
      summary: { verdict: string };
      operations: { operationId: string; rules: string }[];
      results: { id: string; operationId: string; outcome: string }[];
    };
    expect(run.summary.verdict).toBe("pass");
    const generic = run.operations.filter((o) => o.rules === "generic").map((o) => o.operationId);
    expect(generic.sort()).toEqual(NEW_OPERATIONS.toSorted());
    for (const operationId of NEW_OPERATIONS)
      expect(
        run.results.filter((r) => r.operationId === operationId && r.outcome === "passed").length,
        operationId,
      ).toBeGreaterThan(0);
    expect(run.results.map((r) => r.id)).toEqual(
      expect.arrayContaining(["createContact.round-trip", "getContact.unknown-id", "getUsage.success"]),
    );
  });

  it("still serves the reference's operations with their handlers", async () => {
    const calls = await call("GET", "/v1/calls?size=2");
    expect(calls.status).toBe(200);
    expect(calls.body!.data).toHaveLength(2);
    expect((await call("GET", "/v1/calls/no-such-call")).status).toBe(404);
  });

  it("passes npm run check (type-check, lint, the new operations listed as served generically, unit tests), and builds", async () => {
    const check = await checks!.check.result;
    expect(check.code, said(check)).toBe(0);
    expect(listingOf(check.stdout)).toEqual([
      expect.stringMatching(/^served generically: 6 of 23 operations have no hand-written handler/),
      "  generic collection contacts (id: contactId): listContacts, createContact, getContact, updateContact, deleteContact",
      "  generic answers from the schema: getUsage",
    ]);
    // The unit tests ran, and none failed.
    expect(stripVTControlCharacters(check.stdout)).toMatch(/^ +Test Files +\d+ passed \(\d+\)$/m);
    expect(checks!.build.code, said(checks!.build)).toBe(0);
  }, 600_000);
});
