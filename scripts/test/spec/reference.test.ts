/**
 * The bundled spec (generated/openapi.json) against tables written from the reference
 * (../shared/seed/000_edf788907a642926.txt): operations E1 to E17, resources of section 2, the quirks,
 * and the x-assumption markers of every decision the reference leaves open.
 */
import { describe, expect, it } from "vitest";
import { fieldProblems, propertiesProblems } from "../lib/field-check.js";
import { objectParts } from "../lib/field-shape.js";
import {
  type Json,
  type JsonObject,
  assumptionOf,
  assumptions,
  atPointer,
  deref,
  derefObject,
  isObject,
  loadGenerated,
  operationsOf,
  pointer,
  refName,
} from "../lib/openapi-doc.js";
import { isReferenceOperation } from "../lib/reference-operations.js";
import { documentValidator } from "../lib/schema-validator.js";
import { decisions } from "../reference/decisions.js";
import { type FieldWant, CALL_STATUSES, TERMINATION_REASONS } from "../reference/fields.js";
import { operations } from "../reference/operations.js";
import { apiKeyObject, authVariants, resources } from "../reference/resources.js";

const doc = loadGenerated("openapi.json");
const validator = documentValidator(doc, "openapi.json");
const schemas = derefObject(doc, (doc.components as JsonObject).schemas, "components.schemas");
const fieldsProblems = (schemaAt: string, want: Record<string, FieldWant>): string[] =>
  propertiesProblems(doc, validator, schemaAt, want);

/** Where a (possibly $ref'd) node really lives, as a pointer without "#". */
function home(node: Json | undefined, fallback: string): string {
  return isObject(node) && typeof node.$ref === "string" ? node.$ref.replace(/^#/, "") : fallback;
}

describe("the document", () => {
  it("is OpenAPI 3.1.0, interface version 1.0 (section 9), served from {base_url} only (section 1)", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect((doc.info as JsonObject).version).toBe("1.0");
    const servers = doc.servers as JsonObject[];
    // The mock is not a server of the service: its docs page adds its own origin (issue 23).
    expect(servers.map((s) => s.url)).toEqual(["{base_url}"]);
    expect(servers[0].variables).toMatchObject({ base_url: { default: expect.any(String) } });
  });

  // Any other operation is a spec author's: the generic layer serves it, and it is none of this table's.
  it("has the 17 operations E1 to E17, each once, in 15 path items, all under /v1", () => {
    const reference = operationsOf(doc).filter((o) => isReferenceOperation(o.operation.operationId));
    const have = reference.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    const want = operations.map(([, { given }]) => `${given.method.toUpperCase()} ${given.path}`).sort();
    expect(have).toEqual(want);
    expect(new Set(reference.map((o) => o.path)).size).toBe(15);
    expect(reference.map((o) => o.path).filter((p) => !p.startsWith("/v1/"))).toEqual([]);
  });
});

