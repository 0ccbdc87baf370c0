import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import { FaultRules } from "./faults.js";
import type { Operation } from "./operations.js";

/** Two operations with the error statuses they document: all faults need from an operation. */
function operations(): Map<string, Operation> {
  const op = (operationId: string, statuses: number[]) =>
    [operationId, { operationId, responses: new Map(statuses.map((s) => [s, { status: s }])) }] as const;
  return new Map([op("listCalls", [200, 400, 401, 500]), op("createCall", [201, 400, 401, 404, 500])]) as never;
}

const rules = () => new FaultRules(operations(), (id) => id === "ws-1");

function refusal(work: () => unknown): Record<string, string> {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).validationErrors ?? {};
  }
  throw new Error("not refused");
}

describe("FaultRules", () => {
  it("applies the first live rule whose filters fit, in creation order", () => {
    const faults = rules();
    faults.add({ operationId: "createCall", kind: "reset" });
    faults.add({ kind: "status", status: 500 });
    expect(faults.match("listCalls", "ws-1")).toMatchObject({ faultId: "fault-2", kind: "status", status: 500 });
    expect(faults.match("createCall", "ws-1")).toMatchObject({ faultId: "fault-1", kind: "reset" });
  });

  it("skips the first `after` matches and stops after `times` applications", () => {
    const faults = rules();
    faults.add({ kind: "empty", after: 1, times: 2 });
    const seen = [1, 2, 3, 4].map(() => faults.match("listCalls", "ws-1")?.kind);
    expect(seen).toEqual([undefined, "empty", "empty", undefined]);
    expect(faults.list()[0]).toMatchObject({ matched: 3, applied: 2 });
  });

  it("scopes a rule to a workspace, and clear(workspaceId) drops only those", () => {
    const faults = rules();
    faults.add({ kind: "reset", workspaceId: "ws-1" });
    faults.add({ kind: "empty", operationId: "createCall" });
    expect(faults.match("listCalls", "ws-2")).toBeUndefined();
    faults.clear("ws-1");
    expect(faults.list().map((r) => r.faultId)).toEqual(["fault-2"]);
  });

  it("meets the same faults again with the same seed", () => {
    const run = () => {
      const faults = rules();
      faults.add({ kind: "reset", probability: 0.5, seed: 42 });
      return Array.from({ length: 40 }, () => faults.match("listCalls", "ws-1") !== undefined);
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(first.filter(Boolean).length).toBeGreaterThan(5);
    expect(first.filter(Boolean).length).toBeLessThan(35);
  });

  it("draws a latency within its bounds", () => {
    const faults = rules();
    faults.add({ latency: { distribution: "uniform", minMs: 10, maxMs: 20 }, seed: 1 });
    for (let i = 0; i < 20; i++) {
      const delay = faults.match("listCalls", "ws-1")!.delayMs;
      expect(delay).toBeGreaterThanOrEqual(10);
      expect(delay).toBeLessThanOrEqual(20);
    }
  });

  it("refuses a status the operation does not document, naming the documented ones", () => {
    expect(refusal(() => rules().add({ operationId: "listCalls", status: 404 })).status).toBe(
      "must be an error status listCalls documents: one of 400, 401, 500",
    );
    expect(refusal(() => rules().add({ status: 404 })).status).toMatch(/every operation documents .*400, 401, 500/);
  });

  it("refuses unknown fields, an unknown operation or workspace, and a rule that does nothing", () => {
    const errors = refusal(() => rules().add({ colour: "red", operationId: "nope", workspaceId: "ws-9" }));
    expect(Object.keys(errors).sort()).toEqual(["colour", "kind", "operationId", "workspaceId"]);
    expect(refusal(() => rules().add({ delayMs: 1, latency: { distribution: "fixed", ms: 1 } })).latency).toMatch(
      /exclude each other/,
    );
  });

  it("keeps a rule's place and its random state through stored/put", () => {
    const faults = rules();
    faults.add({ kind: "reset", probability: 0.5, seed: 7 });
    faults.add({ kind: "empty" });
    faults.match("listCalls", "ws-1");
    const stored = faults.stored("fault-1")!;
    const copy = rules();
    copy.put("fault-2", faults.stored("fault-2"));
    copy.put("fault-1", stored);
    expect(copy.list().map((r) => r.faultId)).toEqual(["fault-1", "fault-2"]);
    const next = () => faults.match("listCalls", "ws-1")?.faultId;
    const nextCopy = () => copy.match("listCalls", "ws-1")?.faultId;
    expect(Array.from({ length: 10 }, nextCopy)).toEqual(Array.from({ length: 10 }, next));
  });
});
