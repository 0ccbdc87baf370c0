/**
 * Every named response example has a request example of the same name, as Specmatic and Microcks pair
 * them: a name in the `examples` of a parameter (path, query, header) or of the request body is the
 * request of the response example with that name (or, for a response without content, of a name in
 * its `x-microcks-refs`), and together they make one example-driven test.
 * A response example without one is skipped by both tools (Specmatic 2.x warns, or fails in strict
 * mode), and a request example without one is discarded (Microcks) or warned about (Specmatic).
 *
 * Walks the bundled documents without a server: the /v1 operations of generated/openapi.json and the
 * control plane's generated/mock-control.json (read by scripts/test/lib/example-pairs.ts). An error
 * example stays unpaired only where UNPAIRED, the one list of them, says why; a success example always
 * has its request. The replay of each pair against the mock is scripts/test/spec-example-replay.test.ts;
 * that every example fits its schema (parameter examples included) is scripts/test/spec/examples.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type OperationExamples, type ResponseExample, examplesOf, operationExamples } from "../lib/example-pairs.js";
import { type Json, type JsonObject, derefObject, isObject, loadGenerated } from "../lib/openapi-doc.js";
import { REFERENCE_OPERATION_IDS } from "../lib/reference-operations.js";

/** An error example that no request example goes with, and why. */
interface Unpaired {
  /** The examples it covers, in words. */
  covers: string;
  applies: (example: ResponseExample) => boolean;
  why: string;
}

/** The 400 examples whose request breaks its schema: each shows the validator's `validationErrors`. */
const REFUSED_BY_SCHEMA = new Set([
  "sizeZero",
  "missingName",
  "idTooLong",
  "unknownField",
  "emptyName",
  "bearerWithoutToken",
  "noTestCases",
  "agentIdTooLong",
  "pageNegative",
  "unknownStatus",
  "missingAgentId",
  "activeNotBoolean",
]);

const named = (key: string, why: string): Unpaired => ({ covers: key, applies: (e) => e.key === key, why });

/**
 * The one list of response examples left unpaired. Each entry covers at least one example, and every
 * example it covers is unpaired (a paired one means the reason no longer holds).
 */
const UNPAIRED: Unpaired[] = [
  {
    covers: "every 401",
    applies: (e) => e.status === 401,
    why: "the key travels in the security scheme's header, not in a parameter: no example can leave it out",
  },
  {
    covers: "every 403",
    applies: (e) => e.status === 403,
    why: "a read-only key (a mock workspace option) or a forced answer: nothing in the request",
  },
  { covers: "every 500", applies: (e) => e.status === 500, why: "no request makes the server fail inside" },
  {
    covers: "every 413 and 415",
    applies: (e) => e.status === 413 || e.status === 415,
    why: "a file of over 25 MB or of another type: a multipart example holds no file",
  },
  {
    covers: `the 400s ${[...REFUSED_BY_SCHEMA].join(", ")}`,
    applies: (e) =>
      e.status === 400 && REFUSED_BY_SCHEMA.has(e.name) && isObject(e.value) && isObject(e.value.validationErrors),
    why:
      "the request breaks its schema, and a request example must fit the schema (spec/README.md; lint: " +
      "no-invalid-*-examples)",
  },
  {
    covers: "a 404 whose x-assumption says it is answered only when forced",
    applies: (e) => e.status === 404 && /only when forced/.test(String(e.response["x-assumption"] ?? "")),
    why:
      "the operation refers to no other resource, so it has nothing to miss: the mock answers 404 only " +
      "when forced (Prefer: code=404 or a fault rule)",
  },
  // Not-found examples a request fitting the schemas could bring about (a record that exists, named with
  // one that does not go with it), but whose body names the very ids the operation's other not-found
  // examples need unknown: no request both brings it about in the default workspace and gets this body.
  named(
    "createBatchRun 404 testCaseOfAnotherAgent",
    "a test case that exists, of another agent; its body names the agent and the test case that " +
      "unknownAgent and unknownTestCase need unknown",
  ),
  named(
    "getBatchRun 404 otherAgent",
    "a batch run that exists, asked for with another agent; its body names the batch run that unknownBatch " +
      "needs unknown",
  ),
  named(
    "updatePhoneNumber 404 unknownInboundAgent",
    "a number that exists, given an agent that does not; its body names the number that unknownNumber " +
      "needs unknown",
  ),
];

/** Why a response example has no request example, or undefined when it must have one. */
function whyUnpaired(example: ResponseExample): string | undefined {
  if (example.status < 400) return undefined; // a success example always shows what its request gets
  return UNPAIRED.find((entry) => entry.applies(example))?.why;
}

/**
 * What a document does wrong: a response example unpaired without a reason, or paired despite one; a
 * request example with no response example of its name, or with response examples of two statuses; a
 * scenario without a required parameter or body.
 */