describe.each(operations)("%s", (_name, { given, want }) => {
  const ops = operationsOf(doc).filter((o) => o.path === given.path && o.method === given.method);
  const at = pointer(["paths", given.path, given.method]);
  const op = ops[0]?.operation ?? {};

  it(`is ${given.method.toUpperCase()} ${given.path}, ${want.operationId}, tag ${want.tag}`, () => {
    expect(ops, at).toHaveLength(1);
    expect(op.operationId, `${at}/operationId`).toBe(want.operationId);
    expect(op.tags, `${at}/tags`).toEqual([want.tag]);
    expect(
      (doc.tags as JsonObject[]).map((t) => t.name),
      "declared tags",
    ).toContain(want.tag);
    expect(typeof op.summary === "string" && op.summary.length > 0, `${at}/summary`).toBe(true);
    expect(typeof op.description === "string" && op.description.length > 0, `${at}/description`).toBe(true);
    if (want.assumed) expect(assumptionOf(doc, op), `${at}/x-assumption`).toBeTruthy();
  });

  it(`answers ${want.success} on success and ${want.errors.join(", ")} with the error body`, () => {
    const responses = derefObject(doc, op.responses, `${at}/responses`);
    expect(Object.keys(responses).sort(), `${at}/responses`).toEqual([want.success, ...want.errors].sort());
    const success = derefObject(doc, responses[want.success], `${at}/responses/${want.success}`);
    if (want.response === null) {
      expect(success.content, `${at}/responses/${want.success} has no content`).toBeUndefined();
    } else {
      const content = derefObject(doc, success.content, `${at}/responses/${want.success}/content`);
      expect(Object.keys(content), `${at}/responses/${want.success}/content`).toEqual(["application/json"]);
      expect(refName((content["application/json"] as JsonObject).schema), `${at} success schema`).toBe(want.response);
    }
    for (const status of want.errors) {
      const response = derefObject(doc, responses[status], `${at}/responses/${status}`);
      const content = derefObject(doc, response.content, `${at}/responses/${status}/content`);
      expect(Object.keys(content), `${at}/responses/${status}/content`).toEqual(["application/json"]);
      expect(refName((content["application/json"] as JsonObject).schema), `${at}/responses/${status} schema`).toBe(
        "Error",
      );
    }
  });

  it(`takes the parameters ${Object.keys(want.parameters).join(", ") || "(none)"}`, () => {
    const params = (ops[0]?.parameters ?? []).map((p, i) => ({
      param: derefObject(doc, p, `${at}/parameters/${i}`),
      schemaAt: `${home(p, `${at}/parameters/${i}`)}/schema`,
    }));
    expect(params.map(({ param }) => param.name).sort(), `${at} parameter names`).toEqual(
      Object.keys(want.parameters).sort(),
    );
    const problems: string[] = [];
    for (const { param, schemaAt } of params) {
      const w = want.parameters[String(param.name)];
      if (!w) continue;
      if (param.in !== w.in) problems.push(`${schemaAt}: in is ${String(param.in)}, the reference says ${w.in}`);
      const { assumed, ...schemaWant } = w;
      problems.push(
        ...fieldProblems(doc, validator, schemaWant, {
          node: param.schema,
          at: schemaAt,
          required: param.required === true,
        }),
      );
      if (assumed && !assumptionOf(doc, param) && !assumptionOf(doc, param.schema)) {
        problems.push(`${schemaAt}: the reference leaves this parameter open; x-assumption expected`);
      }
    }
    expect(problems).toEqual([]);
  });

  it(want.body ? `takes a ${want.body.media} body of ${want.body.schema}` : "takes no body", () => {
    if (!want.body) {
      expect(op.requestBody, `${at}/requestBody`).toBeUndefined();
      return;
    }
    const body = derefObject(doc, op.requestBody, `${at}/requestBody`);
    const content = derefObject(doc, body.content, `${at}/requestBody/content`);
    expect(Object.keys(content), `${at}/requestBody/content`).toEqual([want.body.media]);
    expect(refName((content[want.body.media] as JsonObject).schema), `${at}/requestBody schema`).toBe(want.body.schema);
  });

  it("requires the X-API-Key header (section 5)", () => {
    const security = (op.security ?? doc.security) as Json[];
    expect(Array.isArray(security) && security.length > 0, `${at}/security`).toBe(true);
    for (const requirement of security)
      expect(Object.keys(requirement as JsonObject), `${at}/security`).toEqual(["ApiKeyAuth"]);
  });
});

describe.each(resources)("%s", (_name, { given, want }) => {
  const at = pointer(["components", "schemas", given]);
  it(`${given} has every field of the reference, as the reference types it`, () => {
    expect(schemas[given], at).toBeDefined();
    expect(fieldsProblems(at, want.fields)).toEqual([]);
    if (want.assumed) expect(assumptionOf(doc, schemas[given]), `${at}/x-assumption`).toBeTruthy();
  });
});

describe("2.5 creation payload of integration auth (E5)", () => {
  const union = derefObject(doc, schemas.IntegrationAuthCreate, "IntegrationAuthCreate");

  it("is one variant per authType", () => {
    expect((union.oneOf as Json[]).map(refName).sort()).toEqual(authVariants.map(([, { given }]) => given).sort());
    expect((union.discriminator as JsonObject).propertyName).toBe("authType");
  });

  it.each(authVariants)("%s requires what the reference says", (authType, { given, want }) => {
    const at = pointer(["components", "schemas", given]);
    const variant = derefObject(doc, schemas[given], at);
    expect((variant.properties as JsonObject).authType, `${at}/properties/authType`).toMatchObject({ const: authType });
    expect([...(variant.required as string[])].sort(), `${at}/required`).toEqual([...want.required].sort());
    expect(fieldsProblems(at, want.fields)).toEqual([]);
  });

  it("has the apiKey object {key, value, position header|query}", () => {
    expect(fieldsProblems("/components/schemas/ApiKeyAuthCreate/properties/apiKey", apiKeyObject)).toEqual([]);
  });

  it.each([
    ["BEARER without token", { authType: "BEARER" }],
    ["BASIC without password", { authType: "BASIC", username: "u" }],
    ["API_KEY without apiKey", { authType: "API_KEY" }],
    ["API_KEY with position body", { authType: "API_KEY", apiKey: { key: "k", value: "v", position: "body" } }],
    ["an unknown authType", { authType: "OAUTH" }],
  ])("refuses %s", (_name, given) => {
    expect(validator.errors("/components/schemas/IntegrationAuthCreate", given)).not.toEqual([]);
  });
});

