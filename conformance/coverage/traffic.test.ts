/** Saved traffic read as answers: HAR and journal, the API's entries only, operations by path template. */
import { describe, expect, it } from "vitest";
import generatedDocument from "../../generated/openapi-document.js";
import { variantCatalogue } from "../../mock-server/core/coverage/catalogue.js";
import { readTraffic, type Traffic } from "./traffic.js";

const catalogue = variantCatalogue(generatedDocument);

const har = (entries: unknown[]) => JSON.stringify({ log: { version: "1.2", entries } });
const entry = (method: string, url: string, status: number, content: object = {}, extra: object = {}) => ({
  request: { method, url },
  response: { status, content: { mimeType: "application/json", ...content } },
  ...extra,
});
const read = (text: string, filter = {}) => readTraffic(text, catalogue, filter) as Traffic;

describe("readTraffic: HAR", () => {
  it("matches paths to operations by the spec's templates, under a mount prefix too", () => {
    const traffic = read(
      har([
        entry("get", "http://a.test/v1/calls/c%201?x=1&x=2", 200),
        entry("GET", "http://a.test/mock/v1/calls?status=error", 200),
        entry("PATCH", "http://a.test/v1/phone-number/%2B14155550123", 200),
        entry("DELETE", "http://a.test/v1/calls", 405),
        entry("GET", "http://a.test/v1/calls/%E0%A4%A", 400),
      ]),
    );
    expect(traffic.answers.map((a) => a.operationId)).toEqual(["getCall", "listCalls", "updatePhoneNumber"]);
    expect(traffic.answers[0].query).toEqual({ x: ["1", "2"] });
    expect(traffic.left.notApi).toBe(2);
  });

  it("takes _operationId when the catalogue knows it, reads JSON bodies, plain or base64", () => {
    const body = { data: [], page: 0, size: 10, totalPages: 0, hasNext: false, hasPrevious: false, totalCount: 0 };
    const traffic = read(
      har([
        entry("GET", "http://a.test/elsewhere", 200, { text: JSON.stringify(body) }, { _operationId: "listCalls" }),
        entry("GET", "http://a.test/v1/agents", 200, {
          text: Buffer.from(JSON.stringify(body)).toString("base64"),
          encoding: "base64",
        }),
        entry("GET", "http://a.test/v1/webhooks", 200, { text: '{"data": [', comment: "cut at 65536 bytes" }),
      ]),
    );
    expect(traffic.answers.map((a) => [a.operationId, a.body === undefined])).toEqual([
      ["listCalls", false],
      ["listAgents", false],
      ["listWebhooks", true],
    ]);
    expect(traffic.withoutBody).toBe(1);
  });

  it("leaves out other hosts, other workspaces and requests that got no answer, and counts them", () => {
    const text = har([
      entry("GET", "http://api.test/v1/calls", 200, {}, { _workspaceId: "w1" }),
      entry("GET", "http://api.test:8080/v1/calls", 200, {}, { _workspaceId: "w2" }),
      entry("GET", "http://api.test/v1/calls", 0, {}, { _workspaceId: "w1" }),
      entry("GET", "http://cdn.test/v1/calls", 200),
    ]);
    const all = read(text);
    expect(all.answers).toHaveLength(3);
    expect(all.hosts).toEqual(["api.test", "api.test:8080", "cdn.test"]);
    expect(all.workspaces).toEqual(["w1", "w2"]);
    expect(all.withoutWorkspace).toBe(1);
    expect(all.left.noAnswer).toBe(1);
    const one = read(text, { host: "api.test", workspace: "w1" });
    expect(one.answers).toHaveLength(1);
    expect(one.left).toEqual({ notApi: 0, otherHost: 1, otherWorkspace: 1, noAnswer: 1 });
    // A hostname matches every port of it.
    expect(read(text, { host: "api.test" }).answers).toHaveLength(2);
    expect(read(text, { host: "api.test:8080" }).answers).toHaveLength(1);
  });
});

describe("readTraffic: the journal's JSON", () => {
  it("reads statuses, never bodies, of the API's entries", () => {
    const traffic = read(
      JSON.stringify([
        { method: "GET", path: "/v1/calls", query: "page=2", operationId: "listCalls", workspaceId: "w", status: 200 },
        { method: "GET", path: "/v1/calls/x", operationId: null, workspaceId: null, status: 401 },
        { method: "POST", path: "/__mock/faults", operationId: "createFault", workspaceId: null, status: 201 },
        { method: "GET", path: "/v1/calls", operationId: "listCalls", workspaceId: "w", status: null },
      ]),
    );
    expect(traffic.format).toBe("journal");
    expect(traffic.answers).toEqual([
      { operationId: "listCalls", status: 200, query: { page: "2" }, body: undefined },
      { operationId: "getCall", status: 401, query: {}, body: undefined },
    ]);
    expect(traffic.left).toMatchObject({ notApi: 1, noAnswer: 1 });
    expect(
      read(JSON.stringify([{ method: "GET", path: "/v1/calls", workspaceId: "w", status: 200 }]), { workspace: "v" })
        .left.otherWorkspace,
    ).toBe(1);
  });
});

describe("readTraffic: what it refuses", () => {
  it("says why a file is not traffic", () => {
    expect(readTraffic("nope", catalogue)).toMatchObject({ problem: expect.stringMatching(/^it is not JSON/) });
    expect(readTraffic('{"log": {}}', catalogue)).toEqual({ problem: "its log has no entries array (HAR 1.2)" });
    expect(readTraffic("42", catalogue)).toMatchObject({ problem: expect.stringMatching(/neither a HAR/) });
    expect(readTraffic('[{"method": "GET"}]', catalogue)).toMatchObject({ problem: expect.stringMatching(/^item 0/) });
    expect(read(`\uFEFF${har([])}`).entries).toBe(0);
  });
});