function pairingProblems(doc: JsonObject, pathPrefix = "/"): string[] {
  const problems: string[] = [];
  for (const op of operationExamples(doc, pathPrefix)) {
    for (const example of op.responses) {
      const paired = op.requests.has(example.name);
      const why = whyUnpaired(example);
      if (!paired && !why) problems.push(`${example.key}: no request example of this name`);
      if (paired && why) problems.push(`${example.key}: paired, yet listed as unpaired (${why})`);
    }
    for (const [name, { where }] of op.requests) {
      const statuses = new Set(op.responses.filter((r) => r.name === name).map((r) => r.status));
      if (statuses.size === 0)
        problems.push(`${op.operationId} ${name} (${where.join(", ")}): no response example of this name`);
      if (statuses.size > 1)
        problems.push(`${op.operationId} ${name}: response examples of ${[...statuses].join(" and ")}`);
      const missing = op.required.filter((need) => !where.includes(need));
      if (statuses.size > 0 && missing.length > 0)
        problems.push(`${op.operationId} ${name}: no example for the required ${missing.join(", ")}`);
    }
  }
  return problems;
}

/** The reference's operations without a paired example of their success status. */
function successProblems(operations: OperationExamples[]): string[] {
  return REFERENCE_OPERATION_IDS.flatMap((operationId) => {
    const op = operations.find((o) => o.operationId === operationId);
    if (!op) return [`${operationId}: not in the document`];
    const paired = op.responses.filter((r) => r.status === op.successStatus && op.requests.has(r.name));
    return paired.length > 0 ? [] : [`${operationId}: no paired example of its success status ${op.successStatus}`];
  });
}

/** The exceptions (and names of REFUSED_BY_SCHEMA) that cover no error example: what they were for is gone. */
function staleExceptions(operations: OperationExamples[]): string[] {
  const errors = operations.flatMap((op) => op.responses.filter((r) => r.status >= 400));
  const refused = new Set(errors.filter((r) => r.status === 400).map((r) => r.name));
  return [
    ...UNPAIRED.filter((entry) => !errors.some(entry.applies)).map((entry) => entry.covers),
    ...[...REFUSED_BY_SCHEMA].filter((name) => !refused.has(name)).map((name) => `400 ${name}`),
  ];
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
  const sent = new Map<string, Json>(Object.entries(op.requests.get(example.name)?.query ?? {}));
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
    expect(REFERENCE_OPERATION_IDS).toHaveLength(17);
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
    expect(op?.requests.get(name)?.where).toEqual(where);
  });

  it("pairs every success example, and an example of each operation's success status", () => {
    const unpaired = operations.flatMap((op) => op.responses.filter((r) => !op.requests.has(r.name)));
    expect(unpaired.filter((r) => r.status < 400).map((r) => r.key)).toEqual([]);
    expect(successProblems(operations)).toEqual([]);
  });

  const pages = pagedExamples(operations);

  it("finds the paired pages of the five lists", () => expect(pages).toHaveLength(5));

  it.each(pages.map((p) => [p.example.key, p] as const))("%s shows the page its request asks for", (_key, paged) => {
    expect(pageProblems(paged)).toEqual([]);
  });

  it("lists no exception that covers no example", () => expect(staleExceptions(operations)).toEqual([]));
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

  it("reports an error example that is paired, yet listed as unpaired", () => {
    const doc = altered((d) => {
      const examples = at(d, "components", "parameters", "CallId").examples as JsonObject;
      examples.missingKey = examples.ended;
    });
    expect(pairingProblems(doc, "/v1/")).toEqual([
      `getCall 401 missingKey: paired, yet listed as unpaired (${UNPAIRED[0].why})`,
    ]);
  });

  it("reports a request example whose name has response examples of two statuses", () => {
    const doc = altered((d) => {
      const notFound = at(d, "paths", "/v1/calls/{callId}", "get", "responses", "404", "content");
      const examples = examplesOf(notFound["application/json"]);
      examples.ended = examples.unknownCall;
    });
    expect(pairingProblems(doc, "/v1/")).toEqual(["getCall ended: response examples of 200 and 404"]);
  });

  it("reports an operation without a paired example of its success status", () => {
    const doc = altered((d) => {
      delete at(d, "paths", "/v1/qa-rules/{qaRuleId}", "delete", "responses", "204")["x-microcks-refs"];
    });
    expect(successProblems(operationExamples(doc, "/v1/"))).toEqual([
      "deleteQaRule: no paired example of its success status 204",
    ]);
  });

  it("reports an exception, and a name of REFUSED_BY_SCHEMA, that covers no example", () => {
    const doc = altered((d) => {
      for (const status of ["413", "415"]) {
        const content = at(d, "paths", "/v1/knowledge-bases", "post", "responses", status, "content");
        delete (content["application/json"] as JsonObject).examples;
      }
      const badRequest = at(d, "paths", "/v1/webhooks", "get", "responses", "400", "content");
      delete (badRequest["application/json"] as JsonObject).examples;
    });
    expect(staleExceptions(operationExamples(doc, "/v1/"))).toEqual(["every 413 and 415", "400 activeNotBoolean"]);
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