describe("quirks the spec keeps", () => {
  it("names the total totalCounts in the phone number list only", () => {
    // Among the reference's schemas: a page a spec author adds names its total as the author likes.
    const reached = referenceSchemas();
    const named = (total: string) =>
      Object.keys(schemas).filter((name) => reached.has(name) && total in objectParts(doc, schemas[name]).properties);
    const withTotalCounts = named("totalCounts");
    const withTotalCount = named("totalCount");
    expect(withTotalCounts).toEqual(["PhoneNumberPage"]);
    expect(withTotalCount.sort()).toEqual(["AgentPage", "CallPage", "TestRunPage", "WebhookPage"]);
  });

  it("types webhook events as a string in the webhook list and an array in agentSettings.webhooks", () => {
    expect(atPointer(doc, "/components/schemas/Webhook/properties/events")).toMatchObject({ type: "string" });
    expect(atPointer(doc, "/components/schemas/AgentWebhook/properties/events")).toMatchObject({
      type: "array",
      items: { type: "string" },
    });
    expect(refName(atPointer(doc, "/components/schemas/AgentSettings/properties/webhooks/items"))).toBe("AgentWebhook");
  });

  it("keeps the singular /v1/phone-number path", () => {
    const paths = Object.keys(doc.paths as JsonObject);
    expect(paths).toEqual(expect.arrayContaining(["/v1/phone-number", "/v1/phone-number/{phoneNumber}"]));
    expect(paths.filter((p) => p.startsWith("/v1/phone-numbers"))).toEqual([]);
  });

  it("lists all 20 termination reasons and the 5 call statuses", () => {
    expect(TERMINATION_REASONS).toHaveLength(20);
    expect((schemas.TerminationReason as JsonObject).enum).toEqual(TERMINATION_REASONS);
    expect((schemas.CallStatus as JsonObject).enum).toEqual(CALL_STATUSES);
  });

  it("defines X-API-Key as the one security scheme, required by default", () => {
    const schemes = derefObject(doc, (doc.components as JsonObject).securitySchemes, "securitySchemes");
    expect(schemes).toEqual({
      ApiKeyAuth: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    });
    expect(doc.security).toEqual([{ ApiKeyAuth: [] }]);
  });

  it("describes the signed conversation_started delivery in the top-level webhooks", () => {
    const [delivery] = operationsOf(doc, "webhooks").filter((o) => o.path === "conversation_started");
    expect(delivery?.method).toBe("post");
    const headers = (delivery?.parameters ?? [])
      .map((p) => derefObject(doc, p, "parameter"))
      .filter((p) => p.in === "header");
    const signature = headers.find((p) => /signature/i.test(String(p.name)));
    expect(signature, "a signature header").toMatchObject({ required: true });
    const body = derefObject(doc, delivery?.operation.requestBody, "requestBody");
    expect(Object.keys(body.content as JsonObject)).toEqual(["application/json"]);
  });

  it("expresses null with 3.1 type arrays or oneOf, never the 3.0 nullable keyword", () => {
    const found: string[] = [];
    const visit = (node: Json, at: (string | number)[]): void => {
      if (Array.isArray(node)) node.forEach((v, i) => visit(v, [...at, i]));
      else if (isObject(node)) {
        if ("nullable" in node && at.includes("schemas")) found.push(pointer(at));
        for (const [k, v] of Object.entries(node)) if (k !== "examples" && k !== "example") visit(v, [...at, k]);
      }
    };
    visit(doc, []);
    expect(found).toEqual([]);
  });
});

/**
 * The component schemas the reference's operations and webhooks reach, through every `$ref` in them
 * (parameters, bodies, responses, examples): the schemas of E1 to E17, not those only a spec author's
 * operations use.
 */
function referenceSchemas(): Set<string> {
  const refs = new Set<string>();
  const visit = (node: Json | undefined): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isObject(node)) return;
    if (typeof node.$ref === "string" && !refs.has(node.$ref)) {
      refs.add(node.$ref);
      visit(atPointer(doc, node.$ref));
    }
    for (const [key, child] of Object.entries(node)) if (key !== "$ref") visit(child);
  };
  for (const o of operationsOf(doc))
    if (isReferenceOperation(o.operation.operationId)) [o.operation, ...o.parameters].forEach(visit);
  visit(doc.webhooks);
  const prefix = "#/components/schemas/";
  return new Set([...refs].filter((r) => r.startsWith(prefix)).map((r) => r.slice(prefix.length)));
}

