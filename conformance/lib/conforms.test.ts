/** expectConforms at both levels: what the reference states fails at both, what the kit assumed only at `assumed`. */
import { describe, expect, it } from "vitest";
import { clockIssues, conformanceIssues } from "./conforms.js";
import { differences } from "../operations/store-agreement.js";
import type { Exchange } from "./http.js";
import type { Level } from "./schemas.js";

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
const chat = { id: "c1", createdAt: T, updatedAt: T, status: "completed", error: null, response: [] };
const call = {
  callId: "c1",
  callType: "web",
  phoneNumber: null,
  campaign: null,
  status: "scheduled",
  transcript: null,
  startTime: null,
  endTime: null,
  duration: null,
  terminationReason: null,
  createdAt: T,
  updatedAt: T,
  dynamicVariables: null,
  recordingUrl: null,
  agent: { agentId: "a", name: "A", status: "Live" },
};
const batch = {
  batchId: "b1",
  workspaceId: "w1",
  agent: { agentId: "a", name: "A", status: "Live" },
  createdDate: T,
  testCases: [],
  successfulAttempts: 0,
  failedAttempts: 0,
};
const phone = (more: object) => ({
  sipPhoneNumber: "+14155550123",
  provider: "byo",
  inboundAgentId: null,
  outboundAgentId: null,
  outboundPhoneNumber: null,
  active: true,
  terminationSipURI: null,
  friendlyName: null,
  ...more,
});
const error404 = (path: string) => ({ timestamp: T, status: 404, error: "Not Found", message: "x", path });

function exchange(
  status: number,
  body: unknown,
  opts: { path?: string; contentType?: string; method?: string } = {},
): Exchange {
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  const path = opts.path ?? "/v1/x";
  return {
    request: { method: opts.method ?? "GET", url: `http://h${path}`, path, basePath: "", headers: {} },
    status,
    headers: new Headers(
      body === undefined ? {} : { "content-type": opts.contentType ?? "application/json; charset=utf-8" },
    ),
    text,
    json: typeof body === "string" ? undefined : body,
    durationMs: 0,
  };
}

type Case = [string, { op: string; ex: Exchange; documented: string[]; assumed: string[] }];

// Each case lists the pointers of the issues expected at each level ([] = conforms).
const cases: Case[] = [
  ["a conforming integration", { op: "getIntegration", ex: exchange(200, integration), documented: [], assumed: [] }],
  [
    "a missing documented field",
    {
      op: "getIntegration",
      ex: exchange(200, { ...integration, tools: undefined }),
      documented: ["/tools"],
      assumed: ["/tools"],
    },
  ],
  [
    "an unknown property",
    { op: "getIntegration", ex: exchange(200, { ...integration, extra: 1 }), documented: [], assumed: ["/extra"] },
  ],
  [
    "a timestamp not in UTC",
    {
      op: "getIntegration",
      ex: exchange(200, { ...integration, createdAt: "2026-11-01T10:30:00+01:00" }),
      documented: ["/createdAt"],
      assumed: ["/createdAt"],
    },
  ],
  [
    "an assumed enum value off the list",
    {
      op: "getCall",
      ex: exchange(200, { ...call, callType: "outbound", phoneNumber: phone({ provider: "twilio" }) }),
      documented: [],
      assumed: ["/phoneNumber", "/phoneNumber", "/phoneNumber/provider"],
    },
  ],
  [
    "a value of a set the reference leaves open",
    { op: "createChat", ex: exchange(200, { ...chat, status: "done" }), documented: [], assumed: [] },
  ],
  [
    "a null field left out (the record rule)",
    { op: "getCall", ex: exchange(200, { ...call, campaign: undefined }), documented: [], assumed: ["/campaign"] },
  ],
  [
    "a documented enum value off the list",
    {
      op: "getCall",
      ex: exchange(200, { ...call, status: "finished" }),
      documented: ["/status"],
      assumed: ["/status"],
    },
  ],
  [
    "an omitted field whose presence is assumed",
    { op: "getBatchRun", ex: exchange(200, batch), documented: [], assumed: ["/totalAttempts"] },
  ],
  [
    "an undocumented success status",
    { op: "createIntegration", ex: exchange(200, integration), documented: ["#status"], assumed: ["#status"] },
  ],
  [
    "E5 answering 201 (its response is an assumption)",
    { op: "createIntegrationAuth", ex: exchange(201, {}), documented: [], assumed: ["#status"] },
  ],
  [
    "a text/plain error",
    {
      op: "getCall",
      ex: exchange(404, "Not Found", { contentType: "text/plain" }),
      documented: ["#header/content-type", ""],
      assumed: ["#header/content-type", ""],
    },
  ],
  [
    "an error whose status differs",
    {
      op: "getCall",
      ex: exchange(404, { ...error404("/v1/x"), status: 400 }),
      documented: ["/status"],
      assumed: ["/status"],
    },
  ],
  [
    "an error whose path differs",
    { op: "getCall", ex: exchange(404, error404("/v1/y")), documented: ["/path"], assumed: ["/path"] },
  ],
  [
    "an error whose status text differs",
    {
      op: "getCall",
      ex: exchange(404, { ...error404("/v1/x"), error: "NOT_FOUND" }),
      documented: ["/error"],
      assumed: ["/error"],
    },
  ],
  ["a 204 with a body", { op: "deleteQaRule", ex: exchange(204, { ok: true }), documented: [""], assumed: [""] }],
  ["a 204 without a body", { op: "deleteQaRule", ex: exchange(204, undefined), documented: [], assumed: [] }],
  [
    "a timestamp with a space for the T",
    {
      op: "getIntegration",
      ex: exchange(200, { ...integration, createdAt: "2026-11-01 09:30:00.000Z" }),
      documented: ["/createdAt"],
      assumed: ["/createdAt"],
    },
  ],
  [
    "a timestamp written +00:00 with microseconds",
    {
      op: "getIntegration",
      ex: exchange(200, { ...integration, createdAt: "2026-11-01T09:30:00.000000+00:00" }),
      documented: [],
      assumed: [],
    },
  ],
  [
    "a record updated before it was created",
    {
      op: "getIntegration",
      ex: exchange(200, { ...integration, updatedAt: "2026-11-01T09:29:59.000Z" }),
      documented: ["/updatedAt"],
      assumed: ["/updatedAt"],
    },
  ],
  [
    "an error with an empty message",
    {
      op: "getCall",
      ex: exchange(404, { ...error404("/v1/x"), message: " " }),
      documented: ["/message"],
      assumed: ["/message"],
    },
  ],
];

