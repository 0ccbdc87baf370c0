/**
 * generated/mock-control-validators.js (ajv standalone code for spec/mock-control.yaml, compiled at
 * `npm run generate`): one entry per control operation with the spec's method, path, parameters, body
 * and responses; verdicts and errors the same as validators compiled at run time from
 * generated/mock-control.json; and, like generated/validators.js, nothing required, imported or
 * evaluated from strings, so a browser under a strict CSP can load it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { controlOperations, type CompiledValidator } from "../../../generated/mock-control-validators.js";
import { anchored, createOpenApiAjv, SPEC_ID } from "../../../mock-server/core/openapi-ajv.js";
import { type JsonObject, derefObject, isObject, operationsOf, repoRoot } from "../lib/openapi-doc.js";

const spec = JSON.parse(readFileSync(path.join(repoRoot, "generated", "mock-control.json"), "utf8")) as JsonObject;
const source = readFileSync(path.join(repoRoot, "generated", "mock-control-validators.js"), "utf8");

const exact = createOpenApiAjv({ discriminator: true, coerceTypes: false, useDefaults: false });
const params = createOpenApiAjv({ discriminator: true, coerceTypes: true, useDefaults: true });
for (const ajv of [exact, params]) ajv.addSchema(anchored(spec) as object, SPEC_ID);

const operations = operationsOf(spec);
const byId = (id: string) => operations.find((o) => o.operation.operationId === id)!;
const generated = (id: string) => controlOperations.find((o) => o.operationId === id)!;

function bodySchema(operationId: string): unknown {
  const body = derefObject(spec, byId(operationId).operation.requestBody, "requestBody");
  return ((body.content as JsonObject)["application/json"] as JsonObject).schema;
}

/** Runs both validators on their own copies (params are validated in place). */
function both(standalone: CompiledValidator, runtime: CompiledValidator, data: unknown) {
  const [a, b] = [structuredClone(data), structuredClone(data)];
  return {
    standalone: { ok: standalone(a), errors: standalone.errors ?? null, data: a },
    runtime: { ok: runtime(b), errors: runtime.errors ?? null, data: b },
  };
}

describe("generated/mock-control-validators.js", () => {
  it("loads without require, import, eval, new Function or node: built-ins", () => {
    for (const text of ["require(", "new Function", "eval(", "node:"]) expect(source.includes(text), text).toBe(false);
    expect(source).not.toMatch(/^\s*import[\s{*("']/m);
    expect(source).not.toMatch(/\bimport\s*\(/);
  });

  it("has each operation of the spec once, with its method, path, parameters, body and responses", () => {
    expect(controlOperations.map((o) => o.operationId)).toEqual(operations.map((o) => o.operation.operationId));
    for (const { path: template, method, operation, parameters } of operations) {
      const entry = generated(operation.operationId as string);
      const list = parameters.map((p) => derefObject(spec, p, "parameter"));
      expect([entry.method, entry.path]).toEqual([method.toUpperCase(), template]);
      expect(entry.pathParams).toEqual(list.filter((p) => p.in === "path").map((p) => p.name));
      expect(entry.queryParams).toEqual(list.filter((p) => p.in === "query").map((p) => p.name));
      const body = operation.requestBody ? derefObject(spec, operation.requestBody, "requestBody") : undefined;
      expect(entry.body?.required).toBe(body ? Boolean(body.required) : undefined);
      expect(Object.keys(entry.responses).sort()).toEqual(Object.keys(operation.responses as JsonObject).sort());
      for (const [status, ref] of Object.entries(operation.responses as JsonObject)) {
        const content = derefObject(spec, ref, "response").content;
        const documented = isObject(content) && isObject(content["application/json"]);
        expect(entry.responses[status] === null, `${operation.operationId} ${status}`).toBe(!documented);
      }
    }
  });

  const bodies: Array<[string, string, unknown]> = [
    ["extra field", "createWorkspace", { seed: 1, colour: "red" }],
    ["seed out of range", "resetMock", { seed: -1 }],
    ["seconds missing, empty workspaceId", "advanceClock", { workspaceId: "" }],
    ["unevaluated property", "createFault", { status: 500, color: "red" }],
    ["latency of no form", "createFault", { latency: { distribution: "lognormal", medianMs: 100 } }],
    ["outcome with an extra field", "createRecord", { outcome: { status: "ended", extra: 1 } }],
    ["snapshot of an unknown collection", "importSnapshot", { widgets: [] }],
  ];

  it.each(bodies)("body: %s (%s) has the runtime's errors", (_, operationId, data) => {
    const result = both(
      generated(operationId).body!.validate,
      exact.compile(anchored(bodySchema(operationId)) as object),
      data,
    );
    expect(result.runtime.ok).toBe(false);
    expect(result.standalone).toEqual(result.runtime);
  });

  it("params: coerce query strings, refuse unknown and repeated names where there are filters, ignore others", () => {
    const listRequests = generated("listRequests").params;
    const valid = { path: {}, query: { status: "404", limit: "2" } };
    expect(listRequests(valid)).toBe(true);
    expect(valid.query).toEqual({ status: 404, limit: 2 });
    expect(listRequests({ path: {}, query: { colour: "red" } })).toBe(false);
    expect(listRequests.errors?.map((e) => [e.keyword, e.instancePath])).toEqual([["additionalProperties", "/query"]]);
    expect(listRequests({ path: {}, query: { method: ["GET", "POST"] } })).toBe(false);
    expect(listRequests.errors?.map((e) => [e.keyword, e.instancePath])).toEqual([["type", "/query/method"]]);
    expect(generated("getHealth").params({ path: {}, query: { t: "1" } })).toBe(true);
    expect(generated("listRecords").params({ path: { workspaceId: "w", collection: "widgets" }, query: {} })).toBe(
      false,
    );
  });

  it("responses: a documented body is checked, a bodiless status has none", () => {
    const clock = generated("getClock").responses["200"]!;
    expect(clock({ now: "2025-01-01T00:00:00Z", mode: "virtual", speed: 1, workspaceId: null })).toBe(true);
    expect(clock({ now: "yesterday", mode: "virtual", speed: 1, workspaceId: null })).toBe(false);
    expect(generated("clearFaults").responses["204"]).toBeNull();
  });
});
