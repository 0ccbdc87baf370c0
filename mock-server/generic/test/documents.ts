/**
 * Throwaway documents the generic layer's tests serve: this repo's spec with a collection and an
 * operation added (as a spec author would), a Petstore-like OpenAPI 3.0 document (integer ids, PUT
 * with the id in the body, plain arrays) and an OpenAPI 3.1 one (uuid ids, PATCH, a limit/offset
 * wrapper, problem+json errors).
 */
import bundled from "../../../generated/openapi-document.js";
import { referenceOnly } from "../../../scripts/test/lib/reference-operations.js";

const json = (schema: unknown) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });

/**
 * The kit's spec plus voice profiles (a collection in the 2.1 page wrapper), a usage report and a preview.
 * The kit's spec is the reference's 17 operations: what a spec author has added to spec/ is left out, so
 * these tests see the same document whatever spec/ holds.
 */
export function kitWithVoiceProfiles(options: { recordRule?: boolean } = {}): any {
  const doc: any = referenceOnly(bundled);
  if (options.recordRule === false) delete doc["x-record-rule"];
  const properties = {
    name: { type: "string", minLength: 1, maxLength: 100 },
    language: { type: "string", enum: ["en", "de", "fr"] },
    description: { type: "string", maxLength: 500 },
    tags: { type: "array", items: { type: "string", minLength: 1 } },
    speed: { type: "number", minimum: 0.5, maximum: 2 },
  };
  Object.assign(doc.components.schemas, {
    VoiceProfile: {
      type: "object",
      required: ["voiceProfileId", "name", "language", "description", "tags", "speed", "createdAt", "updatedAt"],
      properties: {
        voiceProfileId: ref("Identifier"),
        ...properties,
        description: { type: ["string", "null"], maxLength: 500 },
        speed: { type: "number", minimum: 0.5, maximum: 2, default: 1 },
        createdAt: ref("Timestamp"),
        updatedAt: ref("Timestamp"),
      },
    },
    VoiceProfileCreate: { type: "object", required: ["name", "language"], additionalProperties: false, properties },
    VoiceProfileUpdate: { type: "object", additionalProperties: false, properties },
    VoiceProfilePage: {
      allOf: [
        ref("PageMeta"),
        {
          type: "object",
          required: ["data", "totalCount"],
          properties: { data: { type: "array", items: ref("VoiceProfile") }, totalCount: ref("TotalCount") },
        },
      ],
    },
  });
  const id = { name: "voiceProfileId", in: "path", required: true, schema: ref("Identifier") };
  doc.paths["/v1/voice-profiles"] = {
    get: {
      operationId: "listVoiceProfiles",
      tags: ["Agents"],
      parameters: [
        { name: "language", in: "query", schema: { type: "string", enum: ["en", "de", "fr"] } },
        { $ref: "#/components/parameters/Page" },
        { $ref: "#/components/parameters/Size" },
      ],
      responses: {
        "200": { description: "A page", content: json(ref("VoiceProfilePage")) },
        "400": error("Invalid parameters"),
      },
    },
    post: {
      operationId: "createVoiceProfile",
      tags: ["Agents"],
      requestBody: { required: true, content: json(ref("VoiceProfileCreate")) },
      responses: {
        "201": { description: "Created", content: json(ref("VoiceProfile")) },
        "400": error("Invalid body"),
      },
    },
  };
  doc.paths["/v1/voice-profiles/{voiceProfileId}"] = {
    parameters: [id],
    get: {
      operationId: "getVoiceProfile",
      tags: ["Agents"],
      responses: { "200": { description: "One", content: json(ref("VoiceProfile")) }, "404": error("Unknown") },
    },
    patch: {
      operationId: "updateVoiceProfile",
      tags: ["Agents"],
      requestBody: { required: true, content: json(ref("VoiceProfileUpdate")) },
      responses: {
        "200": { description: "Changed", content: json(ref("VoiceProfile")) },
        "400": error("Invalid body"),
        "404": error("Unknown"),
      },
    },
    delete: {
      operationId: "deleteVoiceProfile",
      tags: ["Agents"],
      responses: { "204": { description: "Deleted" }, "404": error("Unknown") },
    },
  };
  doc.paths["/v1/voice-profiles/{voiceProfileId}/preview"] = {
    parameters: [id],
    post: {
      operationId: "previewVoiceProfile",
      tags: ["Agents"],
      responses: {
        "200": {
          description: "A preview",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["audioUrl", "seconds"],
                properties: { audioUrl: { type: "string", format: "uri" }, seconds: { type: "integer", minimum: 1 } },
              },
              example: { audioUrl: "https://cdn.example.com/preview.mp3", seconds: 4 },
            },
          },
        },
        "404": error("Unknown"),
      },
    },
  };
  doc.paths["/v1/usage"] = {
    get: {
      operationId: "getUsage",
      tags: ["Calls"],
      parameters: [{ name: "month", in: "query", schema: { type: "string", pattern: "^20[0-9]{2}-(0[1-9]|1[0-2])$" } }],
      responses: {
        "200": {
          description: "Usage",
          content: json({
            type: "object",
            required: ["minutes", "calls", "period", "contact"],
            properties: {
              minutes: { type: "integer", minimum: 0 },
              calls: { type: "integer", minimum: 0, maximum: 100000 },
              period: {
                type: "object",
                required: ["from", "to"],
                properties: { from: { type: "string", format: "date" }, to: { type: "string", format: "date" } },
              },
              contact: {
                type: "object",
                required: ["email", "phone"],
                properties: { email: { type: "string", format: "email" }, phone: ref("E164") },
              },
              plan: { type: "string", enum: ["free", "team", "enterprise"] },
            },
          }),
        },
        "400": error("Invalid parameters"),
      },
    },
  };
  return doc;
}

