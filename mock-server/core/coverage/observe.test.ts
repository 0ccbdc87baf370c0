/** Which variants one answer shows, against the bundled spec's catalogue; and that it stays cheap. */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../exchange-rules/json-document.js";
import { derefIn, generatedSpec } from "../spec.js";
import { variantCatalogue } from "./catalogue.js";
import { observedVariants, webhookVariantKey, type ObservedAnswer } from "./observe.js";

const doc = generatedSpec().document as unknown as JsonObject;
const catalogue = variantCatalogue(doc);

/** The spec's own example of an ended campaign call (getCall 200). */
const exampleCall = (() => {
  const examples = (doc.paths as any)["/v1/calls/{callId}"].get.responses["200"].content["application/json"].examples;
  const first = derefIn<{ value: Record<string, unknown> }>(doc, Object.values(examples)[0]);
  return structuredClone(first.value);
})();

const answer = (over: Partial<ObservedAnswer>): ObservedAnswer => ({
  operationId: "getCall",
  status: 200,
  query: {},
  body: undefined,
  ...over,
});

const page = (data: unknown[], hasPrevious: boolean, hasNext: boolean) => ({
  data,
  page: 0,
  size: 10,
  totalPages: 3,
  hasNext,
  hasPrevious,
  totalCount: 30,
});

