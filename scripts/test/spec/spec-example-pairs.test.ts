/**
 * Every named response example has a request example of the same name, as Specmatic and Microcks pair
 * them: a name in the `examples` of a parameter (path, query, header) or of the request body is the
 * request of the response example with that name (or, for a response without content, of a name in
 * its `x-microcks-refs`), and together they make one example-driven test.
 * A response example without one is skipped by both tools (Specmatic 2.x warns, or fails in strict
 * mode), and a request example without one is discarded (Microcks) or warned about (Specmatic).
 *
 * Walks the bundled documents without a server: the /v1 operations of generated/openapi.json and the
 * control plane's generated/mock-control.json. An error example may stay unpaired only where no request
 * that fits the schemas gives it (`whyUnpaired`); a success example always has its request. The replay
 * of each pair against the mock is scripts/test/spec-example-pairs.test.ts; that every example fits its
 * schema (parameter examples included) is scripts/test/spec/examples.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  type Json,
  type JsonObject,
  deref,
  derefObject,
  isObject,
  loadGenerated,
  operationsOf,
} from "../lib/openapi-doc.js";
import { REFERENCE_OPERATION_IDS } from "../lib/reference-operations.js";

interface ResponseExample {
  /** `operationId status name`, as reported. */
  key: string;
  status: number;
  name: string;
  /** The Response Object, `$ref` followed. */
  response: JsonObject;
  value: Json;
}

interface OperationExamples {
  operationId: string;
  /** Request example name -> where it is given (`query page`, `path callId`, `body`). */
  requests: Map<string, string[]>;
  /** Required parameters (`path callId`) and `body` when the body is required. */
  required: string[];
  responses: ResponseExample[];
  /** Query parameter -> its schema's default, and per example name the values the request sends. */
  queryDefaults: Map<string, Json>;
  query: Map<string, Map<string, Json>>;
}

const examplesOf = (node: Json | undefined): JsonObject =>
  isObject(node) && isObject(node.examples) ? node.examples : {};

function exampleValue(doc: JsonObject, example: Json): Json {
  const resolved = deref(doc, example);
  return isObject(resolved) ? (resolved.value ?? null) : null;
}

