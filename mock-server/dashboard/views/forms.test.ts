import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../api.js";
import { EMPTY_FORM, errorStatusesOf, faultInputOf } from "./faults.js";
import { matches, serverFilterOf } from "./requests.js";
import { describeRule } from "./request-detail.js";

describe("the fault form", () => {
  const cases: [string, { given: Partial<typeof EMPTY_FORM>; want: object }][] = [
    ["a status on every operation", { given: {}, want: { kind: "status", status: 500 } }],
    [
      "a reset of one operation, twice, half the time",
      {
        given: { operationId: "listCalls", kind: "reset", times: "2", probability: "0.5" },
        want: { operationId: "listCalls", kind: "reset", times: 2, probability: 0.5 },
      },
    ],
    ["a delay only", { given: { kind: "delay", delayMs: "300" }, want: { delayMs: 300 } }],
    [
      "a uniform latency in a workspace",
      {
        given: { kind: "empty", latency: "uniform", latencyA: "10", latencyB: "50", workspaceId: "w1" },
        want: { workspaceId: "w1", kind: "empty", latency: { distribution: "uniform", minMs: 10, maxMs: 50 } },
      },
    ],
    ["a slow body", { given: { kind: "slow", trickleMs: "900" }, want: { kind: "slow", trickleMs: 900 } }],
  ];
  it.each(cases)("%s", (_, { given, want }) => expect(faultInputOf({ ...EMPTY_FORM, ...given })).toEqual(want));

  it("offers the operation's documented errors only", () => {
    expect(
      errorStatusesOf({
        operationId: "x",
        method: "GET",
        path: "/",
        tag: null,
        summary: null,
        statuses: [200, 204, 404, 409, 500],
      }),
    ).toEqual([404, 409, 500]);
    expect(errorStatusesOf(undefined)).toEqual([400, 401, 403, 404, 500]);
  });

  it("says what a rule does", () => {
    expect(describeRule({ operationId: "listCalls", status: 500, times: 1 })).toBe("status 500, on listCalls, 1 time");
    expect(describeRule({ delayMs: 200, probability: 0.5 })).toBe(
      "delay only, on every operation, after 200 ms, with probability 0.5",
    );
  });
});

describe("the request filters", () => {
  const entry: JournalEntry = {
    id: "12",
    at: "2026-01-01T00:00:00.000Z",
    method: "POST",
    path: "/v1/calls",
    operationId: "createCall",
    workspaceId: "w1",
    status: 400,
    durationMs: 2,
    faultId: null,
  };
  const none = { operationId: "", status: "", workspaceId: "", text: "" };
  it("match by operation, workspace, status and every word of the text", () => {
    expect(matches(entry, none)).toBe(true);
    expect(matches(entry, { ...none, operationId: "listCalls" })).toBe(false);
    expect(matches(entry, { ...none, status: "4xx", workspaceId: "w1" })).toBe(true);
    expect(matches(entry, { ...none, text: "post CALLS" })).toBe(true);
    expect(matches(entry, { ...none, text: "post agents" })).toBe(false);
  });
  it("ask the server for what it can filter", () => {
    expect(serverFilterOf({ ...none, status: "4xx", text: "x" })).toEqual({});
    expect(serverFilterOf({ operationId: "listCalls", status: "500", workspaceId: "w1", text: "x" })).toEqual({
      operationId: "listCalls",
      status: 500,
      workspaceId: "w1",
    });
  });
});