describe("observedVariants", () => {
  it("names the status, and the enum and nullable values of a get's resource", () => {
    const call = { ...exampleCall, status: "error", terminationReason: "dial_busy", recordingUrl: null };
    const keys = observedVariants(catalogue, answer({ body: call }));
    expect(keys[0]).toBe("getCall status 200");
    expect(keys).toEqual(
      expect.arrayContaining([
        "getCall enum status=error",
        "getCall enum terminationReason=dial_busy",
        "getCall nullable terminationReason=set",
        "getCall nullable recordingUrl=null",
      ]),
    );
    expect(keys).not.toContain("getCall nullable recordingUrl=set");
    expect(keys).not.toContain("getCall nullable terminationReason=null");
    for (const key of keys) expect(catalogue.byKey.has(key), key).toBe(true);
  });

  it("follows nested objects, and sees neither side of an absent field", () => {
    const { recordingUrl: _, ...withoutRecording } = exampleCall;
    const call = {
      ...withoutRecording,
      phoneNumber: { ...(exampleCall.phoneNumber as object), provider: "byo", friendlyName: null },
      campaign: null,
    };
    const keys = observedVariants(catalogue, answer({ body: call }));
    expect(keys).toEqual(
      expect.arrayContaining([
        "getCall enum phoneNumber.provider=byo",
        "getCall nullable phoneNumber=set",
        "getCall nullable phoneNumber.friendlyName=null",
        "getCall nullable campaign=null",
      ]),
    );
    expect(keys.some((k) => k.startsWith("getCall nullable recordingUrl="))).toBe(false);
    expect(keys.some((k) => k.includes("campaign.phoneNumber"))).toBe(false);
  });

  it("reads a list's items and its page kind, each key once", () => {
    const items = [
      { ...exampleCall, status: "error", recordingUrl: null },
      { ...exampleCall, status: "error", recordingUrl: null },
      { ...exampleCall, status: "ended" },
    ];
    const keys = observedVariants(catalogue, answer({ operationId: "listCalls", body: page(items, false, true) }));
    expect(keys).toEqual(
      expect.arrayContaining([
        "listCalls status 200",
        "listCalls page first",
        "listCalls enum status=error",
        "listCalls enum status=ended",
        "listCalls nullable recordingUrl=null",
      ]),
    );
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.some((k) => k.startsWith("getCall"))).toBe(false);
  });

  it("tells the page kinds apart by hasPrevious and hasNext", () => {
    const kind = (body: unknown) =>
      observedVariants(catalogue, answer({ operationId: "listAgents", body })).filter((k) => k.includes(" page "));
    const one = [{}];
    expect(kind(page([], false, false))).toEqual(["listAgents page empty"]);
    expect(kind(page([], true, false))).toEqual(["listAgents page empty"]);
    expect(kind(page(one, false, true))).toEqual(["listAgents page first"]);
    expect(kind(page(one, true, true))).toEqual(["listAgents page middle"]);
    expect(kind(page(one, true, false))).toEqual(["listAgents page last"]);
    // A single page that is whole is none of them.
    expect(kind(page(one, false, false))).toEqual([]);
    expect(kind({ data: "nope" })).toEqual([]);
  });

  it("counts nothing but the status of an error answer", () => {
    const error = { status: 404, error: "Not Found", message: "Call not found", path: "/v1/calls/x" };
    expect(observedVariants(catalogue, answer({ status: 404, body: error }))).toEqual(["getCall status 404"]);
    expect(observedVariants(catalogue, answer({ operationId: "listCalls", status: 500, body: { data: [] } }))).toEqual([
      "listCalls status 500",
    ]);
  });

  it("judges fields of reads only: a create's answer shows its status", () => {
    const integration = { integrationId: "i", description: null, authentication: null, tools: [] };
    expect(
      observedVariants(catalogue, answer({ operationId: "createIntegration", status: 201, body: integration })),
    ).toEqual(["createIntegration status 201"]);
  });

  it("gives the status only for a body that is not an object, an undocumented status nothing, an unknown operation nothing", () => {
    expect(observedVariants(catalogue, answer({ body: "text" }))).toEqual(["getCall status 200"]);
    expect(observedVariants(catalogue, answer({ body: [exampleCall] }))).toEqual(["getCall status 200"]);
    expect(observedVariants(catalogue, answer({ body: null }))).toEqual(["getCall status 200"]);
    expect(observedVariants(catalogue, answer({ status: 418, body: exampleCall }))).toEqual([]);
    expect(observedVariants(catalogue, answer({ operationId: "listRequests", body: [] }))).toEqual([]);
  });

  it("starts afresh for each answer", () => {
    const body = { ...exampleCall, status: "error" };
    const first = observedVariants(catalogue, answer({ body }));
    expect(observedVariants(catalogue, answer({ body }))).toEqual(first);
    expect(first).toContain("getCall enum status=error");
  });

  it("remembers a record by identity: read again, it shows the same; a new record its own", () => {
    const ended = { ...exampleCall, status: "ended" };
    const error = { ...exampleCall, status: "error", recordingUrl: null };
    const list = (items: unknown[]) =>
      observedVariants(catalogue, answer({ operationId: "listCalls", body: page(items, false, true) }));
    const first = list([ended, error]);
    // The same records in another answer, in another order and twice over: the same keys, each once.
    expect(new Set(list([error, ended, error]))).toEqual(new Set(first));
    expect(list([error, error]).filter((k) => k === "listCalls enum status=error")).toHaveLength(1);
    // A record already seen in this answer still counts for the next one (its own list is whole).
    expect(list([ended])).toContain("listCalls enum status=ended");
    // A changed copy is another record: its own values show.
    const changed = { ...ended, status: "not_connected" };
    expect(list([changed])).toContain("listCalls enum status=not_connected");
    expect(list([changed])).not.toContain("listCalls enum status=ended");
    // One record served by a get and by a list is judged by each operation's own fields.
    expect(observedVariants(catalogue, answer({ body: error }))).toContain("getCall enum status=error");
  });

  it("reads every item of a 100-item page of calls", () => {
    const statuses = ["scheduled", "in_progress", "ended", "not_connected", "error"];
    const items = Array.from({ length: 100 }, (_, i) => ({
      ...exampleCall,
      status: statuses[i % statuses.length],
      recordingUrl: i % 2 ? null : "https://x",
    }));
    // Its cost per answer is measured by the bench (npm run bench -- --only exercised), not here.
    const keys = observedVariants(catalogue, answer({ operationId: "listCalls", body: page(items, true, true) }));
    for (const status of statuses) expect(keys).toContain(`listCalls enum status=${status}`);
    expect(keys).toContain("listCalls nullable recordingUrl=null");
    expect(keys).toContain("listCalls nullable recordingUrl=set");
  });
});

describe("webhookVariantKey", () => {
  it("names the variant of each event kind of the spec, and none for another", () => {
    expect(webhookVariantKey(catalogue, "conversation_started")).toBe(
      "conversationStartedEvent webhook conversation_started",
    );
    expect(webhookVariantKey(catalogue, "conversation_ended")).toBe(
      "conversationEndedEvent webhook conversation_ended",
    );
    expect(webhookVariantKey(catalogue, "call_started")).toBeUndefined();
  });
});
