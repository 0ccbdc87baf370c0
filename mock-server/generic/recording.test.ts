import { describe, expect, it } from "vitest";
import { Redactor } from "../upstream/redact.js";
import { applyGenericRecorded, type GenericRecordedChange, genericRecordedChanges } from "./recording.js";
import { contractOf } from "./test/contract-of.js";
import { kitWithVoiceProfiles, notes, petstore } from "./test/documents.js";
import { workspaceOf } from "./test/serve.js";

const none = () => false;
const answered = (
  operationId: string,
  json: unknown,
  more: Partial<Parameters<typeof genericRecordedChanges>[1]> = {},
) => ({
  operationId,
  status: 200,
  pathParams: {},
  requestBody: undefined,
  json,
  ...more,
});
/** What a change says, without its plan: [collection, id or record]. */
const said = (changes: GenericRecordedChange[]) =>
  changes.map((c) => ("deleteId" in c ? [c.plan.name, "delete", c.deleteId] : [c.plan.name, c.record]));

const NOTE = {
  id: "7f1c2a9e-7b4d-4e61-9a0f-2d5c8e7b1a40",
  title: "One",
  pinned: false,
  tags: [],
  createdAt: "2026-10-01T09:00:00.000Z",
  updatedAt: "2026-10-01T09:00:00.000Z",
};

describe("what an upstream's answer changes in the generic collections", () => {
  it("takes a wrapper's items oldest first, and a plain array's", () => {
    const contract = contractOf(notes());
    const second = { ...NOTE, id: "00000000-0000-4000-8000-000000000002" };
    const page = { items: [second, NOTE], total: 2, limit: 20, offset: 0, next: null };
    expect(said(genericRecordedChanges(contract, answered("listNotes", page), none))).toEqual([
      ["notes", NOTE],
      ["notes", second],
    ]);
    // Petstore's search answers a plain array of the collection's records; an item without an id is no record.
    const pets = contractOf(petstore());
    const found = [{ id: 2, name: "Max", photoUrls: [] }, { name: "No id", photoUrls: [] }, "junk"];
    expect(said(genericRecordedChanges(pets, answered("findPetsByStatus", found), none))).toEqual([
      ["pet", { id: 2, name: "Max", photoUrls: [] }],
    ]);
  });

  it("takes the record a read, create or change answers, out of its envelope, with the path's id when it has none", () => {
    const doc = notes();
    doc.paths["/notes/{noteId}"].get.responses["200"].content["application/json"].schema = {
      type: "object",
      required: ["data"],
      properties: { data: { $ref: "#/components/schemas/Note" } },
    };
    const contract = contractOf(doc);
    expect(said(genericRecordedChanges(contract, answered("getNote", { data: NOTE }), none))).toEqual([
      ["notes", NOTE],
    ]);
    const { id: _id, ...withoutId } = NOTE;
    const created = genericRecordedChanges(
      contract,
      answered("updateNote", withoutId, { pathParams: { noteId: "n-1" } }),
      none,
    );
    expect(said(created)).toEqual([["notes", { ...withoutId, id: "n-1" }]]);
    // An integer id from the path is the integer the record's schema says.
    const pets = contractOf(petstore());
    const pet = genericRecordedChanges(
      pets,
      answered("getPetById", { name: "Rex", photoUrls: [] }, { pathParams: { petId: "7" } }),
      none,
    );
    expect(said(pet)).toEqual([["pet", { name: "Rex", photoUrls: [], id: 7 }]]);
  });

  it("turns a delete into a removal by the path's id, or the body's for PUT|PATCH /x", () => {
    const contract = contractOf(notes());
    const deleted = answered("deleteNote", undefined, { status: 204, pathParams: { noteId: NOTE.id } });
    expect(said(genericRecordedChanges(contract, deleted, none))).toEqual([["notes", "delete", NOTE.id]]);
    const pets = contractOf(petstore());
    const replaced = answered("updatePet", { id: 3, name: "Rex", photoUrls: [] }, { requestBody: { id: 3 } });
    expect(said(genericRecordedChanges(pets, replaced, none))).toEqual([
      ["pet", { id: 3, name: "Rex", photoUrls: [] }],
    ]);
  });

  it("changes nothing for a failure, a schema operation, or an operation a handler serves", () => {
    const contract = contractOf(notes());
    expect(genericRecordedChanges(contract, answered("getNote", NOTE, { status: 404 }), none)).toEqual([]);
    expect(genericRecordedChanges(contract, answered("shareNote", { url: "https://x.example" }), none)).toEqual([]);
    expect(genericRecordedChanges(contract, answered("getNote", NOTE), (id) => id === "getNote")).toEqual([]);
    // The kit's calls form a collection in the plan, but their handlers keep them (upstream/record.ts does).
    const kit = contractOf(kitWithVoiceProfiles());
    expect(genericRecordedChanges(kit, answered("getCall", { callId: "c1" }), (id) => id === "getCall")).toEqual([]);
  });
});

describe("applying them", () => {
  it("keeps the last one seen, removes, replaces secrets, and refuses what the schema refuses", () => {
    const contract = contractOf(notes());
    const workspace = workspaceOf();
    const redactor = new Redactor();
    const changes = (json: unknown, more = {}) =>
      genericRecordedChanges(contract, answered("getNote", json, more), none);
    const second = { ...NOTE, id: "00000000-0000-4000-8000-000000000002" };
    expect(applyGenericRecorded(workspace, changes({ ...NOTE, token: "tok-secret-123456" }), redactor)).toEqual({
      kept: 1,
      refused: [],
      filled: [],
    });
    const records = workspace.generic.collection("notes", "id");
    expect(records.get(NOTE.id)?.token).toBe("[redacted]");
    applyGenericRecorded(workspace, changes(second), redactor);
    applyGenericRecorded(workspace, changes({ ...NOTE, title: "Again" }), redactor);
    expect(records.all().map((r) => [r.id, r.title])).toEqual([
      [NOTE.id, "Again"],
      [second.id, "One"],
    ]);
    const refused = applyGenericRecorded(workspace, changes({ ...NOTE, id: "x", title: "" }), redactor);
    expect(refused.kept).toBe(0);
    expect(refused.refused).toEqual([
      { collection: "notes", id: "x", errors: expect.objectContaining({ title: expect.any(String) }) },
    ]);
    const deleted = genericRecordedChanges(
      contract,
      answered("deleteNote", undefined, { status: 204, pathParams: { noteId: second.id } }),
      none,
    );
    applyGenericRecorded(workspace, deleted, redactor);
    expect(records.all().map((r) => r.id)).toEqual([NOTE.id]);
  });
});
