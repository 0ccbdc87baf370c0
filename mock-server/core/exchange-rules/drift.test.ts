/**
 * Each drift rule planted once: a hand-made exchange (or request) that breaks exactly that rule yields
 * exactly that finding; a correct list page and a correct error body yield none.
 */
import { describe, expect, it } from "vitest";
import { generatedSpec } from "../spec.js";
import { DRIFT_RULES, requestFindings, responseFindings, type Finding, type ObservedResponse } from "./drift.js";

const doc = generatedSpec().document;
const T = "2026-11-01T09:30:00.000Z";

const integration = {
  integrationId: "i1",
  name: "CRM",
  description: null,
  authentication: null,
  tools: [],
  createdAt: T,
  updatedAt: T,
};
const call = (callId: string, createdAt: string) => ({
  callId,
  callType: "web",
  phoneNumber: null,
  campaign: null,
  status: "scheduled",
  transcript: null,
  startTime: null,
  endTime: null,
  duration: null,
  terminationReason: null,
  createdAt,
  updatedAt: createdAt,
  dynamicVariables: null,
  recordingUrl: null,
  agent: { agentId: "a", name: "A", status: "Live" },
});
const phoneNumber = (sipPhoneNumber: string) => ({
  sipPhoneNumber,
  provider: "byo",
  inboundAgentId: null,
  outboundAgentId: null,
  outboundPhoneNumber: null,
  active: true,
  terminationSipURI: null,
  friendlyName: null,
});
const callPage = (data: unknown[], more: object = {}) => ({
  data,
  page: 0,
  size: 2,
  totalCount: 2,
  totalPages: 1,
  hasNext: false,
  hasPrevious: false,
  ...more,
});
const notFound = (path: string) => ({ timestamp: T, status: 404, error: "Not Found", message: "No such call", path });

function answer(
  operationId: string,
  status: number,
  body: unknown,
  opts: { path?: string; query?: Record<string, string>; contentType?: string } = {},
): ObservedResponse {
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  const headers = new Headers(body === undefined ? {} : { "content-type": opts.contentType ?? "application/json" });
  return {
    operationId,
    status,
    headers,
    text,
    request: { method: "GET", path: opts.path ?? "/v1/x", query: opts.query ?? {} },
  };
}

const brief = (findings: Finding[]) => findings.map((f) => `${f.rule} ${f.level} ${f.path}`);

describe("responseFindings", () => {
  it("finds nothing in a correct list page", () => {
    const page = callPage([call("c2", "2026-11-01T09:31:00.000Z"), call("c1", T)]);
    expect(responseFindings(doc, answer("listCalls", 200, page, { query: { page: "0", size: "2" } }))).toEqual([]);
  });

  it("finds nothing in a correct error body", () => {
    expect(responseFindings(doc, answer("getCall", 404, notFound("/v1/calls/c9"), { path: "/v1/calls/c9" }))).toEqual(
      [],
    );
  });

  const planted: [string, ObservedResponse, string][] = [
    ["status", answer("getCall", 418, { ...notFound("/v1/x"), status: 418, error: "I'm a teapot" }), "#status"],
    ["content-type", answer("getIntegration", 200, integration, { contentType: "text/plain" }), "#header/content-type"],
    ["body", answer("deleteQaRule", 204, { deleted: true }), ""],
    ["required", answer("getIntegration", 200, { ...integration, tools: undefined }), "/tools"],
    ["enum", answer("getCall", 200, { ...call("c1", T), status: "finished" }), "/status"],
    ["format", answer("getIntegration", 200, { ...integration, createdAt: "2026-13-45T09:30:00.000Z" }), "/createdAt"],
    [
      "e164",
      answer("listPhoneNumbers", 200, {
        ...callPage([phoneNumber("555")], { size: 10, totalCount: undefined, totalCounts: 1 }),
      }),
      "/data/0/sipPhoneNumber",
    ],
    ["schema", answer("getIntegration", 200, { ...integration, name: 7 }), "/name"],
    ["error-body", answer("getCall", 404, notFound("/v1/y")), "/path"],
    // Two records counted, one listed.
    ["pagination", answer("listCalls", 200, callPage([call("c1", T)]), { query: { size: "2" } }), "/data"],
    [
      "order",
      answer("listCalls", 200, callPage([call("c1", T), call("c2", "2026-11-01T09:31:00.000Z")]), {
        query: { size: "2" },
      }),
      "/data/1/createdAt",
    ],
    [
      "timeline",
      answer("getIntegration", 200, { ...integration, updatedAt: "2026-11-01T09:29:59.000Z" }),
      "/updatedAt",
    ],
  ];

  it.each(planted)("plants %s", (rule, observed, path) => {
    const findings = responseFindings(doc, observed);
    expect(findings.map((f) => [f.rule, f.path])).toEqual([[rule, path]]);
    expect(findings[0].where).toBe("response");
    expect(findings[0].message).toMatch(/expected .+, got /);
  });

  it("plants every response rule (a rule added to DRIFT_RULES gets a case here)", () => {
    expect(planted.map(([rule]) => rule).sort()).toEqual(DRIFT_RULES.map((r) => r.rule).sort());
  });

  it("levels a finding by the documented check", () => {
    // An unknown property fails only where objects are closed (level assumed); an undocumented status always.
    expect(brief(responseFindings(doc, answer("getIntegration", 200, { ...integration, extra: 1 })))).toEqual([
      "schema assumed /extra",
    ]);
    expect(brief(responseFindings(doc, answer("getCall", 418, { ...notFound("/v1/x"), status: 418 })))).toEqual([
      "status documented #status",
    ]);
    // E14's order is an assumption, E10's is documented; the page arithmetic is documented.
    const late = callPage([call("c1", T), call("c2", "2026-11-01T09:31:00.000Z")], { hasNext: true });
    expect(brief(responseFindings(doc, answer("listCalls", 200, late, { query: { size: "2" } })))).toEqual([
      "pagination documented /hasNext",
      "order documented /data/1/createdAt",
    ]);
  });

  it("judges a page against the page and size asked, 0 and 10 by default", () => {
    const page = callPage([call("c1", T)], { size: 10, totalCount: 1 });
    expect(responseFindings(doc, answer("listCalls", 200, page))).toEqual([]);
    expect(brief(responseFindings(doc, answer("listCalls", 200, page, { query: { page: "1" } })))).toEqual([
      "pagination documented /page",
      "pagination documented /hasPrevious",
      "pagination documented /data",
    ]);
  });

  it("parses the text when no parsed body is given, and says when it does not parse", () => {
    expect(brief(responseFindings(doc, answer("getIntegration", 200, "{not json")))).toEqual(["body documented "]);
  });

  it("says what was expected and what came, in one sentence", () => {
    const [finding] = responseFindings(doc, answer("getCall", 404, notFound("/v1/y"), { path: "/v1/x" }));
    expect(finding.message).toBe('path must be the request path: expected "/v1/x", got "/v1/y"');
  });
});

