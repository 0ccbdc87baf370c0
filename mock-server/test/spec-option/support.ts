/**
 * What the --spec tests share: two throwaway documents of different styles, and the cases every door
 * must pass with them, registered once per door.
 *
 * - gadgets.yaml (OpenAPI 3.0, YAML): integer ids, an API key in the query or a bearer token, PUT
 *   replaces, `{ code, message }` errors, one open operation, one operation without an operationId.
 * - notes.json (OpenAPI 3.1, JSON): uuid ids named `noteId`, HTTP basic on everything, PATCH merges,
 *   `application/problem+json` errors.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

export const GADGETS = fileURLToPath(new URL("./gadgets.yaml", import.meta.url));
export const NOTES = fileURLToPath(new URL("./notes.json", import.meta.url));
export const gadgetsText = () => readFileSync(GADGETS, "utf8");
export const gadgetsDocument = () => parse(gadgetsText()) as object;
export const notesDocument = () => JSON.parse(readFileSync(NOTES, "utf8")) as object;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A client of one door: requests under `root` (the door's origin and mount, then the document's base path). */
export function client(root: () => string, headers: Record<string, string> = {}) {
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${root()}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined && { "Content-Type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}

const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});

/** The Gadget Shop's cases, for a door whose origin (with any mount path) `origin()` gives. */
export function gadgetCases(door: string, origin: () => string): void {
  const root = () => `${origin()}/shop/v2`;
  const anonymous = client(root);
  // The API key rides in the query: each client adds its own.
  const keyed = (key: string) => {
    const send = client(root);
    return (method: string, path: string, body?: unknown) =>
      send(method, `${path}${path.includes("?") ? "&" : "?"}api_key=${key}`, body);
  };
  const alice = keyed("alice-key");
  const bob = client(root, { Authorization: "Bearer bob-token" });

  describe(`Gadget Shop (OpenAPI 3.0, YAML) through ${door}`, () => {
    it("is served under its server URL's path only", async () => {
      expect((await alice("GET", "/gadgets")).status).toBe(200);
      const outside = await fetch(`${origin()}/gadgets?api_key=alice-key`);
      expect(outside.status).toBe(404);
    });

    it("answers 401 with the document's error body without a credential, and serves an open operation", async () => {
      const refused = await anonymous("GET", "/gadgets");
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ code: expect.any(Number), message: expect.stringContaining("api_key") });
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      // A wrong scheme is no credential either.
      expect((await client(root, { Authorization: "Basic eDp5" })("GET", "/gadgets")).status).toBe(401);
      expect(await anonymous("GET", "/status")).toMatchObject({ status: 200, body: { status: "open for business" } });
    });

    it("keeps each credential's records to itself: two credentials, two workspaces", async () => {
      const created = await alice("POST", "/gadgets", { name: "sprocket", price: 3.5, color: "red" });
      expect(created.status).toBe(201);
      expect(Number.isSafeInteger(created.body.id)).toBe(true);
      expect(created.body).toMatchObject({ name: "sprocket", price: 3.5, color: "red" });
      expect((await alice("GET", "/gadgets")).body).toContainEqual(created.body);
      expect((await bob("GET", "/gadgets")).body).toEqual([]);
      const unknown = await bob("GET", `/gadgets/${created.body.id}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: expect.any(Number), message: expect.any(String) });
      // The same value as a bearer token is another credential: another workspace.
      expect((await client(root, { Authorization: "Bearer alice-key" })("GET", "/gadgets")).body).toEqual([]);
    });

    it("reads back, replaces, filters and deletes what it created", async () => {
      const created = (await bob("POST", "/gadgets", { name: "widget", price: 1, color: "blue" })).body;
      expect(await bob("GET", `/gadgets/${created.id}`)).toMatchObject({ status: 200, body: created });
      const replaced = await bob("PUT", `/gadgets/${created.id}`, { name: "widget 2", price: 2 });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ id: created.id, name: "widget 2", price: 2 });
      expect((await bob("GET", `/gadgets/${created.id}`)).body).toEqual(replaced.body);
      const other = (await bob("POST", "/gadgets", { name: "gizmo", price: 5, color: "red" })).body;
      expect((await bob("GET", "/gadgets?color=red")).body).toEqual([other]);
      // The DELETE without an operationId is served all the same (deleteGadgetsByGadgetId).
      expect((await bob("DELETE", `/gadgets/${created.id}`)).status).toBe(204);
      expect((await bob("GET", `/gadgets/${created.id}`)).status).toBe(404);
    });

    it("serves an operation whose multipart form it does not read", async () => {
      const form = new FormData();
      form.append("photo", new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: "image/png" }), "g.png");
      const answer = await fetch(`${root()}/gadgets/1/photo?api_key=alice-key`, { method: "POST", body: form });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ stored: true });
    });

    it("refuses an invalid body or parameter with 400 in the document's error shape", async () => {
      const invalid = await alice("POST", "/gadgets", { name: "", price: 0 });
      expect(invalid.status).toBe(400);
      expect(invalid.body).toEqual({ code: expect.any(Number), message: expect.any(String) });
      // 3.0's boolean exclusiveMinimum holds: a price of 0 is refused, 0.01 is not.
      expect((await alice("POST", "/gadgets", { name: "cheap", price: 0.01 })).status).toBe(201);
      // 3.0's nullable holds: a null color is a color.
      expect((await alice("POST", "/gadgets", { name: "plain", price: 1, color: null })).status).toBe(201);
      expect((await alice("GET", "/gadgets/not-a-number")).status).toBe(400);
      expect((await alice("GET", "/gadgets?color=green")).status).toBe(400);
    });
  });
}

/** The Notes API's cases, for a door whose origin (with any mount path) `origin()` gives. */
export function noteCases(door: string, origin: () => string): void {
  const root = () => `${origin()}/notes-api`;
  const ann = client(root, basic("ann", "secret"));
  const ben = client(root, basic("ben", "secret"));
  const problem = { title: expect.any(String), status: expect.any(Number) };

  describe(`Notes (OpenAPI 3.1, JSON) through ${door}`, () => {
    it("answers 401 with a problem+json body and a Basic challenge without credentials", async () => {
      const refused = await client(root)("GET", "/notes");
      expect(refused.status).toBe(401);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(refused.body).toMatchObject(problem);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Basic/);
      expect((await client(root, { Authorization: "Bearer token" })("GET", "/notes")).status).toBe(401);
    });

    it("creates, reads back, merges a patch and deletes, on each user's own notes", async () => {
      const created = await ann("POST", "/notes", { title: "Groceries", tags: ["home"] });
      expect(created.status).toBe(201);
      expect(created.body.noteId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(created.body).toMatchObject({ title: "Groceries", tags: ["home"] });
      expect(await ann("GET", `/notes/${created.body.noteId}`)).toMatchObject({ status: 200, body: created.body });
      expect((await ann("GET", "/notes")).body).toContainEqual(created.body);
      // Ben is another credential: another workspace, where Ann's note is not.
      expect((await ben("GET", "/notes")).body).toEqual([]);
      const missing = await ben("GET", `/notes/${created.body.noteId}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject(problem);
      const patched = await ann("PATCH", `/notes/${created.body.noteId}`, { text: "milk" });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ ...created.body, text: "milk" });
      expect((await ann("GET", `/notes/${created.body.noteId}`)).body).toEqual(patched.body);
      expect((await ann("DELETE", `/notes/${created.body.noteId}`)).status).toBe(204);
      expect((await ann("GET", `/notes/${created.body.noteId}`)).status).toBe(404);
    });

    it("refuses an invalid body with 400 in problem+json", async () => {
      const invalid = await ann("POST", "/notes", { title: "", colour: "red" });
      expect(invalid.status).toBe(400);
      expect(invalid.headers.get("content-type")).toBe("application/problem+json");
      expect(invalid.body).toMatchObject(problem);
      expect((await ann("GET", "/notes/not-a-uuid")).status).toBe(400);
    });
  });
}
