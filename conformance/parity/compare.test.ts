import { describe, expect, it } from "vitest";
import type { RuleResult } from "../lib/runner.js";
import { compareObservations, compareOutcomes, countByKind, sortDifferences } from "./compare.js";
import type { Observation } from "./types.js";

const rule = (id: string, outcome: RuleResult["outcome"], message = "items out of order"): RuleResult => ({
  id,
  group: "g",
  operationId: id.split(".")[0],
  level: "documented",
  readOnly: true,
  description: "",
  outcome,
  failures:
    outcome === "failed"
      ? [
          {
            rule: id,
            operationId: id.split(".")[0],
            level: "documented",
            pointer: "",
            expected: "x",
            actual: "y",
            message,
          },
        ]
      : [],
  durationMs: 1,
});

describe("compareOutcomes", () => {
  it("reports a rule passed on one target and failed or crashed on the other, with the rule and why", () => {
    const { differences, compared } = compareOutcomes(
      [
        rule("listCalls.newest-first", "passed"),
        rule("getCall.unknown-id", "errored"),
        rule("listAgents.walk", "failed"),
      ],
      [
        rule("listCalls.newest-first", "failed"),
        rule("getCall.unknown-id", "passed"),
        rule("listAgents.walk", "failed"),
      ],
    );
    expect(compared).toBe(3);
    expect(differences).toEqual([
      {
        operationId: "listCalls",
        kind: "outcome",
        rule: "listCalls.newest-first",
        a: { outcome: "passed" },
        b: { outcome: "failed", why: "items out of order (expected x, got y)" },
      },
      {
        operationId: "getCall",
        kind: "outcome",
        rule: "getCall.unknown-id",
        a: { outcome: "errored", why: "" },
        b: { outcome: "passed" },
      },
    ]);
  });

  it("compares nothing inconclusive or skipped on either side, and counts rules skipped on one side only", () => {
    const { differences, compared, skippedOnOneSide } = compareOutcomes(
      [rule("a.x", "inconclusive"), rule("b.y", "skipped"), rule("c.z", "passed"), rule("d.w", "skipped")],
      [rule("a.x", "failed"), rule("b.y", "failed"), rule("c.z", "inconclusive"), rule("d.w", "skipped")],
    );
    expect(differences).toEqual([]);
    expect(compared).toBe(0);
    expect(skippedOnOneSide).toEqual(["b.y"]);
  });

  it("cuts a long finding", () => {
    const long = "m".repeat(400);
    const { differences } = compareOutcomes([rule("a.x", "passed")], [rule("a.x", "failed", long)]);
    expect(String((differences[0].b as { why: string }).why).length).toBeLessThanOrEqual(163);
  });
});

const obs = (
  operationId: string,
  kind: Observation["kind"],
  probe: string,
  value?: Observation["value"],
): Observation =>
  value ? { operationId, kind, probe, value } : { operationId, kind, probe, unobserved: "no real answer" };

describe("compareObservations", () => {
  it("reports differing statuses, and merges probes that differ alike", () => {
    const { differences, compared } = compareObservations(
      [
        obs("listCalls", "status", "size=0", { status: 400 }),
        obs("listCalls", "status", "size=abc", { status: 400 }),
        obs("listCalls", "status", "page=-1", { status: 400 }),
      ],
      [
        obs("listCalls", "status", "size=0", { status: 422 }),
        obs("listCalls", "status", "size=abc", { status: 422 }),
        obs("listCalls", "status", "page=-1", { status: 400 }),
      ],
    );
    expect(compared).toBe(3);
    expect(differences).toEqual([
      {
        operationId: "listCalls",
        kind: "status",
        a: { probe: "size=0, size=abc", status: 400 },
        b: { probe: "size=0, size=abc", status: 422 },
      },
    ]);
  });

  it("reports only the aspects of an error shape that differ", () => {
    const shape = { status: "the HTTP status", error: "the status text", path: "the request path", extraFields: [] };
    const { differences } = compareObservations(
      [obs("getCall", "message", "unknown id", shape)],
      [obs("getCall", "message", "unknown id", { ...shape, path: "(absent)", extraFields: ["traceId"] })],
    );
    expect(differences).toEqual([
      {
        operationId: "getCall",
        kind: "message",
        a: { probe: "unknown id", path: "the request path", extraFields: [] },
        b: { probe: "unknown id", path: "(absent)", extraFields: ["traceId"] },
      },
    ]);
  });

  it("reports a key one target always sends and the other never; not one sent sometimes, nor under a parent one side lacks", () => {
    const a = {
      keys: { id: "always", endedAt: "always", note: "sometimes", "campaign.name": "always" },
      parents: ["campaign"],
      records: 3,
    };
    const b = { keys: { id: "always", note: "always", "agent.name": "always" }, parents: ["agent"], records: 2 };
    const { differences } = compareObservations(
      [obs("listCalls", "field", "items", a)],
      [obs("listCalls", "field", "items", b)],
    );
    expect(differences).toEqual([
      {
        operationId: "listCalls",
        kind: "field",
        a: { probe: "items", field: "endedAt", present: "in every record" },
        b: { probe: "items", field: "endedAt", present: "in none" },
      },
    ]);
  });

  it("compares nothing without a value on both sides, and counts what one side could not show", () => {
    const { differences, compared, unobserved } = compareObservations(
      [
        obs("listCalls", "order", "first page", { order: "newest-first" }),
        obs("getCall", "status", "other", { status: 404 }),
      ],
      [
        obs("listCalls", "order", "first page"),
        obs("getCall", "status", "other", { status: 403 }),
        obs("x", "status", "only B", { status: 1 }),
      ],
    );
    expect(compared).toBe(1);
    expect(unobserved).toEqual({ a: 0, b: 1 });
    expect(differences.map((d) => d.kind)).toEqual(["status"]);
  });
});

describe("sortDifferences and countByKind", () => {
  it("orders by the spec's operations, then kind; counts every kind", () => {
    const ds = sortDifferences([
      { operationId: "listWebhooks", kind: "status", a: 1, b: 2 },
      { operationId: "listAgents", kind: "field", a: 1, b: 2 },
      { operationId: "listAgents", kind: "outcome", rule: "listAgents.walk", a: 1, b: 2 },
    ]);
    expect(ds.map((d) => `${d.operationId} ${d.kind}`)).toEqual([
      "listAgents outcome",
      "listAgents field",
      "listWebhooks status",
    ]);
    expect(countByKind(ds)).toEqual({ outcome: 1, status: 1, message: 0, default: 0, order: 0, field: 1 });
  });
});