describe("requestFindings", () => {
  const request = (operationId: string, more: Partial<Parameters<typeof requestFindings>[1]> = {}) => ({
    operationId,
    method: "GET",
    path: "/v1/x",
    pathParams: {},
    query: {},
    ...more,
  });
  const update = (more: Partial<Parameters<typeof requestFindings>[1]>) =>
    request("updatePhoneNumber", {
      method: "PATCH",
      pathParams: { phoneNumber: "+14155550123" },
      contentType: "application/json",
      body: { friendlyName: "Support" },
      ...more,
    });

  it("finds nothing in correct requests", () => {
    expect(requestFindings(doc, request("listCalls", { query: { page: "1", size: "5", status: "ended" } }))).toEqual(
      [],
    );
    expect(requestFindings(doc, update({}))).toEqual([]);
    // A JSON body the caller did not parse (too large to copy, say) is not judged.
    expect(requestFindings(doc, update({ body: undefined }))).toEqual([]);
    // Multipart: the parameters only.
    const upload = request("createKnowledgeBase", { method: "POST", contentType: "multipart/form-data; boundary=x" });
    expect(requestFindings(doc, upload)).toEqual([]);
  });

  it.each([
    ["required", update({ pathParams: {} }), "/path/phoneNumber"],
    ["enum", request("listCalls", { query: { status: "finished" } }), "/query/status"],
    ["format", request("listCalls", { query: { page: "2147483648" } }), "/query/page"],
    ["e164", update({ pathParams: { phoneNumber: "555" } }), "/path/phoneNumber"],
    ["schema", request("listCalls", { query: { size: "abc" } }), "/query/size"],
    ["schema", update({ body: { friendlyName: 5 } }), "/friendlyName"],
    ["content-type", update({ contentType: "text/plain", body: undefined }), "#header/content-type"],
    ["body", update({ contentType: undefined, body: undefined }), ""],
  ] as const)("plants %s (%#)", (rule, observed, path) => {
    const findings = requestFindings(doc, observed);
    expect(findings.map((f) => [f.rule, f.path, f.level, f.where])).toEqual([[rule, path, "documented", "request"]]);
  });

  it("levels a body finding by the documented check", () => {
    // PhoneNumberUpdate rejects unknown fields by an assumption of the kit.
    expect(brief(requestFindings(doc, update({ body: { nickname: "x" } })))).toEqual(["schema assumed /nickname"]);
  });

  it("says what was sent", () => {
    const [finding] = requestFindings(doc, request("listCalls", { query: { size: "0" } }));
    expect(finding.message).toBe('expected must be >= 1, got "0" (schema #/components/parameters/Size/schema/minimum)');
  });
});