/** A Petstore-like OpenAPI 3.0 document. */
export function petstore(): any {
  const Pet = {
    type: "object",
    required: ["name", "photoUrls"],
    properties: {
      id: { type: "integer", format: "int64", example: 10 },
      name: { type: "string", example: "doggie" },
      category: { $ref: "#/components/schemas/Category" },
      photoUrls: { type: "array", items: { type: "string" } },
      tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } },
      status: { type: "string", enum: ["available", "pending", "sold"] },
    },
  };
  const pet = { description: "ok", content: json(ref("Pet")) };
  const petId = { name: "petId", in: "path", required: true, schema: { type: "integer", format: "int64" } };
  return {
    openapi: "3.0.3",
    info: { title: "Pets", version: "1" },
    servers: [{ url: "https://petstore.example.com/api/v3" }],
    paths: {
      "/pet": {
        post: {
          operationId: "addPet",
          requestBody: { required: true, content: json(ref("Pet")) },
          responses: { "200": pet, "405": { description: "Invalid input" } },
        },
        put: {
          operationId: "updatePet",
          requestBody: { required: true, content: json(ref("Pet")) },
          responses: { "200": pet, "400": { description: "Invalid ID" }, "404": { description: "Not found" } },
        },
      },
      "/pet/findByStatus": {
        get: {
          operationId: "findPetsByStatus",
          parameters: [
            {
              name: "status",
              in: "query",
              schema: { type: "string", enum: ["available", "pending", "sold"], default: "available" },
            },
          ],
          responses: { "200": { description: "ok", content: json({ type: "array", items: ref("Pet") }) } },
        },
      },
      "/pet/{petId}": {
        get: {
          operationId: "getPetById",
          parameters: [petId],
          responses: { "200": pet, "400": { description: "Invalid ID" }, "404": { description: "Not found" } },
        },
        post: {
          operationId: "updatePetWithForm",
          parameters: [petId, { name: "name", in: "query", schema: { type: "string" } }],
          responses: { "200": pet, "405": { description: "Invalid input" } },
        },
        delete: {
          operationId: "deletePet",
          parameters: [petId],
          responses: { "200": { description: "Deleted" }, "400": { description: "Invalid pet value" } },
        },
      },
      "/store/order": {
        post: {
          operationId: "placeOrder",
          requestBody: { content: json(ref("Order")) },
          responses: { "200": { description: "ok", content: json(ref("Order")) }, "409": { description: "Exists" } },
        },
      },
      "/store/order/{orderId}": {
        parameters: [{ name: "orderId", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
        get: {
          operationId: "getOrderById",
          responses: { "200": { description: "ok", content: json(ref("Order")) }, "404": { description: "Not found" } },
        },
        delete: { operationId: "deleteOrder", responses: { "204": { description: "Deleted" } } },
      },
      "/user/login": {
        get: {
          operationId: "loginUser",
          parameters: [
            { name: "username", in: "query", schema: { type: "string" } },
            { name: "password", in: "query", schema: { type: "string" } },
          ],
          responses: { "200": { description: "ok", content: json({ type: "string" }) } },
        },
      },
      "/user/logout": { get: { operationId: "logoutUser", responses: { "200": { description: "ok" } } } },
    },
    components: {
      schemas: {
        Order: {
          type: "object",
          properties: {
            id: { type: "integer", format: "int64" },
            petId: { type: "integer", format: "int64" },
            quantity: { type: "integer", format: "int32" },
            shipDate: { type: "string", format: "date-time" },
            status: { type: "string", enum: ["placed", "approved", "delivered"] },
            complete: { type: "boolean" },
          },
        },
        Category: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } },
        Tag: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } },
        Pet,
      },
    },
  };
}

