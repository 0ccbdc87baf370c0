/**
 * Every example in the bundled documents satisfies its schema (ajv, JSON Schema 2020-12, formats on),
 * and every operation of the reference (E1 to E17) shows a named example of a success and of an error
 * response.
 */
import { describe, expect, it } from "vitest";
import { collectExamples } from "../lib/collect-examples.js";
import {
  type Json,
  type JsonObject,
  deref,
  isObject,
  loadGenerated,
  operationsOf,
  pointer,
} from "../lib/openapi-doc.js";
import { isReferenceOperation, REFERENCE_OPERATION_IDS } from "../lib/reference-operations.js";
import { documentValidator } from "../lib/schema-validator.js";

const documents = [
  ["openapi.json", loadGenerated("openapi.json")],
  ["mock-control.json", loadGenerated("mock-control.json")],
] as const;

describe.each(documents)("examples of %s", (file, doc) => {
  const validator = documentValidator(doc, file);
  const cases = collectExamples(doc).map((c) => [c.at, { given: c.value, want: c.schema }] as const);

  it.each(cases)("%s satisfies its schema", (at, { given, want }) => {
    expect(validator.errors(want, given), `example ${at} against schema ${want}`).toEqual([]);
  });

  it("uses every component example, so each is validated where it is used", () => {
    const used = new Set(collectExamples(doc).flatMap((c) => (c.ref ? [c.ref] : [])));
    const components = isObject(doc.components) && isObject(doc.components.examples) ? doc.components.examples : {};
    const unused = Object.keys(components).filter((name) => !used.has(`#/components/examples/${name}`));
    expect(unused).toEqual([]);
  });
});

describe("the example harness", () => {
  const doc = loadGenerated("openapi.json");
  const validator = documentValidator(doc, "openapi.json");
  const found = collectExamples(doc);

  it.each([
    ["a media type example", "/paths/~1v1~1calls/get/responses/200/content/application~1json/examples/scheduled"],
    [
      "a $ref'd component example",
      "/paths/~1v1~1calls~1{callId}/get/responses/200/content/application~1json/examples/ended -> #/components/examples/CallEnded",
    ],
    ["a parameter example", "/components/parameters/PhoneNumberPath/example"],
    ["a parameter's named example", "/components/parameters/CallStatusFilter/examples/scheduled"],
    ["an inline parameter's named example", "/paths/~1v1~1agents/get/parameters/0/examples/onePage"],
    ["a schema example", "/components/schemas/Timestamp/example"],
    ["a property's schema examples", "/components/schemas/Webhook/properties/events/examples/0"],
    [
      "an error response example",
      "/paths/~1v1~1calls~1{callId}/get/responses/404/content/application~1json/examples/unknownCall",
    ],
    [
      "a webhook delivery example",
      "/webhooks/conversation_started/post/requestBody/content/application~1json/examples/chat",
    ],
  ])("finds %s", (_name, at) => {
    expect(found.map((c) => c.at)).toContain(at);
  });

  const call = "/components/schemas/Call";
  const ended = (deref(doc, { $ref: "#/components/examples/CallEnded" }) as JsonObject).value as JsonObject;
  it.each([
    ["an unknown call status", { ...ended, status: "finished" }],
    ["a 21st termination reason", { ...ended, terminationReason: "error_brand" }],
    ["a timestamp that is not a date-time", { ...ended, startTime: "yesterday" }],
    ["a non-integer duration", { ...ended, duration: 1.5 }],
    ["a missing callId", Object.fromEntries(Object.entries(ended).filter(([k]) => k !== "callId"))],
  ] as [string, Json][])("rejects %s", (_name, given) => {
    expect(validator.errors(call, given)).not.toEqual([]);
  });

  it.each([
    ["an int32 page beyond 2^31-1", "/components/parameters/Page/schema", 2 ** 31],
    ["an E.164 value without +", "/components/parameters/PhoneNumberPath/schema", "14155550123"],
    ["a status filter that is no call status", "/components/parameters/CallStatusFilter/schema", "finished"],
    ["a negative page of an inline page parameter", "/paths/~1v1~1agents/get/parameters/0/schema", -1],
  ] as const)("rejects %s", (_name, schema, given) => {
    expect(validator.errors(schema, given)).not.toEqual([]);
  });
});

describe("named examples per operation", () => {
  const doc = loadGenerated("openapi.json");

  /** Names of the examples of a response's media types, following a `$ref` to a shared response. */
  function exampleNames(response: Json | undefined): string[] {
    const resolved = deref(doc, response);
    if (!isObject(resolved) || !isObject(resolved.content)) return [];
    return Object.values(resolved.content).flatMap((media) =>
      isObject(media) && isObject(media.examples) ? Object.keys(media.examples) : [],
    );
  }

  // The reference's operations: one a spec author adds needs no named example (its examples, if any,
  // satisfy their schemas as every example does, above).
  const operations = operationsOf(doc)
    .filter((op) => isReferenceOperation(op.operation.operationId))
    .map(
      (op) =>
        [
          `${op.method.toUpperCase()} ${op.path}`,
          { given: op.operation, at: pointer(["paths", op.path, op.method]) },
        ] as const,
    );

  it("are checked for each of the reference's 17 operations", () => {
    expect(operations.map(([, { given }]) => given.operationId).sort()).toEqual([...REFERENCE_OPERATION_IDS].sort());
  });

  it.each(operations)("%s has a named success example and a named error example", (_name, { given, at }) => {
    const responses = isObject(given.responses) ? given.responses : {};
    const success = Object.entries(responses).filter(([status]) => /^2/.test(status));
    expect(success.length, `${at}/responses has a 2xx response`).toBeGreaterThan(0);
    for (const [status, response] of success) {
      const resolved = deref(doc, response);
      // A 204 has no content (and so no example) by definition; every other success shows one.
      if (status === "204")
        expect(isObject(resolved) && resolved.content, `${at}/responses/204 has no content`).toBeFalsy();
      else expect(exampleNames(response), `${at}/responses/${status} named examples`).not.toEqual([]);
    }
    const errors = Object.entries(responses).filter(([status]) => /^[45]/.test(status));
    expect(errors.length, `${at}/responses has error responses`).toBeGreaterThan(0);
    for (const [status, response] of errors) {
      expect(exampleNames(response), `${at}/responses/${status} named examples`).not.toEqual([]);
    }
  });
});