/** The named examples of each operation of a document, request side and response side. */
function operationExamples(doc: JsonObject, pathPrefix = "/"): OperationExamples[] {
  return operationsOf(doc)
    .filter((op) => op.path.startsWith(pathPrefix))
    .map(({ path, method, operation, parameters }) => {
      const operationId = String(operation.operationId ?? `${method} ${path}`);
      // An operation's parameter replaces its path item's of the same name and place (OpenAPI 3.1, 4.8.10).
      const byPlace = new Map<string, JsonObject>();
      for (const raw of parameters) {
        const param = derefObject(doc, raw, `${operationId} parameter`);
        byPlace.set(`${param.in} ${param.name}`, param);
      }
      const requests = new Map<string, string[]>();
      const required: string[] = [];
      const add = (name: string, where: string) => requests.set(name, [...(requests.get(name) ?? []), where]);
      const queryDefaults = new Map<string, Json>();
      const query = new Map<string, Map<string, Json>>();
      for (const [where, param] of byPlace) {
        if (param.required === true) required.push(where);
        const schema = deref(doc, param.schema);
        if (param.in === "query" && isObject(schema) && "default" in schema)
          queryDefaults.set(String(param.name), schema.default);
        for (const [name, example] of Object.entries(examplesOf(param))) {
          add(name, where);
          if (param.in !== "query") continue;
          query.set(name, (query.get(name) ?? new Map()).set(String(param.name), exampleValue(doc, example)));
        }
      }
      const body = deref(doc, operation.requestBody);
      if (isObject(body)) {
        if (body.required === true) required.push("body");
        for (const media of Object.values(isObject(body.content) ? body.content : {}))
          for (const name of Object.keys(examplesOf(media))) add(name, "body");
      }
      const responses: ResponseExample[] = [];
      for (const [code, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
        const response = derefObject(doc, raw, `${operationId} ${code}`);
        for (const media of Object.values(isObject(response.content) ? response.content : {}))
          for (const [name, example] of Object.entries(examplesOf(media)))
            responses.push({
              key: `${operationId} ${code} ${name}`,
              status: Number(code),
              name,
              response,
              value: exampleValue(doc, example),
            });
        // A response without content names its examples here, for Microcks (a 204's request examples).
        const refs = response["x-microcks-refs"];
        for (const name of Array.isArray(refs) ? refs.map(String) : [])
          responses.push({ key: `${operationId} ${code} ${name}`, status: Number(code), name, response, value: null });
      }
      return { operationId, requests, required, responses, queryDefaults, query };
    });
}

/**
 * Not-found examples that a request fitting the schemas could bring about (a record that exists, named
 * with one that does not go with it), left unpaired as scripts/test/spec-example-pairs.test.ts has them:
 * its replay of each pair against the mock lists them as unpaired, and fails when one is paired.
 */
const NAMED_UNPAIRED: Record<string, string> = {
  "createBatchRun 404 testCaseOfAnotherAgent": "a test case that exists, of another agent",
  "getBatchRun 404 otherAgent": "a batch run that exists, asked for with another agent",
  "updatePhoneNumber 404 unknownInboundAgent": "a number that exists, given an agent that does not",
};

/** Why a response example has no request example, or undefined when it must have one. */
function whyUnpaired(example: ResponseExample): string | undefined {
  const { status, response, value, key } = example;
  if (status < 400) return undefined; // a success example always shows what its request gets
  if (status === 401)
    return "the key travels in the security scheme's header, which no parameter example can leave out";
  if (status === 403) return "the key's rights (a read-only key) or a forced answer: nothing in the request";
  if (status === 500) return "no request makes the server fail inside";
  if (status === 413 || status === 415)
    return "a file of over 25 MB or of another type: a multipart example holds no file";
  if (status === 400 && isObject(value) && isObject(value.validationErrors))
    return "the request breaks its schema, and a request example must fit the schema (spec/README.md)";
  if (status === 404 && /only when forced/.test(String(response["x-assumption"] ?? "")))
    return "the operation has nothing to miss: 404 only when forced (Prefer: code=404 or a fault rule)";
  return NAMED_UNPAIRED[key];
}

/** What a document does wrong: unpaired response examples, request examples no response has, gaps. */
function pairingProblems(doc: JsonObject, pathPrefix = "/"): string[] {
  const problems: string[] = [];
  for (const op of operationExamples(doc, pathPrefix)) {
    const responseNames = new Set(op.responses.map((r) => r.name));
    for (const example of op.responses)
      if (!op.requests.has(example.name) && !whyUnpaired(example))
        problems.push(`${example.key}: no request example of this name`);
    for (const [name, where] of op.requests) {
      if (!responseNames.has(name))
        problems.push(`${op.operationId} ${name} (${where.join(", ")}): no response example of this name`);
      const missing = op.required.filter((need) => !where.includes(need));
      if (responseNames.has(name) && missing.length > 0)
        problems.push(`${op.operationId} ${name}: no example for the required ${missing.join(", ")}`);
    }
  }
  return problems;
}

interface PagedExample {
  op: OperationExamples;
  example: ResponseExample;
}

/** The paired success examples that are a page of a list (they have `page`). */
function pagedExamples(operations: OperationExamples[]): PagedExample[] {
  return operations.flatMap((op) =>
    op.responses
      .filter((r) => r.status === 200 && isObject(r.value) && "page" in r.value && op.requests.has(r.name))
      .map((example) => ({ op, example })),
  );
}

/**
 * A peer tool sends the request example and holds the answer to the response example: the page shown
 * is the one asked for (page and size, a default where the request leaves one out), it holds 1 to
 * `size` items, and a query filter the items have a field for holds for each of them.
 */
function pageProblems({ op, example }: PagedExample): string[] {
  const problems: string[] = [];
  const page = example.value as JsonObject;
  const sent = op.query.get(example.name) ?? new Map<string, Json>();
  for (const name of ["page", "size"]) {
    const asked = sent.has(name) ? sent.get(name) : op.queryDefaults.get(name);
    if (page[name] !== asked)
      problems.push(`${example.key}: shows ${name} ${page[name]}, the request asks for ${name} ${asked}`);
  }
  const items = Array.isArray(page.data) ? page.data.filter(isObject) : [];
  if (items.length === 0 || items.length > Number(page.size))
    problems.push(`${example.key}: ${items.length} items on a page of ${page.size}`);
  for (const [name, value] of sent)
    for (const item of items)
      if (name in item && item[name] !== value)
        problems.push(`${example.key}: the request asks for ${name}=${value}, an item has ${item[name]}`);
  return problems;
}

const platform = loadGenerated("openapi.json");
const control = loadGenerated("mock-control.json");

describe("named examples pair by name (generated/openapi.json, /v1)", () => {
  const operations = operationExamples(platform, "/v1/");

  it("walks the reference's 17 operations", () => {
    expect(operations.map((op) => op.operationId)).toEqual(expect.arrayContaining([...REFERENCE_OPERATION_IDS]));
  });

  it.each(operations.map((op) => [op.operationId] as const))("%s: every response example is paired", (operationId) => {
    const problems = pairingProblems(platform, "/v1/").filter((p) => p.startsWith(`${operationId} `));
    expect(problems).toEqual([]);
  });

  // The three Specmatic 2.55.1 found no example-driven test for (issue 38), with the request each names.
  it.each([
    ["listAgents", "onePage", ["query page"]],
    ["listCalls", "scheduled", ["query status"]],
    ["listPhoneNumbers", "twoNumbers", ["query page"]],
  ])("%s %s has its request example, on %j", (operationId, name, where) => {
    const op = operations.find((o) => o.operationId === operationId);
    expect(op?.responses.filter((r) => r.status === 200).map((r) => r.name)).toContain(name);
    expect(op?.requests.get(name)).toEqual(where);
  });

  it("pairs every success example, and leaves unpaired only the error examples it says why of", () => {
    const unpaired = operations.flatMap((op) => op.responses.filter((r) => !op.requests.has(r.name)));
    const withSuccess = operations.filter((op) => op.responses.some((r) => r.status < 400));
    expect(withSuccess.map((op) => op.operationId)).toEqual(expect.arrayContaining([...REFERENCE_OPERATION_IDS]));
    expect(unpaired.filter((r) => r.status < 400).map((r) => r.key)).toEqual([]);
    expect(unpaired.filter((r) => !whyUnpaired(r)).map((r) => r.key)).toEqual([]);
  });

  const pages = pagedExamples(operations);

  it("finds the paired pages of the five lists", () => expect(pages).toHaveLength(5));

  it.each(pages.map((p) => [p.example.key, p] as const))("%s shows the page its request asks for", (_key, paged) => {
    expect(pageProblems(paged)).toEqual([]);
  });

  it("names no error example as unpaired that is paired, or that is not there", () => {
    const responses = operations.flatMap((op) =>
      op.responses.map((r) => ({ key: r.key, paired: op.requests.has(r.name) })),
    );
    for (const key of Object.keys(NAMED_UNPAIRED))
      expect(
        responses.find((r) => r.key === key),
        key,
      ).toEqual({ key, paired: false });
  });
});

describe("named examples pair by name (generated/mock-control.json)", () => {
  it("has no unpaired response example (its named examples are request bodies; their responses show none)", () => {
    const operations = operationExamples(control);
    expect(operations.flatMap((op) => [...op.requests.keys()]).length).toBeGreaterThan(0);
    const unpaired = operations.flatMap((op) =>
      op.responses.filter((r) => !op.requests.has(r.name) && !whyUnpaired(r)).map((r) => r.key),
    );
    expect(unpaired).toEqual([]);
  });
});

describe("the check can fail", () => {
  /** A copy of the platform document with `change` applied to it. */
  const altered = (change: (doc: JsonObject) => void): JsonObject => {
    const copy = structuredClone(platform);
    change(copy);
    return copy;
  };
  const at = (doc: JsonObject, ...keys: string[]): JsonObject =>
    keys.reduce<JsonObject>((node, key) => derefObject(doc, node[key], key), doc);
  const listAgentsPage = (doc: JsonObject) =>
    (at(doc, "paths", "/v1/agents", "get").parameters as JsonObject[]).find((p) => p.name === "page") as JsonObject;

  it("reports a success example whose request example is gone, and nothing else", () => {
    const doc = altered((d) => delete at(d, "components", "parameters", "CallStatusFilter").examples);
    expect(pairingProblems(doc, "/v1/")).toEqual(["listCalls 200 scheduled: no request example of this name"]);
  });

  it("reports a success example of an inline parameter whose name changed, from both sides", () => {
    const doc = altered((d) => {
      const examples = examplesOf(listAgentsPage(d));
      listAgentsPage(d).examples = { firstPage: examples.onePage };
    });
    expect(pairingProblems(doc, "/v1/")).toEqual([
      "listAgents 200 onePage: no request example of this name",
      "listAgents firstPage (query page): no response example of this name",
    ]);
  });

  it.each([
    [
      "a page other than the one asked for",
      (d: JsonObject): void => {
        listAgentsPage(d).examples = { onePage: { value: 1 } };
      },
      ["listAgents 200 onePage: shows page 0, the request asks for page 1"],
    ],
    [
      "items the filter does not let through",
      (d: JsonObject): void => {
        const examples = at(d, "components", "parameters", "CallStatusFilter").examples as JsonObject;
        examples.scheduled = { value: "ended" };
      },
      ["listCalls 200 scheduled: the request asks for status=ended, an item has scheduled"],
    ],
  ] as const)("reports %s", (_name, change, want) => {
    const problems = pagedExamples(operationExamples(altered(change), "/v1/")).flatMap(pageProblems);
    expect(problems).toEqual(want);
  });

  it("reports a not-found example no rule lets go unpaired", () => {
    const doc = altered((d) => {
      const examples = at(d, "components", "parameters", "CallId").examples as JsonObject;
      delete examples.unknownCall;
    });
    expect(pairingProblems(doc, "/v1/")).toEqual(["getCall 404 unknownCall: no request example of this name"]);
  });

  it("reports a scenario that leaves out a required parameter", () => {
    const doc = altered((d) => {
      const body = at(d, "paths", "/v1/integrations/{integrationId}", "patch", "requestBody", "content");
      const examples = examplesOf(body["application/json"]);
      examples.onlyBody = { value: { name: "CRM" } };
      const ok = at(d, "paths", "/v1/integrations/{integrationId}", "patch", "responses", "200", "content");
      (ok["application/json"] as JsonObject).examples = {
        ...examplesOf(ok["application/json"]),
        onlyBody: examples.rename,
      };
    });
    expect(pairingProblems(doc, "/v1/")).toEqual([
      "updateIntegration onlyBody: no example for the required path integrationId",
    ]);
  });
});
