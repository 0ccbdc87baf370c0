import { describe, expect, it } from "vitest";
import { contractOf } from "./test/contract-of.js";
import { kitWithVoiceProfiles, notes, petstore } from "./test/documents.js";
import { NOW, server, workspaceOf } from "./test/serve.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("a new collection of this API (2.1 page wrapper, its 400 rules)", () => {
  const contract = contractOf(kitWithVoiceProfiles());
  const call = server(contract);

  it("creates, reads, lists newest first, filters, merges and deletes", async () => {
    const ws = workspaceOf(1);
    const created = call(ws, "createVoiceProfile", { body: { name: "Calm", language: "en" } });
    expect(created.status).toBe(201);
    const id = created.body.voiceProfileId;
    expect(id).toMatch(UUID);
    // The record rule: null where null is allowed, [] for a list, the default, the clock's time.
    expect(created.body).toEqual({
      voiceProfileId: id,
      name: "Calm",
      language: "en",
      description: null,
      tags: [],
      speed: 1,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    expect(call(ws, "getVoiceProfile", { params: { voiceProfileId: id } })).toEqual({
      status: 200,
      body: created.body,
    });

    const second = call(ws, "createVoiceProfile", { body: { name: "Brisk", language: "de", tags: ["fast"] } }).body;
    const page = call(ws, "listVoiceProfiles", { query: { size: "1" } });
    expect(page).toEqual({
      status: 200,
      body: { data: [second], page: 0, size: 1, totalCount: 2, totalPages: 2, hasNext: true, hasPrevious: false },
    });
    const past = call(ws, "listVoiceProfiles", { query: { page: "5" } }).body;
    expect(past).toMatchObject({ data: [], page: 5, size: 10, totalCount: 2, hasNext: false, hasPrevious: true });
    expect(call(ws, "listVoiceProfiles", { query: { language: "en" } }).body.data).toEqual([created.body]);
    // This API's 400 rules come from the documented parameters.
    expect(call(ws, "listVoiceProfiles", { query: { size: "0" } })).toMatchObject({
      status: 400,
      validationErrors: { size: expect.any(String) },
    });
    expect(call(ws, "listVoiceProfiles", { query: { page: "-1" } }).status).toBe(400);

    await ws.clock.advance(60);
    const changed = call(ws, "updateVoiceProfile", { params: { voiceProfileId: id }, body: { speed: 1.5 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...created.body, speed: 1.5, updatedAt: "2026-11-01T12:01:00.000Z" });
    expect(call(ws, "getVoiceProfile", { params: { voiceProfileId: id } }).body).toEqual(changed.body);

    expect(call(ws, "deleteVoiceProfile", { params: { voiceProfileId: id } })).toEqual({
      status: 204,
      body: undefined,
    });
    expect(call(ws, "getVoiceProfile", { params: { voiceProfileId: id } })).toMatchObject({
      status: 404,
      message: `VoiceProfile not found: ${id}`,
    });
    expect(call(ws, "deleteVoiceProfile", { params: { voiceProfileId: id } }).status).toBe(404);
    expect(call(ws, "updateVoiceProfile", { params: { voiceProfileId: id }, body: { speed: 1 } }).status).toBe(404);
    expect(call(ws, "listVoiceProfiles").body.totalCount).toBe(1);
  });

  it("keeps each workspace's records to itself", () => {
    const a = workspaceOf(1, "a");
    const b = workspaceOf(1, "b");
    call(a, "createVoiceProfile", { body: { name: "Calm", language: "en" } });
    expect(call(a, "listVoiceProfiles").body.totalCount).toBe(1);
    expect(call(b, "listVoiceProfiles").body.totalCount).toBe(0);
  });

  it("refuses a body the document refuses, before the handler", () => {
    const ws = workspaceOf();
    expect(call(ws, "createVoiceProfile", { body: { language: "en" } })).toMatchObject({
      status: 400,
      validationErrors: { name: "is required" },
    });
    expect(call(ws, "createVoiceProfile", { body: { name: "x", language: "xx" } }).status).toBe(400);
  });

  it("without a record rule, leaves an optional field out and draws a required one", () => {
    const call = server(contractOf(kitWithVoiceProfiles({ recordRule: false })));
    const body = call(workspaceOf(), "createVoiceProfile", { body: { name: "Calm", language: "en" } }).body;
    expect(body.speed).toBe(1);
    // description and tags are required: drawn from their schemas, not null and [] by a rule.
    expect(body.description === null).toBe(false);
    expect(Array.isArray(body.tags)).toBe(true);
  });
});

describe("a Petstore-like OpenAPI 3.0 document", () => {
  const contract = contractOf(petstore());
  const call = server(contract);

  it("counts integer ids up, changes by PUT with the id in the body, lists plain arrays", () => {
    const ws = workspaceOf();
    const first = call(ws, "addPet", { body: { name: "doggie", photoUrls: [] } });
    expect(first).toMatchObject({ status: 200, body: { id: 1, name: "doggie", photoUrls: [] } });
    expect(call(ws, "addPet", { body: { name: "cat", photoUrls: [], status: "sold" } }).body.id).toBe(2);
    expect(call(ws, "addPet", { body: { id: 10, name: "given", photoUrls: [] } }).body.id).toBe(10);
    expect(call(ws, "addPet", { body: { name: "next", photoUrls: [] } }).body.id).toBe(11);
    // A given id that exists: 409 is not documented for addPet, so 400.
    expect(call(ws, "addPet", { body: { id: 10, name: "again", photoUrls: [] } })).toMatchObject({
      status: 400,
      message: "Pet already exists: 10",
    });

    expect(call(ws, "getPetById", { params: { petId: "2" } }).body).toMatchObject({ id: 2, name: "cat" });
    const replaced = call(ws, "updatePet", { body: { id: 2, name: "lion", photoUrls: ["a"] } });
    expect(replaced).toEqual({ status: 200, body: { id: 2, name: "lion", photoUrls: ["a"] } });
    expect(call(ws, "updatePet", { body: { id: 99, name: "ghost", photoUrls: [] } })).toMatchObject({
      status: 404,
      message: "Pet not found: 99",
    });
    expect(call(ws, "updatePet", { body: { name: "no id", photoUrls: [] } })).toMatchObject({
      status: 400,
      validationErrors: { id: "is required" },
    });

    expect(call(ws, "deletePet", { params: { petId: "1" } })).toEqual({ status: 200, body: undefined });
    expect(call(ws, "getPetById", { params: { petId: "1" } }).status).toBe(404);
    expect(call(ws, "getPetById", { params: { petId: "x" } }).status).toBe(400);
  });

  it("keys orders by id; a documented 409 for an id taken", () => {
    const ws = workspaceOf();
    const order = call(ws, "placeOrder", { body: { petId: 1, quantity: 2 } });
    expect(order).toMatchObject({ status: 200, body: { id: 1, petId: 1, quantity: 2 } });
    expect(call(ws, "placeOrder", { body: { id: 1 } }).status).toBe(409);
    expect(call(ws, "getOrderById", { params: { orderId: "1" } }).body).toEqual(order.body);
    expect(call(ws, "deleteOrder", { params: { orderId: "1" } }).status).toBe(204);
    expect(call(ws, "getOrderById", { params: { orderId: "1" } })).toMatchObject({
      status: 404,
      message: "Order not found: 1",
    });
  });
});

describe("an OpenAPI 3.1 document with uuid ids, PATCH and a limit/offset wrapper", () => {
  const contract = contractOf(notes());
  const call = server(contract);

  it("round-trips a note", async () => {
    const ws = workspaceOf();
    const note = call(ws, "createNote", { body: { title: "Groceries", tags: ["home"] } });
    expect(note.status).toBe(201);
    expect(note.body).toEqual({
      id: expect.stringMatching(UUID),
      title: "Groceries",
      pinned: false,
      tags: ["home"],
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    const { id } = note.body;
    await ws.clock.advance(1);
    const patched = call(ws, "updateNote", { params: { noteId: id }, body: { pinned: true } });
    expect(patched.body).toEqual({ ...note.body, pinned: true, updatedAt: "2026-11-01T12:00:01.000Z" });
    expect(call(ws, "getNote", { params: { noteId: id } }).body).toEqual(patched.body);
    expect(call(ws, "deleteNote", { params: { noteId: id } }).status).toBe(204);
    expect(call(ws, "getNote", { params: { noteId: id } }).status).toBe(404);
    // An id of the wrong format is the documented parameter's 400, not a 404.
    expect(call(ws, "getNote", { params: { noteId: "nope" } }).status).toBe(400);
  });

  it("pages by limit and offset, links the next page, filters by fields and by list values", () => {
    const ws = workspaceOf();
    const made = ["a", "b", "c", "d", "e"].map(
      (title, i) => call(ws, "createNote", { body: { title, pinned: i % 2 === 0, tags: [`t${i}`] } }).body,
    );
    const first = call(ws, "listNotes", { query: { limit: "2" } }).body;
    expect(first.items.map((n: any) => n.title)).toEqual(["e", "d"]);
    expect(first).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(first.next).toBe("https://notes.example.com/v2/notes?limit=2&offset=2");
    const last = call(ws, "listNotes", { query: { limit: "2", offset: "4" } }).body;
    expect(last).toMatchObject({ items: [made[0]], next: null });
    expect(call(ws, "listNotes", { query: { pinned: "true" } }).body.items.map((n: any) => n.title)).toEqual([
      "e",
      "c",
      "a",
    ]);
    // A field of an object field: authorId of author.
    call(ws, "createNote", { body: { title: "by ada", author: { authorId: "ada", name: "Ada" } } });
    expect(call(ws, "listNotes", { query: { authorId: "ada" } }).body.items.map((n: any) => n.title)).toEqual([
      "by ada",
    ]);
    expect(call(ws, "listNotes", { query: { tags: ["t1", "t3"] } }).body.items.map((n: any) => n.title)).toEqual([
      "d",
      "b",
    ]);
  });
});

describe("a search below a collection's path", () => {
  it("lists the collection's records, filtered by the query's record fields", () => {
    const doc = petstore();
    doc.paths["/pet/findByTags"] = {
      get: {
        operationId: "findPetsByTags",
        parameters: [{ name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } }],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } } } },
          },
        },
      },
    };
    const call = server(contractOf(doc));
    const ws = workspaceOf();
    const one = call(ws, "addPet", {
      body: { name: "one", photoUrls: [], status: "sold", tags: [{ id: 1, name: "cute" }] },
    }).body;
    const two = call(ws, "addPet", { body: { name: "two", photoUrls: [], status: "sold" } }).body;
    call(ws, "addPet", { body: { name: "three", photoUrls: [], status: "pending" } });
    expect(call(ws, "findPetsByStatus", { query: { status: "sold" } }).body).toEqual([two, one]);
    expect(call(ws, "findPetsByTags", { query: { tags: ["cute", "fluffy"] } }).body).toEqual([one]);
  });
});
