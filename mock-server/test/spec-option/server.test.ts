/**
 * `startMock({ spec })` with another document's file: the Gadget Shop (YAML) and the Notes API (JSON),
 * each on its own server, served by the generic layer alone under their base paths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { GADGETS, gadgetCases, NOTES, noteCases } from "./support.js";

let gadgets: RunningMock;
let notes: RunningMock;

beforeAll(async () => {
  [gadgets, notes] = await Promise.all([
    startMock({ spec: GADGETS, log: () => undefined }),
    startMock({ spec: NOTES, log: () => undefined }),
  ]);
});
afterAll(async () => {
  await Promise.all([gadgets?.close(), notes?.close()]);
});

gadgetCases("startMock", () => gadgets.url);
noteCases("startMock", () => notes.url);

describe("the journal and the HAR export of another document", () => {
  it("capture its operations and the paths under its base path, in the credential's workspace", async () => {
    const auth = { Authorization: `Basic ${Buffer.from("har:pw").toString("base64")}` };
    const created = await fetch(`${notes.url}/notes-api/notes`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "Recorded" }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${notes.url}/notes-api/nowhere`, { headers: auth })).status).toBe(404);
    const journal = (await (await fetch(`${notes.url}/__mock/requests`)).json()) as {
      path: string;
      operationId: string | null;
      workspaceId: string | null;
    }[];
    const posted = journal.find((entry) => entry.operationId === "createNote")!;
    expect(posted.workspaceId).toMatch(/^cred-[0-9a-f]{16}$/);
    const har = (await (await fetch(`${notes.url}/__mock/requests.har`)).json()) as {
      log: { entries: { request: { method: string; url: string }; response: { status: number } }[] };
    };
    const shown = har.log.entries.map(
      (e) => `${e.request.method} ${new URL(e.request.url).pathname} ${e.response.status}`,
    );
    expect(shown).toContain("POST /notes-api/notes 201");
    expect(shown).toContain("GET /notes-api/nowhere 404");
    // The control plane's own requests are not API exchanges.
    expect(shown.some((line) => line.includes("/__mock"))).toBe(false);
    // The workspace is named by a hash: the credential appears nowhere the control plane shows.
    const workspaces = JSON.stringify(await (await fetch(`${notes.url}/__mock/workspaces`)).json());
    expect(workspaces).toContain(posted.workspaceId!);
    expect(workspaces).not.toContain(auth.Authorization.slice("Basic ".length));
  });
});

describe("a document the mock cannot serve", () => {
  it("stops startMock with one message: a security scheme it does not define", async () => {
    const spec = {
      openapi: "3.1.0",
      info: { title: "Broken", version: "1" },
      security: [{ missing: [] }],
      paths: { "/x": { get: { operationId: "getX", responses: { "204": { description: "none" } } } } },
    };
    await expect(startMock({ spec, log: () => undefined })).rejects.toThrow(
      "getX requires the security scheme missing, which the document does not define",
    );
  });
});