describe("expectConforms", () => {
  for (const level of ["documented", "assumed"] as Level[]) {
    it.each(cases)(`%s at level ${level}`, (_name, { op, ex, documented, assumed }) => {
      const pointers = conformanceIssues(ex, op, level).map((i) => i.pointer);
      expect(pointers.sort()).toEqual([...(level === "documented" ? documented : assumed)].sort());
    });
  }
});

describe("clockIssues", () => {
  const now = Date.parse(T);
  it.each([
    ["an error stamped now", exchange(404, error404("/v1/x")), "getCall", []],
    [
      "an error stamped at the epoch",
      exchange(404, { ...error404("/v1/x"), timestamp: "1970-01-01T00:00:00.000Z" }),
      "getCall",
      ["/timestamp"],
    ],
    [
      "a new integration stamped in local time (UTC+2) with a Z",
      exchange(201, { ...integration, createdAt: "2026-11-01T11:30:00.000Z", updatedAt: "2026-11-01T11:30:00.000Z" }),
      "createIntegration",
      ["/createdAt", "/updatedAt"],
    ],
    [
      "a read of an old record (not stamped now)",
      exchange(200, { ...integration, createdAt: "2020-01-01T00:00:00.000Z" }),
      "getIntegration",
      [],
    ],
    [
      "a new record five minutes off (within tolerance)",
      exchange(201, { ...integration, createdAt: "2026-11-01T09:35:00.000Z", updatedAt: "2026-11-01T09:35:00.000Z" }),
      "createIntegration",
      [],
    ],
  ] as const)("%s", (_name, ex, op, pointers) => {
    expect(clockIssues(ex, op, now).map((i) => i.pointer)).toEqual(pointers);
  });
});

describe("store agreement: differences", () => {
  it.each([
    ["equal records", { a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }, []],
    ["null and absent alike", { a: 1 }, { a: 1, b: null }, []],
    ["the same instant written two ways", { t: "2026-11-01T09:30:00.000000+00:00" }, { t: T }, []],
    ["a garbled value", { a: "whsec_****" }, { a: "whsec_12" }, ["/a"]],
    ["a dropped value", { a: 1 }, { a: 1, b: "x" }, ["/b"]],
    ["an extra item", { a: [1, 2] }, { a: [1] }, ["/a"]],
  ] as const)("%s", (_name, actual, expected, pointers) => expect(differences(actual, expected)).toEqual(pointers));
});
