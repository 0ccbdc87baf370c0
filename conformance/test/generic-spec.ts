/**
 * A throwaway copy of the bundled spec with what a spec author adds: a new collection (contacts: list
 * with the 2.1 page wrapper, create, get, patch, delete, with the 2.2 error body) and an operation that
 * is no collection (a month's usage). Served by the kit's mock with the hand-written handlers for the
 * 17 and the generic layer for the rest; checked by the suite with hand-written rules for the 17 and
 * generic rules for the new ones.
 */
import { readFileSync } from "node:fs";
import { compileValidators } from "../../mock-server/core/compile-spec.js";
import type { GeneratedSpec, OpenApiDocument } from "../../mock-server/core/spec.js";
import { suiteDocument, type SuiteDocument } from "../lib/document.js";

type Json = Record<string, any>;

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const ERRORS = { "400": error("Invalid request."), "401": error("API key is missing or invalid.") };

export const NEW_OPERATIONS = [
  "listContacts",
  "createContact",
  "getContact",
  "updateContact",
  "deleteContact",
  "getUsage",
];

/** The bundled spec with the contacts collection and the usage operation added (a fresh copy each call). */
export function specWithNewOperations(): Json {
  const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as Json;
  const contactId = {
    name: "contactId",
    in: "path",
    required: true,
    schema: { $ref: "#/components/schemas/Identifier" },
  };
  Object.assign(doc.components.schemas, {
    Contact: {
      type: "object",
      required: ["contactId", "name", "email", "tier", "createdAt"],
      properties: {
        contactId: { $ref: "#/components/schemas/Identifier", readOnly: true },
        name: { type: "string", minLength: 1, maxLength: 128 },
        email: { type: "string", format: "email" },
        tier: { type: "string", enum: ["free", "pro"] },
        createdAt: { $ref: "#/components/schemas/Timestamp", readOnly: true },
      },
    },
    ContactCreate: {
      type: "object",
      required: ["name", "email"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 128 },
        email: { type: "string", format: "email" },
        tier: { type: "string", enum: ["free", "pro"], default: "free" },
      },
    },
    ContactUpdate: {
      type: "object",
      minProperties: 1,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 128 },
        email: { type: "string", format: "email" },
        tier: { type: "string", enum: ["free", "pro"] },
      },
    },
    ContactPage: {
      allOf: [
        { $ref: "#/components/schemas/PageMeta" },
        {
          type: "object",
          required: ["data", "totalCount"],
          properties: {
            data: { type: "array", items: { $ref: "#/components/schemas/Contact" } },
            totalCount: { $ref: "#/components/schemas/TotalCount" },
          },
        },
      ],
    },
    Usage: {
      type: "object",
      required: ["month", "calls", "minutes"],
      properties: {
        month: { type: "string", pattern: "^[0-9]{4}-(0[1-9]|1[0-2])$" },
        calls: { type: "integer", minimum: 0 },
        minutes: { type: "number", minimum: 0 },
      },
    },
  });
  const json = (schema: string, description: string) => ({
    description,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  const body = (schema: string) => ({
    required: true,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  doc.paths["/v1/contacts"] = {
    get: {
      operationId: "listContacts",
      summary: "List contacts",
      parameters: [{ $ref: "#/components/parameters/Page" }, { $ref: "#/components/parameters/Size" }],
      responses: { "200": json("ContactPage", "A page of contacts."), ...ERRORS },
    },
    post: {
      operationId: "createContact",
      summary: "Create a contact",
      requestBody: body("ContactCreate"),
      responses: { "201": json("Contact", "The contact made."), ...ERRORS },
    },
  };
  doc.paths["/v1/contacts/{contactId}"] = {
    parameters: [contactId],
    get: {
      operationId: "getContact",
      summary: "Get a contact",
      responses: { "200": json("Contact", "The contact."), ...ERRORS, "404": error("No such contact.") },
    },
    patch: {
      operationId: "updateContact",
      summary: "Change a contact",
      requestBody: body("ContactUpdate"),
      responses: { "200": json("Contact", "The contact changed."), ...ERRORS, "404": error("No such contact.") },
    },
    delete: {
      operationId: "deleteContact",
      summary: "Delete a contact",
      responses: { "204": { description: "Deleted." }, ...ERRORS, "404": error("No such contact.") },
    },
  };
  doc.paths["/v1/usage"] = {
    get: {
      operationId: "getUsage",
      summary: "A month's usage",
      parameters: [
        {
          name: "month",
          in: "query",
          required: true,
          schema: { type: "string", pattern: "^[0-9]{4}-(0[1-9]|1[0-2])$" },
        },
      ],
      responses: { "200": json("Usage", "The month's usage."), ...ERRORS },
    },
  };
  return doc;
}

/** What the kit's mock serves it as: this API's spec (hand-written handlers, generic layer under them). */
export function servedSpec(doc: Json): GeneratedSpec {
  return { document: doc as OpenApiDocument, validators: compileValidators(doc) };
}

/** What the suite checks it as: this API's document, hand-written rules kept. */
export function checkedDocument(doc: Json): SuiteDocument {
  return suiteDocument(doc, "a copy of generated/openapi.json with contacts and usage", true);
}