/**
 * Object schemas a success response can contain, by the pointer they live at (components or inline),
 * found by walking $ref, properties, items, allOf/oneOf/anyOf and if/then from every 2xx response.
 */
function responseObjectSchemas(): Map<string, JsonObject> {
  const found = new Map<string, JsonObject>();
  const visited = new Set<string>();
  const visit = (node: Json | undefined, at: string): void => {
    if (!isObject(node)) return;
    if (typeof node.$ref === "string") {
      const target = node.$ref.replace(/^#/, "");
      if (!visited.has(target)) {
        visited.add(target);
        visit(deref(doc, node), target);
      }
      return;
    }
    if (isObject(node.properties)) found.set(at, node);
    for (const [key, child] of Object.entries(isObject(node.properties) ? node.properties : {}))
      visit(child, `${at}/properties/${key}`);
    visit(node.items, `${at}/items`);
    for (const combinator of ["allOf", "oneOf", "anyOf"] as const) {
      const branches = node[combinator];
      if (Array.isArray(branches)) branches.forEach((b, i) => visit(b, `${at}/${combinator}/${i}`));
    }
  };
  for (const { path, method, operation } of operationsOf(doc)) {
    const responses = derefObject(doc, operation.responses, "responses");
    for (const [status, response] of Object.entries(responses)) {
      if (!status.startsWith("2")) continue;
      const content = derefObject(doc, response, "response").content;
      if (!isObject(content)) continue;
      for (const [media, body] of Object.entries(content)) {
        visit(
          (body as JsonObject).schema,
          pointer(["paths", path, method, "responses", status, "content", media, "schema"]),
        );
      }
    }
  }
  return found;
}

describe("the record rule of info (every field of a record is present; an absent value is null)", () => {
  const records = [...responseObjectSchemas()];
  /** Where the reference itself says a field may be missing. */
  const EXCEPTIONS: Record<string, string[]> = {
    "/components/schemas/Error": ["validationErrors"],
  };

  it("is stated in info, with its x-assumption", () => {
    expect((doc.info as JsonObject).description).toMatch(/never left out/);
    expect(assumptionOf(doc, doc.info)).toMatch(/record rule/i);
  });

  it("covers the records of every response", () => {
    const names = records.map(([at]) => at.replace("/components/schemas/", ""));
    expect(names).toEqual(
      expect.arrayContaining([
        "Agent",
        "AgentSettings",
        "Call",
        "Campaign",
        "PhoneNumber",
        "Integration",
        "TestCase",
        "ChatCompletion",
      ]),
    );
  });

  it.each(records)("%s requires every field it has", (at, schema) => {
    const { properties, required } = objectParts(doc, schema);
    const then = isObject(schema.then) && Array.isArray(schema.then.required) ? (schema.then.required as string[]) : [];
    const optional = Object.keys(properties).filter((name) => !required.includes(name) && !then.includes(name));
    expect(optional).toEqual(EXCEPTIONS[at] ?? []);
  });

  it.each(["Error", "AgentTool"])("the exception %s is real: a field there may be absent", (name) => {
    const { properties, required } = objectParts(doc, schemas[name]);
    expect(Object.keys(properties).filter((p) => !required.includes(p)).length).toBeGreaterThan(0);
  });
});

describe("values the reference withholds", () => {
  it.each(["llmModel", "voiceId", "voiceModelId"])(
    "agentSettings.%s has no machine-read default (its description says it)",
    (name) => {
      const field = atPointer(doc, `/components/schemas/AgentSettings/properties/${name}`) as JsonObject;
      expect(field).not.toHaveProperty("default");
      expect(field.description).toMatch(/Default: /);
    },
  );
});

describe("x-assumption markers", () => {
  it.each([
    ["openapi.json", doc],
    ["mock-control.json", loadGenerated("mock-control.json")],
  ] as const)("in %s are non-empty one-line strings", (_file, given) => {
    const bad = assumptions(given).filter(
      ({ value }) => typeof value !== "string" || value.trim() === "" || /[\r\n]/.test(value),
    );
    expect(bad).toEqual([]);
  });

  it.each(decisions)("mark the decision on %s", (_name, { given, want }) => {
    const node = atPointer(doc, given);
    expect(node, given).toBeDefined();
    const marker = assumptionOf(doc, node) ?? assumptionOf(doc, deref(doc, node));
    expect(marker, `${given}/x-assumption`).toMatch(want);
  });
});
