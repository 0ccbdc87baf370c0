/**
 * generated/validators.js (ajv standalone code, compiled at `npm run generate`) against validators
 * compiled at run time the way the mock did (createOpenApiAjv + anchored): same verdicts, same errors,
 * since the mock turns those errors into the API's validationErrors. And the file stays loadable under a
 * strict CSP: nothing required, imported or evaluated from strings.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import document from "../../../generated/openapi-document.js";
import { operationValidators, schemaValidators, type CompiledValidator } from "../../../generated/validators.js";
import { anchored, createOpenApiAjv, SPEC_ID } from "../../../mock-server/core/openapi-ajv.js";
import {
  type Json,
  type JsonObject,
  deref,
  derefObject,
  isObject,
  operationsOf,
  repoRoot,
} from "../lib/openapi-doc.js";

const spec = JSON.parse(readFileSync(path.join(repoRoot, "generated", "openapi.json"), "utf8")) as JsonObject;
const source = readFileSync(path.join(repoRoot, "generated", "validators.js"), "utf8");

/** Today's runtime instances: "exact" is the mock's request and response ones, "params" coerces. */
const runtime: Record<"exact" | "params", Ajv2020> = {
  exact: createOpenApiAjv({ discriminator: true, coerceTypes: false, useDefaults: false }),
  params: createOpenApiAjv({ discriminator: true, coerceTypes: true, useDefaults: true }),
};
for (const ajv of Object.values(runtime)) ajv.addSchema(anchored(spec) as object, SPEC_ID);
const compile = (mode: "exact" | "params", schema: unknown) => runtime[mode].compile(anchored(schema) as object);

const operations = operationsOf(spec);
const byId = (id: string) => operations.find((o) => o.operation.operationId === id)!;
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** paramsSchema() as mock-server/http/operations.ts built it: path parameters always required. */
function paramsSchema(operationId: string) {
  const params = byId(operationId).parameters.map((p) => derefObject(spec, p, "parameter"));
  const part = (location: string) => {
    const own = params.filter((p) => p.in === location);
    return {
      type: "object",
      properties: Object.fromEntries(own.map((p) => [p.name, p.schema])),
      required: own.filter((p) => p.required || location === "path").map((p) => p.name),
    };
  };
  return { type: "object", properties: { path: part("path"), query: part("query") } };
}

function responseSchema(operationId: string, status: string): Json | undefined {
  const response = derefObject(spec, byId(operationId).operation.responses, "responses")[status];
  const media = derefObject(spec, response, "response").content;
  return isObject(media) && isObject(media["application/json"]) ? media["application/json"].schema : undefined;
}

/** Runs both validators on their own copies; the copies matter for params, validated in place. */
function both(standalone: CompiledValidator, runtimeValidator: CompiledValidator, data: unknown) {
  const [a, b] = [structuredClone(data), structuredClone(data)];
  const okA = standalone(a);
  const okB = runtimeValidator(b);
  return {
    standalone: { ok: okA, errors: standalone.errors ?? null, data: a },
    runtime: { ok: okB, errors: runtimeValidator.errors ?? null, data: b },
  };
}

/** Every named example of every response of every operation: [title, operationId, status, value]. */
const examples = operations.flatMap(({ operation }) =>
  Object.entries(operation.responses as JsonObject).flatMap(([status, ref]) => {
    const media = derefObject(spec, ref, "response").content;
    const json = isObject(media) && isObject(media["application/json"]) ? media["application/json"] : undefined;
    return Object.entries(isObject(json?.examples) ? json.examples : {}).map(
      ([name, ex]) =>
        [
          `${operation.operationId} ${status} ${name}`,
          operation.operationId as string,
          status,
          derefObject(spec, ex, "example").value,
        ] as const,
    );
  }),
);

