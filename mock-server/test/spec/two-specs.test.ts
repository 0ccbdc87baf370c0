/**
 * Each mock owns its spec (Contract): two mocks with different specs in one process each route,
 * validate, answer /openapi.json, show /docs and check fault rules by their own, at the same time, and
 * a spec installed in one (as --watch does) leaves the other as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anchored, createOpenApiAjv, SPEC_ID } from "../../core/openapi-ajv.js";
import { generatedSpec, type GeneratedSpec } from "../../core/spec.js";
import type { CompiledValidator } from "../../core/validation.js";
import { startMock, type RunningMock } from "../../server.js";

/**
 * The bundled spec with /v1/chat gone, integration names of 20 characters at most (its body validator
 * compiled here, as `npm run generate` would), and its own description.
 */
function narrowedSpec(): GeneratedSpec {
  const bundled = generatedSpec();
  const document = structuredClone(bundled.document);
  delete (document.paths as Record<string, unknown>)["/v1/chat"];
  (document.info as { description: string }).description = "The narrowed spec";
  const schemas = document.components.schemas as Record<string, any>;
  schemas.IntegrationCreate.properties.name.maxLength = 20;
  const ajv = createOpenApiAjv({ discriminator: true });
  ajv.addSchema(anchored(document) as object, SPEC_ID);
  const body = ajv.compile(anchored({ $ref: "#/components/schemas/IntegrationCreate" }) as object);
  const { operationValidators, schemaValidators } = bundled.validators;
  return {
    document,
    validators: {
      operationValidators: {
        ...operationValidators,
        createIntegration: { ...operationValidators.createIntegration, body: body as CompiledValidator },
      },
      schemaValidators,
    },
  };
}

const LONG_NAME = "A name of twenty-one!";

describe("two mocks with different specs in one process", () => {
  const logs: string[] = [];
  let bundled: RunningMock;
  let narrowed: RunningMock;

  beforeAll(async () => {
    const log = (line: string) => void logs.push(line);
    [bundled, narrowed] = await Promise.all([startMock({ log }), startMock({ log, spec: narrowedSpec() })]);
  });
  afterAll(async () => {
    await Promise.all([bundled?.close(), narrowed?.close()]);
  });

  const send = (mock: RunningMock, method: string, path: string, body?: unknown) =>
    fetch(mock.url + path, {
      method,
      headers: { "X-API-Key": mock.apiKey, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async (response: Promise<Response>) => {
    const res = await response;
    return { status: res.status, body: (await res.json()) as any };
  };

  it("validates each request by its own mock's spec", async () => {
    const [accepted, refused] = await Promise.all(
      [bundled, narrowed].map((mock) => json(send(mock, "POST", "/v1/integrations", { name: LONG_NAME }))),
    );
    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors.name).toMatch(/more than 20 characters/);
  });

  it("routes by its own mock's spec, and serves that spec as /openapi.json and in /docs", async () => {
    const [chat, noChat] = await Promise.all([bundled, narrowed].map((mock) => send(mock, "POST", "/v1/chat")));
    expect(chat.status).toBe(400);
    expect(noChat.status).toBe(404);
    const [bundledSpec, narrowedDocument] = await Promise.all(
      [bundled, narrowed].map(async (mock) => (await json(send(mock, "GET", "/openapi.json"))).body),
    );
    expect(bundledSpec.info.description).toBe((generatedSpec().document.info as { description: string }).description);
    expect(narrowedDocument.info.description).toBe("The narrowed spec");
    const [bundledDocs, narrowedDocs] = await Promise.all(
      [bundled, narrowed].map(async (mock) => (await json(send(mock, "GET", "/docs/openapi.json"))).body),
    );
    expect(bundledDocs.paths["/v1/chat"]).toBeDefined();
    expect(narrowedDocs.paths["/v1/chat"]).toBeUndefined();
    expect(narrowedDocs.components.schemas.IntegrationCreate.properties.name.maxLength).toBe(20);
  });

  it("checks fault rules against its own mock's operations", async () => {
    const rule = { operationId: "createChat", kind: "reset", times: 1, workspaceId: "default" };
    const [made, refused] = await Promise.all(
      [bundled, narrowed].map((mock) => json(send(mock, "POST", "/__mock/faults", rule))),
    );
    expect(made.status).toBe(201);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors.operationId).toMatch(/must be an operation of the API/);
    expect((await send(bundled, "DELETE", `/__mock/faults/${made.body.faultId}`)).status).toBe(204);
  });

  it("installs a spec in one mock only", async () => {
    const narrowedContract = narrowed.mock.contract();
    const bundledContract = bundled.mock.contract();
    try {
      bundled.mock.installSpec(narrowedContract.spec);
      narrowed.mock.installSpec(bundledContract.spec);
      const [refused, accepted] = await Promise.all(
        [bundled, narrowed].map((mock) => json(send(mock, "POST", "/v1/integrations", { name: LONG_NAME }))),
      );
      expect(refused.status).toBe(400);
      expect(accepted.status).toBe(201);
      expect((await send(bundled, "POST", "/v1/chat")).status).toBe(404);
      expect((await json(send(narrowed, "GET", "/docs/openapi.json"))).body.paths["/v1/chat"]).toBeDefined();
    } finally {
      bundled.mock.installSpec(bundledContract.spec);
      narrowed.mock.installSpec(narrowedContract.spec);
    }
    expect((await send(bundled, "POST", "/v1/chat")).status).toBe(400);
    expect((await send(narrowed, "POST", "/v1/chat")).status).toBe(404);
  });

  it("logs no internal error", () => {
    expect(logs.filter((line) => /failed/.test(line))).toEqual([]);
  });
});