/** An OpenAPI 3.1 document: notes with uuid ids, PATCH, a limit/offset wrapper and problem+json errors. */
export function notes(): any {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: ref("Problem") } },
  });
  const writable = {
    title: { type: "string", minLength: 1, maxLength: 200 },
    body: { type: "string" },
    pinned: { type: "boolean" },
    tags: { type: "array", items: { type: "string" }, uniqueItems: true },
    author: {
      oneOf: [
        { type: "object", properties: { authorId: { type: "string" }, name: { type: "string" } } },
        { type: "null" },
      ],
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "Notes", version: "2" },
    servers: [{ url: "https://notes.example.com/v2" }],
    paths: {
      "/notes": {
        get: {
          operationId: "listNotes",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
            { name: "pinned", in: "query", schema: { type: "boolean" } },
            { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
            { name: "authorId", in: "query", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "Notes",
              content: json({
                type: "object",
                required: ["items", "total", "limit", "offset", "next"],
                properties: {
                  items: { type: "array", items: ref("Note") },
                  total: { type: "integer" },
                  limit: { type: "integer" },
                  offset: { type: "integer" },
                  next: { type: ["string", "null"], format: "uri" },
                },
              }),
            },
            default: problem("Failure"),
          },
        },
        post: {
          operationId: "createNote",
          requestBody: {
            required: true,
            content: json({ type: "object", required: ["title"], additionalProperties: false, properties: writable }),
          },
          responses: { "201": { description: "Created", content: json(ref("Note")) }, default: problem("Failure") },
        },
      },
      "/notes/{noteId}": {
        parameters: [{ name: "noteId", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        get: {
          operationId: "getNote",
          responses: { "200": { description: "A note", content: json(ref("Note")) }, "404": problem("No note") },
        },
        patch: {
          operationId: "updateNote",
          requestBody: {
            required: true,
            content: json({ type: "object", additionalProperties: false, properties: writable }),
          },
          responses: { "200": { description: "Changed", content: json(ref("Note")) }, "404": problem("No note") },
        },
        delete: {
          operationId: "deleteNote",
          responses: { "204": { description: "Deleted" }, "404": problem("No note") },
        },
      },
      "/notes/{noteId}/share": {
        parameters: [{ name: "noteId", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        post: {
          operationId: "shareNote",
          responses: {
            "200": {
              description: "A link",
              content: json({
                type: "object",
                required: ["url", "expiresAt", "code"],
                properties: {
                  url: { type: "string", format: "uri" },
                  expiresAt: { type: "string", format: "date-time" },
                  code: { type: "string", pattern: "^[A-Z]{4}-[0-9]{4}$" },
                },
              }),
            },
            "404": problem("No note"),
          },
        },
      },
    },
    components: {
      schemas: {
        Note: {
          type: "object",
          required: ["id", "title", "pinned", "tags", "createdAt", "updatedAt"],
          properties: {
            id: { type: "string", format: "uuid", readOnly: true },
            ...writable,
            pinned: { type: "boolean", default: false },
            archivedAt: { type: ["string", "null"], format: "date-time" },
            createdAt: { type: "string", format: "date-time", readOnly: true },
            updatedAt: { type: "string", format: "date-time", readOnly: true },
          },
        },
        Problem: {
          type: "object",
          required: ["type", "title", "status"],
          properties: {
            type: { type: "string", format: "uri-reference" },
            title: { type: "string" },
            status: { type: "integer", minimum: 400, maximum: 599 },
            detail: { type: "string" },
          },
        },
      },
    },
  };
}