describe("generated/validators.js", () => {
  it("loads without require, import, eval, new Function or node: built-ins", () => {
    for (const text of ["require(", "new Function", "eval(", "node:"]) expect(source.includes(text), text).toBe(false);
    expect(source).not.toMatch(/^\s*import[\s{*("']/m);
    expect(source).not.toMatch(/\bimport\s*\(/);
  });

  it("has a validator set for every operation under paths, and only those", () => {
    expect(Object.keys(operationValidators).sort()).toEqual(
      operations.map((o) => o.operation.operationId as string).sort(),
    );
    for (const { operation } of operations) {
      const validators = operationValidators[operation.operationId as string]!;
      expect(Object.keys(validators.responses).sort()).toEqual(Object.keys(operation.responses as JsonObject).sort());
      expect(validators.body === undefined).toBe(operation.requestBody === undefined);
    }
  });

  it("has a schemaValidators entry for every component schema", () => {
    expect(Object.keys(schemaValidators).sort()).toEqual(
      Object.keys((spec.components as JsonObject).schemas as JsonObject).sort(),
    );
  });

  it("openapi-document.js exports the same object as openapi.json", () => {
    expect(document).toEqual(spec);
  });

  it("covers response examples", () => expect(examples.length).toBeGreaterThan(50));

  it.each(examples)("example %s passes the standalone and the runtime validator", (_, operationId, status, value) => {
    const standalone = operationValidators[operationId]!.responses[status]!;
    const result = both(standalone, compile("exact", responseSchema(operationId, status)), value);
    expect(result.standalone.errors).toBeNull();
    expect(result.runtime.errors).toBeNull();
    expect(result.standalone.ok && result.runtime.ok).toBe(true);
  });
});

describe("errors are the runtime's", () => {
  const callExample = (() => {
    const page = examples.find(([, id, status]) => id === "listCalls" && status === "200")![3] as {
      data: JsonObject[];
    };
    return page.data[0]!;
  })();

  const bodies: Array<[string, string, unknown]> = [
    ["wrong discriminator value", "createIntegrationAuth", { authType: "OAUTH", token: "t" }],
    ["missing discriminator", "createIntegrationAuth", { token: "t" }],
    ["discriminator not a string", "createIntegrationAuth", { authType: 7 }],
    [
      "wrong enum inside a branch",
      "createIntegrationAuth",
      { authType: "API_KEY", apiKey: { key: "k", value: "v", position: "cookie" } },
    ],
    ["extra property in a branch", "createIntegrationAuth", { authType: "BEARER", token: "t", password: "p" }],
    ["missing required field", "createIntegration", { description: "no name" }],
    ["extra property", "createIntegration", { name: "n", colour: "red" }],
    ["not an object", "createIntegration", ["n"]],
    ["too few and duplicated items", "createBatchRun", { agentId: "a", testCases: [] }],
    ["duplicated items", "createBatchRun", { agentId: "a", testCases: ["x", "x"], extra: true }],
    ["variables of a wrong type", "createChat", { agentId: "a", variables: { n: null, o: {} } }],
    ["multipart fields", "createKnowledgeBase", { name: "" }],
  ];

  it.each(bodies)("body: %s (%s)", (_, operationId, data) => {
    const op = byId(operationId).operation;
    const body = derefObject(spec, op.requestBody, "requestBody");
    const schema = Object.values(body.content as JsonObject)[0] as JsonObject;
    const result = both(operationValidators[operationId]!.body!, compile("exact", schema.schema), data);
    expect(result.runtime.ok).toBe(false);
    expect(result.standalone).toEqual(result.runtime);
  });

  const params: Array<[string, string, unknown]> = [
    ["size=0, page=-1, status=bogus", "listCalls", { path: {}, query: { size: "0", page: "-1", status: "bogus" } }],
    ["int32 overflow", "listCalls", { path: {}, query: { page: "2147483648" } }],
    ["not a number", "listAgents", { path: {}, query: { page: "two", size: "1.5" } }],
    ["Infinity", "listAgents", { path: {}, query: { size: "Infinity" } }],
    ["boolean filter", "listWebhooks", { path: {}, query: { active: "maybe" } }],
    ["missing path parameter", "getCall", { path: {}, query: {} }],
    ["valid, with defaults filled", "listCalls", { path: {}, query: { status: "ended" } }],
  ];

  it.each(params)("params: %s (%s)", (_, operationId, data) => {
    const result = both(operationValidators[operationId]!.params, compile("params", paramsSchema(operationId)), data);
    expect(result.standalone).toEqual(result.runtime);
  });

  const documents: Array<[string, string, unknown]> = [
    ["int32 overflow", "AgentSettings", { remindersLimit: 2 ** 31 }],
    ["Infinity is no number", "Call", { ...callExample, duration: Infinity }],
    ["date-time format", "Call", { ...callExample, createdAt: "yesterday" }],
    ["wrong enum", "Call", { ...callExample, status: "paused" }],
    ["missing required field", "Call", Object.fromEntries(Object.entries(callExample).filter(([k]) => k !== "callId"))],
    ["null where not nullable", "IntegrationCreate", { name: null }],
    ["wrong discriminator value", "IntegrationAuthCreate", { authType: "DIGEST" }],
  ];

  it.each(documents)("schema: %s (%s)", (_, name, data) => {
    const result = both(schemaValidators[name]!, compile("exact", schemaRef(name)), data);
    expect(result.runtime.ok).toBe(false);
    expect(result.standalone).toEqual(result.runtime);
  });

  it("a response with an invalid body reports the runtime's errors", () => {
    const data = { ...callExample, callType: "fax", transcript: "hi" };
    const result = both(
      operationValidators.getCall!.responses["200"]!,
      compile("exact", responseSchema("getCall", "200")),
      data,
    );
    expect(result.runtime.ok).toBe(false);
    expect(result.standalone).toEqual(result.runtime);
  });

  it("a status documented without a body has a null validator", () => {
    expect(responseSchema("deleteQaRule", "204")).toBeUndefined();
    expect(operationValidators.deleteQaRule!.responses["204"]).toBeNull();
  });
});

describe("params coercion", () => {
  it("coerces page to a number and fills the documented default of size, in place", () => {
    const data = { path: {}, query: { page: "2" } as Record<string, unknown> };
    expect(operationValidators.listCalls!.params(data)).toBe(true);
    const size = (deref(spec, (spec.components as JsonObject).parameters) as JsonObject).Size as JsonObject;
    expect(data.query).toEqual({ page: 2, size: (size.schema as JsonObject).default });
    expect(data.query.size).toBe(10);
  });
});
