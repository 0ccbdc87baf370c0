/** Leveled validators of any document, cached per document object; and the operation table they read. */
import { describe, expect, it } from "vitest";
import { STATUS_TEXT } from "../errors.js";
import { leveledValidators } from "./leveled-validators.js";
import { operationTable, REFERENCE_STATUS_TEXT } from "./operation-table.js";

/** A document of its own: the rules are not bound to the bundled spec. */
const doc = {
  openapi: "3.1.0",
  paths: {
    "/things/{thingId}": {
      parameters: [{ $ref: "#/components/parameters/ThingId" }],
      put: {
        operationId: "putThing",
        parameters: [
          { name: "mode", in: "query", required: true, schema: { type: "string", enum: ["a", "b"] } },
          {
            name: "hint",
            in: "query",
            required: true,
            "x-assumption": "required by the kit only",
            schema: { type: "integer" },
          },
        ],
        requestBody: { $ref: "#/components/requestBodies/Thing" },
        responses: { "200": { $ref: "#/components/responses/Thing" }, "204": { description: "nothing" } },
      },
    },
  },
  components: {
    parameters: { ThingId: { name: "thingId", in: "path", required: true, schema: { type: "string", minLength: 2 } } },
    requestBodies: {
      Thing: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } },
    },
    responses: {
      Thing: {
        description: "a thing",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
      },
    },
    schemas: {
      Thing: {
        type: "object",
        required: ["name", "colour"],
        properties: {
          name: { type: "string" },
          colour: { type: "string", enum: ["red"], "x-assumption": "the kit's colours" },
        },
      },
    },
  },
};

describe("operationTable", () => {
  const op = operationTable(doc).get("putThing")!;

  it("follows $refs to where responses, request bodies and parameters sit", () => {
    expect(op.bodySchemas).toEqual({
      "200": "/components/responses/Thing/content/application~1json/schema",
      "204": undefined,
    });
    expect(op.requestSchemaPointer).toBe("/components/requestBodies/Thing/content/application~1json/schema");
    expect(op.requestBodyRequired).toBe(true);
    expect(op.parameterPointers).toEqual([
      "/components/parameters/ThingId",
      "/paths/~1things~1{thingId}/put/parameters/0",
      "/paths/~1things~1{thingId}/put/parameters/1",
    ]);
    expect(op.parameters.map((p) => p.name)).toEqual(["thingId", "mode", "hint"]);
  });

  it("is built once per document object", () => expect(operationTable(doc)).toBe(operationTable(doc)));

  it("holds the reference's status texts, spelled as the mock spells them", () => {
    expect(Object.keys(REFERENCE_STATUS_TEXT).map(Number)).toEqual([400, 401, 403, 404, 413, 415, 500]);
    for (const [status, text] of Object.entries(REFERENCE_STATUS_TEXT)) expect(STATUS_TEXT[Number(status)]).toBe(text);
  });
});

describe("leveledValidators", () => {
  const validators = leveledValidators(doc);

  it("compiles each validator once per document object", () => {
    expect(leveledValidators(doc)).toBe(validators);
    expect(validators.validatorFor("/components/schemas/Thing", "assumed")).toBe(
      validators.validatorFor("/components/schemas/Thing", "assumed"),
    );
    expect(leveledValidators(structuredClone(doc))).not.toBe(validators);
  });

  it("relaxes what an x-assumption adds at level documented, and closes objects at level assumed", () => {
    const documented = validators.validatorFor("/components/schemas/Thing", "documented");
    const assumed = validators.validatorFor("/components/schemas/Thing", "assumed");
    expect(documented({ name: "n" })).toBe(true);
    expect(documented({ name: "n", colour: "blue", extra: 1 })).toBe(true);
    expect(assumed({ name: "n" })).toBe(false);
    expect(assumed({ name: "n", colour: "red" })).toBe(true);
    expect(assumed({ name: "n", colour: "red", extra: 1 })).toBe(false);
    // The document itself is left as it was.
    expect(doc.components.schemas.Thing.required).toEqual(["name", "colour"]);
  });

  it("validates parameters as strings coerced to their types, path ones always required", () => {
    const op = operationTable(doc).get("putThing")!;
    const documented = validators.parametersValidator(op, "documented");
    const assumed = validators.parametersValidator(op, "assumed");
    const missing = { path: {}, query: { mode: "a" } };
    expect(documented(structuredClone(missing))).toBe(false);
    expect(documented.errors?.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(["/path required"]);
    expect(documented({ path: { thingId: "t1" }, query: { mode: "a" } })).toBe(true);
    expect(assumed({ path: { thingId: "t1" }, query: { mode: "a" } })).toBe(false);
    expect(assumed({ path: { thingId: "t1" }, query: { mode: "a", hint: "3" } })).toBe(true);
    expect(assumed({ path: { thingId: "t1" }, query: { mode: "c", hint: "x" } })).toBe(false);
    expect(assumed.errors?.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual([
      "/query/mode enum",
      "/query/hint type",
    ]);
  });
});
