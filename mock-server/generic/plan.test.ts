import { describe, expect, it } from "vitest";
import bundled from "../../generated/openapi-document.js";
import { isReferenceOperation, referenceOnly } from "../../scripts/test/lib/reference-operations.js";
import { defaultContract } from "../core/contract.js";
import { handlers } from "../routes/index.js";
import { describeGeneric, formatGenericSummary } from "./describe.js";
import { collectionName, planOf } from "./plan.js";
import { contractOf } from "./test/contract-of.js";
import { kitWithVoiceProfiles, notes, petstore } from "./test/documents.js";

const summaryOf = (contract: ReturnType<typeof contractOf>) =>
  planOf(contract).collections.map((c) => ({
    name: c.name,
    idField: c.idField,
    label: c.label,
    operations: c.operations.map((o) => `${o.operationId}:${o.role}${o.idFrom === "body" ? " (id in body)" : ""}`),
  }));

describe("the plan of a document", () => {
  it("finds the collections of the reference's operations, and answers the rest from the schema", () => {
    // The reference's 17 alone: what a spec author adds to spec/ is planned as any document's operations are.
    const contract = contractOf(referenceOnly(bundled));
    expect(summaryOf(contract)).toEqual([
      {
        name: "integrations",
        idField: "integrationId",
        label: "Integration",
        operations: ["createIntegration:create", "getIntegration:read", "updateIntegration:merge"],
      },
      {
        name: "batch-runs",
        idField: "batchId",
        label: "BatchRun",
        operations: ["createBatchRun:create", "getBatchRun:read"],
      },
      { name: "calls", idField: "callId", label: "Call", operations: ["listCalls:list", "getCall:read"] },
      {
        name: "qa-rules",
        idField: "qaRuleId",
        label: "QaRule",
        operations: ["getQaRule:read", "deleteQaRule:delete"],
      },
      {
        // The record has no `phoneNumber` (it is `sipPhoneNumber`) nor `id`: the parameter's name anyway.
        name: "phone-number",
        idField: "phoneNumber",
        label: "PhoneNumber",
        operations: ["listPhoneNumbers:list", "updatePhoneNumber:merge"],
      },
    ]);
    const schema = [...planOf(contract).decisions].filter(([, d]) => d.kind === "schema").map(([id]) => id);
    // One operation alone on its path, a sub-resource, an upload: schema answers.
    expect(schema).toEqual([
      "listAgents",
      "createIntegrationAuth",
      "listTestRuns",
      "createKnowledgeBase",
      "createChat",
      "listWebhooks",
    ]);
    expect(planOf(contract).recordRule).toEqual({ missing: "null", emptyCollection: "array" });
    // Every reference operation has its handler: none is served generically, alone or in the kit's spec as it is.
    expect(describeGeneric(contract, (id) => id in handlers)).toEqual({ collections: [], schemaOperations: [] });
    const served = describeGeneric(defaultContract(), (id) => id in handlers);
    const generic = [...served.collections.flatMap((c) => c.operations), ...served.schemaOperations];
    expect(generic.filter(isReferenceOperation)).toEqual([]);
  });

  it("serves a spec author's new collection and operations generically, and says so", () => {
    const contract = contractOf(kitWithVoiceProfiles());
    const summary = describeGeneric(contract, (id) => id in handlers);
    expect(summary).toEqual({
      collections: [
        {
          name: "voice-profiles",
          idField: "voiceProfileId",
          operations: [
            "listVoiceProfiles",
            "createVoiceProfile",
            "getVoiceProfile",
            "updateVoiceProfile",
            "deleteVoiceProfile",
          ],
        },
      ],
      schemaOperations: ["previewVoiceProfile", "getUsage"],
    });
    expect(formatGenericSummary(summary)).toEqual([
      "generic collection voice-profiles (id: voiceProfileId): listVoiceProfiles, createVoiceProfile, getVoiceProfile, updateVoiceProfile, deleteVoiceProfile",
      "generic answers from the schema: previewVoiceProfile, getUsage",
    ]);
    const list = planOf(contract).decisions.get("listVoiceProfiles");
    expect(list).toMatchObject({
      kind: "collection",
      role: "list",
      list: {
        shape: { kind: "wrapper", itemsField: "data", reference: "totalCount" },
        paging: { kind: "page", page: "page", size: "size", base: 0 },
      },
    });
  });

  it("reads a Petstore-like document: ids named id, PUT with the id in the body, lone operations", () => {
    const contract = contractOf(petstore());
    expect(summaryOf(contract)).toEqual([
      {
        name: "pet",
        idField: "id",
        label: "Pet",
        operations: [
          "addPet:create",
          "updatePet:replace (id in body)",
          "getPetById:read",
          "deletePet:delete",
          // A search below the collection's path, answering its records: a filtered list.
          "findPetsByStatus:list",
        ],
      },
      {
        name: "store.order",
        idField: "id",
        label: "Order",
        operations: ["placeOrder:create", "getOrderById:read", "deleteOrder:delete"],
      },
    ]);
    const summary = describeGeneric(contract, () => false);
    expect(summary.schemaOperations).toEqual(["updatePetWithForm", "loginUser", "logoutUser"]);
    expect(formatGenericSummary(summary)[0]).toBe(
      "generic collection pet (id: id): addPet, updatePet, getPetById, deletePet, findPetsByStatus",
    );
  });

  it("reads a 3.1 document: a limit/offset wrapper, the record's own id beside the path's", () => {
    const contract = contractOf(notes());
    expect(summaryOf(contract)).toEqual([
      {
        name: "notes",
        idField: "id",
        label: "Note",
        operations: ["listNotes:list", "createNote:create", "getNote:read", "updateNote:merge", "deleteNote:delete"],
      },
    ]);
    expect(planOf(contract).decisions.get("listNotes")).toMatchObject({
      list: {
        shape: {
          kind: "wrapper",
          itemsField: "items",
          fields: { total: "total", limit: "size", offset: "offset", next: "next" },
        },
        paging: { kind: "offset", offset: "offset", limit: "limit" },
      },
    });
    expect(planOf(contract).recordRule).toBeUndefined();
    expect(planOf(contract)).toBe(planOf(contract));
  });

  it("keeps records apart whose shapes disagree, and a path with one operation", () => {
    const doc = notes();
    // The create now answers a receipt that shares nothing with a note: create is no collection operation.
    doc.paths["/notes"].post.responses["201"].content["application/json"].schema = {
      type: "object",
      required: ["receipt"],
      properties: { receipt: { type: "string" }, queued: { type: "boolean" } },
    };
    delete doc.paths["/notes/{noteId}"].patch;
    delete doc.paths["/notes/{noteId}"].delete;
    const plan = planOf(contractOf(doc));
    expect(plan.collections.map((c) => c.operations.map((o) => o.operationId))).toEqual([["listNotes", "getNote"]]);
    expect(plan.decisions.get("createNote")).toEqual({ kind: "schema" });
  });

  it("names collections readably and without colons", () => {
    expect(collectionName("/v1/things")).toBe("things");
    expect(collectionName("/store/order")).toBe("store.order");
    expect(collectionName("/api/v2/users/{userId}/posts")).toBe("users.posts");
    expect(collectionName("/things:batch")).toBe("things-batch");
    expect(collectionName("/")).toBe("records");
  });
});
