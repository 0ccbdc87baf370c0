import { describe, expect, it } from "vitest";
import { MUSEUM, PETSTORE } from "../../mock-server/test/public-specs/support.js";
import { bundledDocument } from "../lib/document.js";
import { checkedDocument, specWithNewOperations } from "../test/generic-spec.js";
import { collectionOfParameter, collectionsOf, listedItems, roleOf } from "./collections.js";
import { loadSuiteDocument } from "./spec-option.js";

const summary = (c: ReturnType<typeof collectionsOf>[number]) => ({
  path: c.path,
  idParam: c.idParam,
  idField: c.idField,
  roles: Object.fromEntries(
    (["create", "list", "read", "update", "replace", "remove", "bodyUpdate", "bodyReplace"] as const)
      .filter((r) => c[r])
      .map((r) => [r, c[r]!.operationId]),
  ),
});

describe("collections inferred from paths and methods", () => {
  it("museum: special events (PATCH merges) and tickets (made, never deleted); hours and QR codes are no collection", async () => {
    const document = await loadSuiteDocument(MUSEUM);
    expect(collectionsOf(document).map(summary)).toEqual([
      {
        path: "/special-events",
        idParam: "eventId",
        idField: "eventId",
        roles: {
          create: "createSpecialEvent",
          list: "listSpecialEvents",
          read: "getSpecialEvent",
          update: "updateSpecialEvent",
          remove: "deleteSpecialEvent",
        },
      },
      { path: "/tickets", idParam: "ticketId", idField: "ticketId", roles: { create: "buyMuseumTickets" } },
    ]);
    // The list is a plain array of records.
    expect(listedItems(document, collectionsOf(document)[0].list!)).toEqual({
      itemSchema: "/components/schemas/SpecialEventCollection/items",
    });
    expect(collectionOfParameter(document, "/tickets/{ticketId}/qr", "ticketId")?.path).toBe("/tickets");
    expect(roleOf(document, "getTicketCode")).toBeUndefined();
  });

  it("petstore: the id field is `id` where the record has no property named as the path parameter; PUT with the id in the body", async () => {
    const document = await loadSuiteDocument(PETSTORE);
    const byPath = Object.fromEntries(collectionsOf(document).map((c) => [c.path, summary(c)]));
    expect(byPath["/pet"]).toEqual({
      path: "/pet",
      idParam: "petId",
      idField: "id",
      roles: { create: "addPet", read: "getPetById", remove: "deletePet", bodyReplace: "updatePet" },
    });
    expect(byPath["/user"]).toMatchObject({
      idParam: "username",
      idField: "username",
      roles: { replace: "updateUser" },
    });
    expect(byPath["/store/order"]).toMatchObject({
      idField: "id",
      roles: { create: "placeOrder", read: "getOrderById" },
    });
    // An action under a record, and lookups beside the collection, are no collections of their own.
    expect(Object.keys(byPath)).toEqual(["/pet", "/store/order", "/user"]);
  });

  it("this API's spec with contacts added: the new collection with the 2.1 page wrapper; the usage operation plays no role", () => {
    const document = checkedDocument(specWithNewOperations());
    const contacts = collectionsOf(document).find((c) => c.path === "/v1/contacts")!;
    expect(summary(contacts)).toEqual({
      path: "/v1/contacts",
      idParam: "contactId",
      idField: "contactId",
      roles: {
        create: "createContact",
        list: "listContacts",
        read: "getContact",
        update: "updateContact",
        remove: "deleteContact",
      },
    });
    expect(listedItems(document, contacts.list!).property).toBe("data");
    expect(roleOf(document, "getUsage")).toBeUndefined();
    // The bundled spec's QA rules: read and delete by id, no list.
    expect(collectionsOf(bundledDocument).find((c) => c.path === "/v1/qa-rules")).toMatchObject({
      idField: "qaRuleId",
      read: { operationId: "getQaRule" },
      remove: { operationId: "deleteQaRule" },
    });
  });
});
