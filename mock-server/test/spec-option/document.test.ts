/**
 * Another document made servable: normalised to OpenAPI 3.1 (nullable, exclusive bounds, examples),
 * refused with one clear line when it is no OpenAPI 3.0/3.1 document, served under its first server
 * URL's path, every operation named, and compiled at run time into the table `npm run generate` makes
 * for the kit's spec (the same validators, judging alike).
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../core/compile-spec.js";
import { basePathOf, derivedOperationId, normalizeDocument } from "../../core/openapi-document.js";
import { generatedSpec } from "../../core/spec.js";

const legacy = {
  openapi: "3.0.3",
  info: { title: "Legacy", version: "1" },
  servers: [{ url: "https://legacy.test/api/{version}", variables: { version: { default: "v2" } } }],
  paths: {
    "/things": {
      get: {
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 0, exclusiveMinimum: true, default: 10 } },
        ],
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                example: [],
                schema: { type: "array", items: { $ref: "#/components/schemas/Thing" } },
              },
            },
          },
        },
      },
      post: {
        operationId: "makeThing",
        requestBody: {
          required: true,
          content: {
            "application/xml": { schema: { type: "object" } },
            "application/merge-patch+json": { schema: { $ref: "#/components/schemas/Thing" } },
          },
        },
        responses: {
          "201": {
            description: "made",
            content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
          default: { description: "error" },
        },
      },
    },
    "/things/{thingId}/parts": {
      delete: {
        parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "integer" } }],
        responses: { "204": { description: "gone" } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", nullable: true, example: "bolt" },
          kind: { type: "string", enum: ["a", "b"], nullable: true },
          size: { type: "number", maximum: 5, exclusiveMaximum: true },
          phone: { type: "string", format: "phone" },
        },
      },
    },
  },
};

describe("normalizeDocument", () => {
  it("brings a 3.0 document to 3.1: null types, a nullable enum's null, numeric exclusive bounds, examples kept", () => {
    const doc = normalizeDocument(legacy);
    expect(doc.openapi).toMatch(/^3\.1\./);
    const thing = doc.components.schemas.Thing.properties;
    expect(thing.name).toEqual({ type: ["string", "null"], examples: ["bolt"] });
    expect(thing.kind).toEqual({ type: ["string", "null"], enum: ["a", "b", null] });
    expect(thing.size).toEqual({ type: "number", exclusiveMaximum: 5 });
    expect(doc.paths["/things"].get.parameters[0].schema).toMatchObject({ exclusiveMinimum: 0 });
    expect(doc.paths["/things"].get.responses["200"].content["application/json"].examples).toEqual({
      default: { value: [] },
    });
    // The caller's document is left as it was.
    expect(legacy.components.schemas.Thing.properties.name.nullable).toBe(true);
  });

  it("names every operation without an operationId from its method and path, and keeps the given ones", () => {
    const doc = normalizeDocument(legacy);
    expect(doc.paths["/things"].get.operationId).toBe("getThings");
    expect(doc.paths["/things"].post.operationId).toBe("makeThing");
    expect(doc.paths["/things/{thingId}/parts"].delete.operationId).toBe("deleteThingsByThingIdParts");
    expect(derivedOperationId("get", "/pets/{id}")).toBe("getPetsById");
    const clash = normalizeDocument({
      openapi: "3.1.0",
      paths: { "/pets": { get: { responses: {} }, post: { operationId: "getPets", responses: {} } } },
    });
    expect(clash.paths["/pets"].get.operationId).toBe("getPets2");
  });

  it("refuses Swagger 2.0, other versions and references to other files, saying why", () => {
    expect(() => normalizeDocument({ swagger: "2.0" })).toThrow(/Swagger 2\.0 is not served.*OpenAPI 3\.0 and 3\.1/);
    expect(() => normalizeDocument({ openapi: "3.2.0" })).toThrow(/OpenAPI 3\.2\.0 is not served/);
    expect(() => normalizeDocument({ info: {} })).toThrow(/Not an OpenAPI document/);
    expect(() => normalizeDocument("openapi: 3.1.0")).toThrow(/must be an object/);
    expect(() => normalizeDocument({ openapi: "3.1.0", paths: { "/a": { $ref: "paths/a.yaml" } } })).toThrow(
      /another file \(\$ref: paths\/a\.yaml\)/,
    );
  });
});

describe("basePathOf", () => {
  it("is the path of the first server URL, its variables at their defaults", () => {
    expect(basePathOf({ servers: [{ url: "https://petstore3.swagger.io/api/v3" }] })).toBe("/api/v3");
    expect(basePathOf({ servers: [{ url: "/api/v3/" }] })).toBe("/api/v3");
    expect(basePathOf(legacy)).toBe("/api/v2");
    expect(basePathOf(generatedSpec().document)).toBe("");
    expect(basePathOf({ servers: [{ url: "https://api.test" }] })).toBe("");
    expect(basePathOf({})).toBe("");
  });
});

describe("compileSpec", () => {
  it("compiles the table npm run generate makes: params coerced with defaults, the JSON-like body, responses by status", () => {
    const spec = compileSpec(legacy);
    expect(spec.origin).toEqual({ kind: "document", basePath: "/api/v2" });
    const { operationValidators, schemaValidators } = spec.validators;
    const list = operationValidators.getThings;
    const params: { path: object; query: Record<string, unknown> } = { path: {}, query: {} };
    expect(list.params(params)).toBe(true);
    expect(params.query.limit).toBe(10);
    expect(list.params({ path: {}, query: { limit: "0" } })).toBe(false);
    // The merge-patch body counts (a +json type), not the XML one listed first.
    expect(operationValidators.makeThing.body!({ name: null, kind: null, size: 4.9 })).toBe(true);
    expect(operationValidators.makeThing.body!({ name: "x", size: 5 })).toBe(false);
    expect(operationValidators.makeThing.body!({ name: "x", kind: "c" })).toBe(false);
    // An unknown format is an annotation; a problem+json response is checked like JSON.
    expect(operationValidators.makeThing.responses["201"]!({ name: "x", phone: "anything" })).toBe(true);
    expect(operationValidators.makeThing.responses.default).toBeNull();
    expect(operationValidators.deleteThingsByThingIdParts.responses["204"]).toBeNull();
    expect(schemaValidators.Thing({})).toBe(false);
  });

  it("requires a readOnly property in answers only, and a writeOnly one in requests only", () => {
    const account = {
      type: "object",
      required: ["id", "name", "password"],
      properties: {
        id: { type: "integer", readOnly: true },
        name: { type: "string" },
        password: { $ref: "#/components/schemas/Secret" },
      },
    };
    const { operationValidators, schemaValidators } = compileSpec({
      openapi: "3.1.0",
      paths: {
        "/accounts": {
          post: {
            requestBody: { content: { "application/json": { schema: account } } },
            responses: { "201": { description: "made", content: { "application/json": { schema: account } } } },
          },
        },
      },
      components: { schemas: { Secret: { type: "string", writeOnly: true }, Account: account } },
    }).validators;
    const create = operationValidators.postAccounts;
    expect(create.body!({ name: "ann", password: "pw" })).toBe(true);
    expect(create.body!({ name: "ann" })).toBe(false);
    expect(create.responses["201"]!({ id: 1, name: "ann" })).toBe(true);
    expect(create.responses["201"]!({ name: "ann" })).toBe(false);
    expect(schemaValidators.Account({ id: 1, name: "ann" })).toBe(true);
  });

  it("judges the kit's own spec as the generated validators do", () => {
    const bundled = generatedSpec();
    const compiled = compileSpec(bundled.document).validators;
    const samples: [string, unknown][] = [
      ["createIntegration", { name: "Support line", provider: "twilio" }],
      ["createIntegration", { name: "" }],
      ["createIntegration", {}],
    ];
    for (const [id, body] of samples)
      expect(compiled.operationValidators[id].body!(body)).toBe(bundled.validators.operationValidators[id].body!(body));
    expect(Object.keys(compiled.operationValidators).sort()).toEqual(
      Object.keys(bundled.validators.operationValidators).sort(),
    );
    expect(Object.keys(compiled.schemaValidators).sort()).toEqual(
      Object.keys(bundled.validators.schemaValidators).sort(),
    );
  });
});
