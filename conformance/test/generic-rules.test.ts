/**
 * The suite follows the document: a copy of the bundled spec with a new collection (contacts) and a new
 * operation that is no collection (usage), served by the kit's mock, gets generic rules for each new
 * operation and keeps the hand-written ones of the 17. The rules pass on the mock, fail when a proxy
 * breaks one new operation, and on a foreign target the round trip leaves nothing behind.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock } from "../../mock-server/server.js";
import { main } from "../cli.js";
import { readLedger } from "../fixtures/ledger-file.js";
import type { RunResult } from "../lib/runner.js";
import { checkedDocument, NEW_OPERATIONS, servedSpec, specWithNewOperations } from "./generic-spec.js";
import { type Running, silentIo, startProxy } from "./support.js";

const doc = specWithNewOperations();
const document = checkedDocument(doc);
/** The generic rules only: the 17's hand-written rules are the other tests' business. */
const GENERIC = ["--only", "/^generic\\//"];

function failures(run: RunResult | undefined): string {
  return (run?.results ?? [])
    .filter((r) => r.outcome === "failed" || r.outcome === "errored")
    .map((r) => `${r.id}: ${r.error ?? r.failures.map((f) => `${f.pointer} ${f.message} (${f.actual})`).join("; ")}`)
    .join("\n");
}

