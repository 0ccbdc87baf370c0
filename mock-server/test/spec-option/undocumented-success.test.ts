/**
 * What the generic layer answers where the document leaves the success out or gives it in another media
 * type: a delete documenting no 2xx answers 204 (and the response check lets it through, rather than
 * calling its own answer drift), a list's one array value is an array, and a text answer goes as text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";

const document = {
  openapi: "3.1.0",
  info: { title: "Shelves", version: "1" },
  servers: [{ url: "/api" }],
  paths: {
    "/shelves": {
      get: {
        operationId: "listShelves",
        parameters: [
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
          { name: "room", in: "query", explode: false, schema: { type: "array", items: { type: "string" } } },
        ],
        responses: {
          "200": {
            description: "the shelves",
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Shelf" } } },
            },
          },
        },
      },
      post: {
        operationId: "addShelf",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Shelf" } } },
        },
        responses: {
          "201": {
            description: "added",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Shelf" } } },
          },
        },
      },
    },
    "/shelves/{id}": {
      get: {
        operationId: "getShelf",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "a shelf",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Shelf" } } },
          },
          "404": { description: "no such shelf" },
        },
      },
      delete: {
        operationId: "removeShelf",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "404": { description: "no such shelf" } },
      },
    },
    "/shelves.csv": {
      get: {
        operationId: "exportShelves",
        responses: { "200": { description: "all shelves", content: { "text/csv": { schema: { type: "string" } } } } },
      },
    },
  },
  components: {
    schemas: {
      Shelf: {
        type: "object",
        required: ["id", "room"],
        properties: {
          id: { type: "string", readOnly: true },
          room: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
};

let mock: RunningMock;

beforeAll(async () => {
  mock = await startMock({ port: 0, spec: document, log: () => undefined });
});
afterAll(() => mock?.close());

const api = (path: string, init?: RequestInit) => fetch(`${mock.url}/api${path}`, init);
const add = async (shelf: object) =>
  (await (
    await api("/shelves", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(shelf),
    })
  ).json()) as { id: string };

describe("a document that leaves the success out, or gives it in another media type", () => {
  it("answers a delete documenting no 2xx with 204, then the id is gone", async () => {
    const { id } = await add({ room: "hall" });
    const removed = await api(`/shelves/${id}`, { method: "DELETE" });
    expect([removed.status, await removed.text()]).toEqual([204, ""]);
    expect((await api(`/shelves/${id}`)).status).toBe(404);
  });

  it("takes one value of an array query parameter as an array, and splits a non-exploded one", async () => {
    const study = await add({ room: "study", tags: ["oak"] });
    await add({ room: "attic", tags: ["pine"] });
    const byTag = await api("/shelves?tags=oak");
    expect([byTag.status, ((await byTag.json()) as { id: string }[]).map((s) => s.id)]).toEqual([200, [study.id]]);
    const byRoom = await api("/shelves?room=study,nowhere");
    expect(((await byRoom.json()) as { id: string }[]).map((s) => s.id)).toEqual([study.id]);
  });

  it("answers a text/csv success as text with its type", async () => {
    const csv = await api("/shelves.csv");
    expect([csv.status, csv.headers.get("content-type")]).toEqual([200, "text/csv"]);
    expect((await csv.text()).length).toBeGreaterThan(0);
  });
});
