import { describe, expect, it } from "vitest";
import { defaultContract } from "../core/contract.js";
import { documentErrorBody, hasReferenceErrorBody } from "./error-body.js";
import { contractOf } from "./test/contract-of.js";
import { notes, petstore } from "./test/documents.js";

describe("error bodies of other documents", () => {
  const contract = contractOf(notes());
  const op = (id: string) => contract.operation(id);

  it("fit the status's documented schema, the message in its message-like field", () => {
    const { body, contentType } = documentErrorBody(contract, op("getNote"), 404, "Note not found: 42");
    expect(contentType).toBe("application/problem+json");
    expect(body).toMatchObject({ status: 404, detail: "Note not found: 42" });
    expect(op("getNote").responses.get(404)!.check!(body)).toBe(true);
    // The same error, the same body.
    expect(documentErrorBody(contract, op("getNote"), 404, "Note not found: 42").body).toEqual(body);
  });

  it("fall back to the status class, then to default", () => {
    const { body, contentType } = documentErrorBody(contract, op("createNote"), 400, "title is required");
    expect(contentType).toBe("application/problem+json");
    expect(body).toMatchObject({ status: 400, detail: "title is required" });
    const validate = (contract.validators.operationValidators as any).createNote.responses.default;
    expect(validate(body)).toBe(true);
  });

  it("have no body where the status is documented without one; a plain message where it is not documented", () => {
    const pets = contractOf(petstore());
    expect(documentErrorBody(pets, pets.operation("getPetById"), 404, "Pet not found: 1")).toEqual({});
    expect(documentErrorBody(pets, pets.operation("logoutUser"), 500, "boom")).toEqual({
      body: { message: "boom" },
      contentType: "application/json",
    });
  });

  it("put the message one level down in an { error: { code, message } } body", () => {
    const doc = notes();
    doc.components.schemas.Problem = {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "integer" }, message: { type: "string" }, status: { enum: ["NOT_FOUND"] } },
        },
      },
    };
    const google = contractOf(doc);
    const { body } = documentErrorBody(google, google.operation("getNote"), 404, "gone");
    expect(body).toMatchObject({ error: { code: 404, message: "gone" } });
  });

  it("are needed only where the document's errors are not this API's 2.2 body", () => {
    expect(hasReferenceErrorBody(defaultContract())).toBe(true);
    expect(hasReferenceErrorBody(contract)).toBe(false);
  });
});