describe("generic rules for operations a spec author adds", () => {
  let mock: Running;
  const dir = mkdtempSync(join(tmpdir(), "generic-rules-"));
  beforeAll(async () => {
    // A real clock: posing as a foreign deployment, its Date header tells its time.
    mock = await startMock({ port: 0, host: "127.0.0.1", clock: "real", spec: servedSpec(doc), log: () => undefined });
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (url: string, args: string[] = []) =>
    main(["--base-url", url, "--api-key", mock.apiKey, "--quiet", ...GENERIC, ...args], {}, silentIo, { document });

  it("passes on the kit's mock, with generic rules for each new operation; reports say generic and hand-written", async () => {
    const json = join(dir, "report.json");
    const junit = join(dir, "report.xml");
    const html = join(dir, "report.html");
    const { code, run: result } = await run(mock.url, ["--json", json, "--junit", junit, "--html", html]);
    expect(failures(result)).toBe("");
    expect(code).toBe(0);
    const ran = result!.results;
    for (const op of NEW_OPERATIONS)
      expect(ran.filter((r) => r.operationId === op && r.outcome === "passed").length, op).toBeGreaterThan(0);
    expect(ran.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        "createContact.round-trip",
        "getContact.unknown-id",
        "updateContact.invalid-input",
        "getUsage.success",
        "getUsage.invalid-input",
      ]),
    );
    expect(ran.filter((r) => r.outcome === "skipped").map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    const report = JSON.parse(readFileSync(json, "utf8"));
    const kinds = Object.fromEntries(
      report.operations.map((o: { operationId: string; rules: string }) => [o.operationId, o.rules]),
    );
    expect(Object.values(kinds).filter((k) => k === "hand-written")).toHaveLength(17);
    for (const op of NEW_OPERATIONS) expect(kinds[op], op).toBe("generic");
    expect(report.coverage.find((r: { operationId: string }) => r.operationId === "getContact").rules).toBe("generic");
    expect(readFileSync(junit, "utf8")).toContain('<property name="operation.getContact.rules" value="generic"/>');
    expect(readFileSync(html, "utf8")).toMatch(
      /<code>getContact<\/code><\/td><td class="req">GET \/v1\/contacts\/\{contactId\}<\/td><td class="kind generic">generic<\/td>/,
    );
  });

  it("fails the rule a proxy breaks: 200 for an unknown contact, a create that drops a field", async () => {
    const cases: [string, Parameters<typeof startProxy>[1], string[]][] = [
      [
        "unknown id answered 200",
        (req, res) =>
          req.method === "GET" && /^\/v1\/contacts\/[^/]+$/.test(req.path) && res.status === 404
            ? {
                status: 200,
                headers: { "content-type": "application/json" },
                body: JSON.stringify({
                  contactId: req.path.split("/").pop(),
                  name: "Made up",
                  email: "made.up@example.com",
                  tier: "free",
                  createdAt: new Date().toISOString(),
                }),
              }
            : undefined,
        ["getContact.unknown-id"],
      ],
      [
        "create drops email",
        (req, res) => {
          if (req.method !== "POST" || req.path !== "/v1/contacts" || res.status !== 201) return undefined;
          const { email: _dropped, ...rest } = JSON.parse(res.body.toString("utf8"));
          return { status: 201, headers: { "content-type": "application/json" }, body: JSON.stringify(rest) };
        },
        ["createContact.success", "createContact.round-trip"],
      ],
    ];
    for (const [what, rewrite, broken] of cases) {
      const proxy = await startProxy(mock.url, rewrite);
      try {
        const { code, run: result } = await run(proxy.url, ["--target", "mock"]);
        expect(code, what).toBe(1);
        const failed = result!.results.filter((r) => r.outcome === "failed").map((r) => r.id);
        expect(failed, what).toEqual(expect.arrayContaining(broken));
        expect(
          failed.every((id) => NEW_OPERATIONS.some((op) => id.startsWith(`${op}.`))),
          what,
        ).toBe(true);
      } finally {
        await proxy.close();
      }
    }
  });

  it("on a foreign target the round trip leaves nothing behind: the ledger shows each contact made and deleted", async () => {
    const ledger = join(dir, "foreign.ledger.jsonl");
    const list = async () =>
      (await (await fetch(`${mock.url}/v1/contacts?size=100`, { headers: { "X-API-Key": mock.apiKey } })).json()) as {
        data: unknown[];
      };
    const before = await list();
    const { code, run: result } = await run(mock.url, ["--target", "foreign", "--ledger", ledger]);
    expect(failures(result)).toBe("");
    expect(code).toBe(0);
    expect(result!.isMock).toBe(false);
    const contacts = result!.ledger.filter((e) => e.kind === "contacts");
    expect(contacts.length).toBeGreaterThan(2);
    expect(contacts.filter((e) => e.state !== "removed")).toEqual([]);
    const lines = readLedger(ledger).filter((l) => l.kind === "contacts");
    for (const made of lines.filter((l) => l.state === "left")) {
      expect(made.replay).toMatchObject({ method: "DELETE", path: `/v1/contacts/${made.id}`, removes: true });
      expect(
        lines.some((l) => l.id === made.id && l.state === "removed"),
        made.id,
      ).toBe(true);
    }
    expect(await list()).toEqual(before);
  });

  it("cleanup deletes a record a killed run made and listed as left with its DELETE; a second cleanup changes nothing", async () => {
    const made = await fetch(`${mock.url}/v1/contacts`, {
      method: "POST",
      headers: { "X-API-Key": mock.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "left by a killed run", email: "killed@example.com" }),
    });
    expect(made.status).toBe(201);
    const { contactId } = (await made.json()) as { contactId: string };
    const ledger = join(dir, "killed.ledger.jsonl");
    const path = `/v1/contacts/${contactId}`;
    // What the run wrote the moment the create answered, before the kill.
    writeFileSync(
      ledger,
      `${JSON.stringify({ at: new Date().toISOString(), runId: "conformance-killed", baseUrl: mock.url, kind: "contacts", id: contactId, note: "created by createContact.round-trip", state: "left", replay: { operationId: "deleteContact", method: "DELETE", path, expect: {}, removes: true }, by: "run" })}\n`,
    );
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
    const cleanup = ["cleanup", "--ledger", ledger, "--base-url", mock.url, "--api-key", mock.apiKey];
    expect((await main(cleanup, {}, io)).code).toBe(0);
    expect(lines).toContain(`removed contacts ${contactId}`);
    expect((await fetch(`${mock.url}${path}`, { headers: { "X-API-Key": mock.apiKey } })).status).toBe(404);
    expect(readLedger(ledger).at(-1)).toMatchObject({ id: contactId, state: "removed", by: "cleanup" });
    lines.length = 0;
    expect((await main(cleanup, {}, io)).code).toBe(0);
    expect(lines[0]).toBe("nothing to put back: every change in the ledger was put back");
  });

  it("--read-only sends nothing but GET", async () => {
    const proxy = await startProxy(mock.url);
    try {
      const { code, run: result } = await run(proxy.url, ["--target", "mock", "--read-only"]);
      expect(code).toBe(0);
      expect(proxy.seen.filter((r) => r.path.startsWith("/v1/") && r.method !== "GET")).toEqual([]);
      expect(result!.results.filter((r) => r.outcome === "passed").map((r) => r.id)).toEqual(
        expect.arrayContaining(["listContacts.success", "getUsage.success"]),
      );
    } finally {
      await proxy.close();
    }
  });
});
