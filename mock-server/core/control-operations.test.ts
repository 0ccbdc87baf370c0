/** The control plane's table and validation (control-operations.ts), without a server. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import {
  type ControlOperation,
  controlInput,
  controlOperations,
  controlReplyDrift,
  type SentControlInput,
} from "./control-operations.js";

const spec = JSON.parse(readFileSync(new URL("../../generated/mock-control.json", import.meta.url), "utf8"));
const op = (id: string) => controlOperations.find((o) => o.operationId === id) as ControlOperation;

/** The ApiError `controlInput` throws for this request. */
function refusal(
  id: string,
  sent: { path?: Record<string, string>; query?: Record<string, string | string[]>; body?: unknown },
  check?: (input: SentControlInput) => Record<string, string> | undefined,
): ApiError {
  try {
    controlInput(op(id), { path: {}, query: {}, body: undefined, ...sent }, check);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${id} accepted ${JSON.stringify(sent)}`);
}

describe("the control operations", () => {
  it("are the spec's, with its methods and paths", () => {
    const documented = Object.entries<Record<string, { operationId: string }>>(spec.paths).flatMap(([path, item]) =>
      ["get", "post", "put", "patch", "delete"]
        .filter((m) => item[m])
        .map((m) => `${item[m].operationId} ${m.toUpperCase()} ${path}`),
    );
    expect(controlOperations.map((o) => `${o.operationId} ${o.method} ${o.path}`).sort()).toEqual(documented.sort());
  });

  it("are in match order: a literal segment before the parameter it would also fit", () => {
    const at = (id: string) => controlOperations.indexOf(op(id));
    expect(at("resetWorkspace")).toBeLessThan(at("createRecord"));
    expect(at("exportSnapshot")).toBeLessThan(at("listRecords"));
    expect(at("importSnapshot")).toBeLessThan(at("listRecords"));
  });
});

describe("controlInput", () => {
  it("coerces query strings to their types and keeps a valid body as sent", () => {
    expect(
      controlInput(op("listRequests"), { path: {}, query: { status: "404", limit: "3" }, body: undefined }),
    ).toEqual({ params: {}, query: { status: 404, limit: 3 }, body: undefined });
    const body = { seconds: 5, workspaceId: "ws-1" };
    expect(controlInput(op("advanceClock"), { path: {}, query: {}, body }).body).toEqual(body);
  });

  it("refuses a query name the operation does not have, a repeated one and a wrong value, in one 400", () => {
    const error = refusal("listRequests", { query: { colour: "red", method: ["GET", "POST"], status: "abc" } });
    expect(error.status).toBe(400);
    expect(error.validationErrors).toEqual({
      colour: "is not a query parameter of listRequests; those are: operationId, workspaceId, method, status, limit",
      method: "is given more than once",
      status: "must be integer",
    });
    expect(refusal("countRequests", { query: { limit: "1" } }).validationErrors).toHaveProperty("limit");
    expect(refusal("getClock", { query: { workspaceId: ["a", "b"] } }).validationErrors).toEqual({
      workspaceId: "is given more than once",
    });
  });

  it("ignores the query of an operation that has no query parameters", () => {
    expect(controlInput(op("getHealth"), { path: {}, query: { t: "1" }, body: undefined }).params).toEqual({});
  });

  it("answers 404 for a path parameter the spec refuses: the path names nothing", () => {
    const error = refusal("listRecords", { path: { workspaceId: "default", collection: "widgets" } });
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^Unknown collection widgets: must be one of: agents, calls/);
  });

  it("requires a required body and ignores one the operation does not document", () => {
    expect(refusal("advanceClock", {}).validationErrors).toEqual({ body: "is required" });
    expect(
      controlInput(op("createRecord"), { path: { workspaceId: "w", collection: "calls" }, query: {}, body: undefined })
        .body,
    ).toBeUndefined();
    expect(controlInput(op("clearFaults"), { path: {}, query: {}, body: { any: 1 } }).body).toBeUndefined();
  });

  it("names body fields as the API does", () => {
    expect(refusal("createWorkspace", { body: { seed: "x", empty: 1, colour: "red" } }).validationErrors).toEqual({
      seed: "must be integer",
      empty: "must be boolean",
      colour: "is not allowed",
    });
    expect(refusal("createWorkspace", { body: [1] }).validationErrors).toEqual({ body: "must be object" });
    expect(refusal("advanceClock", { body: { seconds: 31_536_001, workspaceId: "" } }).validationErrors).toEqual({
      seconds: "must be <= 31536000",
      workspaceId: "must NOT have fewer than 1 characters",
    });
  });

  it("says a field no schema of an allOf has is not allowed", () => {
    expect(refusal("createFault", { body: { status: 500, color: "red" } }).validationErrors).toEqual({
      color: "is not allowed",
    });
  });

  it("names a key refused by propertyNames", () => {
    expect(refusal("importSnapshot", { path: { workspaceId: "w" }, body: { widgets: [] } }).validationErrors).toEqual({
      widgets: expect.stringMatching(/^is not allowed as a name: must be one of: agents, calls/),
    });
  });

  it("names a value that fits none of a oneOf's forms whole, with what its own form lacks", () => {
    const latency = (value: unknown) => refusal("createFault", { body: { latency: value } }).validationErrors;
    expect(latency({ distribution: "lognormal", medianMs: 100 })).toEqual({ latency: "sigma is required" });
    expect(latency({ distribution: "fixed", ms: 1, sigma: 2 })).toEqual({ latency: "sigma is not allowed" });
    expect(latency({ distribution: "gamma" })).toEqual({
      latency: "distribution must be one of: fixed, uniform, lognormal",
    });
    expect(latency(5)).toEqual({ latency: "must be object" });
  });

  it("runs the operation's own check with the schema, and reports both at once", () => {
    const check = (input: SentControlInput) =>
      (input.body as { seconds?: unknown }).seconds === 7 ? { seconds: "is unlucky", other: "too" } : undefined;
    expect(refusal("advanceClock", { body: { seconds: 7, colour: 1 } }, check).validationErrors).toEqual({
      colour: "is not allowed",
      seconds: "is unlucky",
      other: "too",
    });
    // The schema's message comes first for a field both name.
    expect(refusal("advanceClock", { body: { seconds: -1 } }, () => ({ seconds: "is odd" })).validationErrors).toEqual({
      seconds: "must be >= 0",
    });
  });
});

describe("controlReplyDrift", () => {
  it("accepts a documented reply and names what is off in another", () => {
    const health = op("getHealth");
    expect(
      controlReplyDrift(health, { status: 200, body: { status: "ok", kit: "agent-platform-mock-kit", version: "1" } }),
    ).toBeUndefined();
    expect(controlReplyDrift(health, { status: 201, body: {} })).toBe("status 201 is not documented");
    expect(controlReplyDrift(health, { status: 200, body: { status: "ok" } })).toMatch(
      /^body of 200 does not match the spec: \/ must have required property 'kit'/,
    );
    expect(controlReplyDrift(op("clearFaults"), { status: 204 })).toBeUndefined();
    expect(controlReplyDrift(op("clearFaults"), { status: 204, body: {} })).toBe("status 204 must have no body");
  });
});
