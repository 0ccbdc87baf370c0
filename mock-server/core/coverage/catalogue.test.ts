/** The variant catalogue of the bundled spec: which variants exist, their keys, order and sentences. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LIST_OPERATIONS } from "../exchange-rules/list-operations.js";
import type { JsonObject } from "../exchange-rules/json-document.js";
import { operationTable } from "../exchange-rules/operation-table.js";
import { generatedSpec } from "../spec.js";
import { PAGE_KINDS, variantCatalogue, type VariantDef, type VariantKind } from "./catalogue.js";
import { walkFields } from "./schema-fields.js";

const doc = generatedSpec().document as unknown as JsonObject;
const catalogue = variantCatalogue(doc);
const keys = catalogue.variants.map((v) => v.key);
const of = (operationId: string, kind?: VariantKind) =>
  catalogue.variants.filter((v) => v.operationId === operationId && (!kind || v.kind === kind)).map((v) => v.value);
const v1 = [...operationTable(doc).values()].filter((op) => op.path.startsWith("/v1/"));

describe("variantCatalogue", () => {
  it("is built once per document object", () => {
    expect(variantCatalogue(doc)).toBe(catalogue);
    expect(variantCatalogue(structuredClone(doc))).not.toBe(catalogue);
  });

  it('has unique keys, each "operationId kind value", found through byKey', () => {
    expect(new Set(keys).size).toBe(keys.length);
    for (const v of catalogue.variants) {
      expect(v.key).toBe(`${v.operationId} ${v.kind} ${v.value}`);
      expect(catalogue.byKey.get(v.key)).toBe(v);
    }
  });

  it("has every documented status of every /v1 operation, and only those", () => {
    expect(v1.length).toBeGreaterThan(10);
    for (const op of v1) expect(of(op.operationId, "status"), op.operationId).toEqual(op.statuses);
    const status = catalogue.variants.filter((v) => v.kind === "status");
    expect(status.length).toBe(v1.reduce((n, op) => n + op.statuses.length, 0));
    for (const v of status) expect(v.status).toBe(Number(v.value));
    expect(of("createKnowledgeBase", "status")).toEqual(["201", "400", "401", "403", "404", "413", "415", "500"]);
  });

  it("gives every list its four page kinds, and nothing else pages", () => {
    for (const operationId of Object.keys(LIST_OPERATIONS)) expect(of(operationId, "page")).toEqual([...PAGE_KINDS]);
    const paged = new Set(catalogue.variants.filter((v) => v.kind === "page").map((v) => v.operationId));
    expect([...paged].sort()).toEqual(Object.keys(LIST_OPERATIONS).sort());
  });

  it("reads enum values and nullable fields of a get's resource, through oneOf and $ref", () => {
    const enums = of("getCall", "enum");
    expect(enums).toContain("status=error");
    expect(enums).toContain("terminationReason=dial_busy");
    expect(enums).toContain("callType=chat");
    // phoneNumber is oneOf [PhoneNumber, null]: its provider is reached through the $ref.
    expect(enums).toContain("phoneNumber.provider=byo");
    expect(enums).toContain("campaign.phoneNumber.provider=<carrier_a>");
    const nullable = of("getCall", "nullable");
    for (const field of ["recordingUrl", "terminationReason", "phoneNumber", "duration", "startTime"])
      expect(nullable, field).toEqual(expect.arrayContaining([`${field}=null`, `${field}=set`]));
    // Required and never null: no nullable variant.
    expect(nullable).not.toContain("status=null");
    expect(nullable).not.toContain("callId=null");
    const terminationReasons = (doc.components as any).schemas.TerminationReason.enum as string[];
    expect(enums.filter((e) => e.startsWith("terminationReason="))).toEqual(
      terminationReasons.map((r) => `terminationReason=${r}`),
    );
  });

  it("reads a list's fields relative to an item of data, so a list and its get share values", () => {
    expect(of("listCalls", "enum")).toEqual(of("getCall", "enum"));
    expect(of("listCalls", "nullable")).toEqual(of("getCall", "nullable"));
    expect(of("listAgents", "enum")).toContain("welcomeMessageType=prompt");
    expect(of("listAgents", "enum")).toContain("agentSettings.backgroundSound=office_ambience");
    expect(of("listPhoneNumbers", "nullable")).toContain("friendlyName=null");
    expect(of("listTestRuns", "nullable")).toContain("isSuccessful=set");
    // Page fields are not the resource's.
    expect(of("listCalls", "enum").some((e) => e.startsWith("data"))).toBe(false);
    expect(of("listCalls", "nullable").some((e) => /^(page|hasNext|totalCount)/.test(e))).toBe(false);
  });

  it("judges fields of reading operations only", () => {
    const fieldOps = new Set(
      catalogue.variants.filter((v) => v.kind === "enum" || v.kind === "nullable").map((v) => v.operationId),
    );
    for (const operationId of fieldOps) expect(v1.find((op) => op.operationId === operationId)?.method).toBe("GET");
    expect(of("updateIntegration", "nullable")).toEqual([]);
    expect(of("getIntegration", "nullable")).toEqual(
      expect.arrayContaining(["authentication=null", "authentication=set", "description=null"]),
    );
    expect(of("getIntegration", "enum")).toContain("authentication.authType=BEARER");
  });

  it("keeps the raw enum value and the field's path segments", () => {
    const v = catalogue.byKey.get("getCall enum phoneNumber.provider=byo")!;
    expect(v).toMatchObject({
      field: ["phoneNumber", "provider"],
      enumValue: "byo",
      method: "GET",
      path: "/v1/calls/{callId}",
    });
    expect(catalogue.byKey.get("getCall nullable recordingUrl=null")!.field).toEqual(["recordingUrl"]);
  });

  it("has one webhook variant per event kind, under the webhook's operationId", () => {
    const webhooks = catalogue.variants.filter((v) => v.kind === "webhook");
    expect(webhooks.map((v) => v.value)).toEqual(Object.keys(doc.webhooks as JsonObject));
    expect(catalogue.byKey.get("conversationStartedEvent webhook conversation_started")).toMatchObject({
      method: "POST",
      path: "conversation_started",
      event: "conversation_started",
    });
    expect(catalogue.byKey.has("conversationEndedEvent webhook conversation_ended")).toBe(true);
  });

  it("orders by spec path, then status, page, enum, nullable; webhooks last", () => {
    const rank: Record<VariantKind, number> = { status: 0, page: 1, enum: 2, nullable: 3, webhook: 4 };
    const opOrder = v1.map((op) => op.operationId);
    const position = (v: VariantDef) =>
      v.kind === "webhook" ? [opOrder.length, 0] : [opOrder.indexOf(v.operationId), rank[v.kind]];
    for (let i = 1; i < catalogue.variants.length; i++) {
      const [a, b] = [position(catalogue.variants[i - 1]), position(catalogue.variants[i])];
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]), `${keys[i - 1]} before ${keys[i]}`).toBe(true);
    }
    expect(variantCatalogue(structuredClone(doc)).variants.map((v) => v.key)).toEqual(keys);
  });

  it("says how to provoke each variant in one sentence", () => {
    for (const v of catalogue.variants) {
      expect(v.howTo, v.key).toMatch(/^[A-Z].*\.$/s);
      expect(v.howTo, v.key).not.toMatch(/\n|undefined|\[object/);
    }
    const howTo = (key: string) => catalogue.byKey.get(key)!.howTo;
    expect(howTo("getCall status 404")).toMatch(/^Name what does not exist \(e\.g\. a callId that names no call/);
    expect(howTo("getCall status 404")).toContain('"operationId": "getCall"');
    expect(howTo("getCall status 404")).toContain("Prefer: code=404");
    expect(howTo("listCalls status 404")).toMatch(/only when forced/);
    expect(howTo("listCalls status 400")).toContain("status=finished");
    expect(howTo("getCall status 401")).toMatch(/counts for no workspace/);
    expect(howTo("getCall status 200")).not.toMatch(/fault rule/); // fault rules answer error statuses only
    expect(howTo("createIntegration status 403")).toMatch(/read-only workspace/);
    expect(howTo("createKnowledgeBase status 415")).toMatch(/^Send a file \(photo\.png\)/);
    expect(howTo("listCalls page empty")).toMatch(/page past the end.*filter on status/);
    expect(howTo("listCalls page last")).toContain("page=totalPages-1");
    expect(howTo("getCall enum status=error")).toMatch(
      /^Get a call .* whose status is error: .*every-variant.*\/calls/,
    );
    expect(howTo("listCalls enum status=error")).toMatch(/^List calls .* one whose status is error/);
    expect(howTo("conversationStartedEvent webhook conversation_started")).toMatch(/first turn of a chat/);
    expect(howTo("conversationEndedEvent webhook conversation_ended")).toMatch(/endCallOnSilenceDuration/);
  });

  it("names fill collections the control plane has", () => {
    const control = JSON.parse(readFileSync(new URL("../../../generated/mock-control.json", import.meta.url), "utf8"));
    const collections: string[] = control.components.schemas.CollectionName.enum;
    const named = catalogue.variants.flatMap(
      (v) => /\/__mock\/workspaces\/\{workspaceId\}\/(\w+) that/.exec(v.howTo)?.[1] ?? [],
    );
    expect(named.length).toBeGreaterThan(0);
    for (const name of new Set(named)) expect(collections).toContain(name);
  });
});

describe("walkFields", () => {
  const fact = () => ({ enums: new Map() });

  it("stops at a schema that refers back to itself", () => {
    const recursive = {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: {
              kind: { type: "string", enum: ["leaf", "branch"] },
              parent: { oneOf: [{ $ref: "#/components/schemas/Node" }, { type: "null" }] },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            },
          },
        },
      },
    };
    const seen: string[] = [];
    const shape = walkFields(recursive, [{ schema: { $ref: "#/components/schemas/Node" }, refs: new Set() }], (f) => {
      seen.push([f.field.join("."), f.enumValues.join(","), f.nullable ? "null" : ""].filter(Boolean).join(" "));
      return fact();
    });
    expect(shape).toBeDefined();
    expect(seen).toEqual(["kind leaf,branch", "parent null"]);
  });

  it("takes nullable: true (OpenAPI 3.0) and an enum holding null as nullable", () => {
    const seen: string[] = [];
    walkFields(
      {},
      [
        {
          schema: {
            properties: {
              a: { type: "string", nullable: true },
              b: { enum: ["x", null] },
              c: { allOf: [{ type: "string" }] },
              tools: { type: "array", items: { properties: { type: { enum: ["webhook"] } } } },
            },
          },
          refs: new Set(),
        },
      ],
      (f) => (seen.push(`${f.field.join(".")}${f.nullable ? " null" : ""} ${f.enumValues.join(",")}`), fact()),
    );
    expect(seen).toEqual(["a null ", "b null x", "tools.[].type webhook"]);
  });
});

describe("a document of its own", () => {
  const tiny = {
    paths: {
      "/v1/bots/{botId}": {
        get: {
          operationId: "getBot",
          responses: {
            "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Bot" } } } },
            "404": { description: "An unknown botId." },
          },
        },
      },
      "/health": { get: { operationId: "health", responses: { "200": { description: "up" } } } },
    },
    components: {
      schemas: {
        Bot: {
          type: "object",
          properties: {
            tools: {
              type: "array",
              items: { type: "object", properties: { type: { enum: ["webhook", "transfer"] } } },
            },
            note: { type: ["string", "null"] },
          },
        },
      },
    },
  };

  it("joins array items as [] and nested fields with dots, and leaves non-/v1 paths out", () => {
    expect(variantCatalogue(tiny).variants.map((v) => v.key)).toEqual([
      "getBot status 200",
      "getBot status 404",
      "getBot enum tools[].type=webhook",
      "getBot enum tools[].type=transfer",
      "getBot nullable note=null",
      "getBot nullable note=set",
    ]);
    expect(variantCatalogue(tiny).byKey.get("getBot enum tools[].type=webhook")!.field).toEqual([
      "tools",
      "[]",
      "type",
    ]);
  });

  it("claims no seeded or filled record for a resource the control plane does not keep", () => {
    // A bot is no record of the kit's: the every-variant scenario seeds none, no /__mock/workspaces/{id}/bots fills one.
    expect(variantCatalogue(tiny).byKey.get("getBot nullable note=null")!.howTo).toBe(
      "Get a bot (GET /v1/bots/{botId}) whose note is null.",
    );
    const withCall = structuredClone(tiny) as any;
    withCall.components.schemas.Call = withCall.components.schemas.Bot;
    withCall.paths["/v1/bots/{botId}"].get.responses["200"].content["application/json"].schema.$ref =
      "#/components/schemas/Call";
    expect(variantCatalogue(withCall).byKey.get("getBot nullable note=null")!.howTo).toMatch(
      /every-variant.*POST \/__mock\/workspaces\/\{workspaceId\}\/calls that has it\.$/,
    );
  });
});
