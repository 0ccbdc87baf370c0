/**
 * The one generator of requests from the spec: for an operation, a valid request (path, query and
 * body that the spec accepts) or an invalid one (one rule of the spec broken). The conformance
 * suite's --fuzz rules and `npm run fuzz` (which adds hostile mutations on top) both draw from here.
 */
import fc from "fast-check";
import type { RequestSpec } from "../lib/http.js";
import { resolvePointer, spec, type Json, type OperationInfo } from "../lib/spec.js";
import { invalidBody, validArbitrary, withKnown, type Known } from "./arbitraries.js";

export interface Case {
  request: RequestSpec;
  valid: boolean;
  why: string;
}

export interface CaseOptions {
  /** Whether valid requests may be writes that create records (only on the kit's own mock). */
  mayCreate: boolean;
  /** Ids the target holds, by parameter or property name: valid requests mostly use them. */
  known?: Known;
  /** Valid bodies that fit the target's records (a batch run of an agent's own test cases), by operationId. */
  validBodies?: Record<string, fc.Arbitrary<unknown>>;
}

const CREATES = new Set(["createIntegration", "createKnowledgeBase", "createBatchRun", "createChat"]);
/** Query parameters with rules to break, and values that break them. */
const BAD_QUERY: Record<string, string[]> = {
  page: ["-1", "abc", "1.5", "99999999999"],
  size: ["0", "-5", "abc", "2.5", "99999999999"],
  status: ["finished", "ENDED", ""],
  active: ["maybe", "2"],
};

export function isCreate(op: OperationInfo): boolean {
  return CREATES.has(op.operationId);
}

export function pathWith(op: OperationInfo, value: string): string {
  return op.path.replace(/\{[^}]+\}/, encodeURIComponent(value));
}

export function bodySchemaOf(op: OperationInfo): Json | undefined {
  return op.requestSchemaPointer && op.requestContentType === "application/json"
    ? (resolvePointer(spec, op.requestSchemaPointer) as Json)
    : undefined;
}

function queryArbitrary(
  op: OperationInfo,
  valid: boolean,
  known: Known,
): fc.Arbitrary<{ query: Record<string, string>; why: string }> {
  const params = op.parameters.filter((p) => p.in === "query");
  const record = fc.record(
    Object.fromEntries(
      params.map((p) => [
        p.name as string,
        withKnown(p.name as string, validArbitrary(p.schema as Json), known).map(String),
      ]),
    ),
    { requiredKeys: [] },
  );
  const breakable = params.filter((p) => (p.name as string) in BAD_QUERY);
  if (valid || breakable.length === 0)
    return record.map((query) => ({ query: query as Record<string, string>, why: "valid query" }));
  return fc.tuple(record, fc.constantFrom(...breakable)).chain(([query, p]) =>
    fc.constantFrom(...BAD_QUERY[p.name as string]).map((v) => ({
      query: { ...(query as Record<string, string>), [p.name as string]: v },
      why: `${p.name}=${v}`,
    })),
  );
}

export function caseArbitrary(op: OperationInfo, options: CaseOptions): fc.Arbitrary<Case> {
  const known = options.known ?? {};
  const pathParam = op.parameters.find((p) => p.in === "path");
  const pathValue = pathParam
    ? withKnown(pathParam.name as string, validArbitrary(pathParam.schema as Json), known).map(String)
    : fc.constant("");
  const bodySchema = bodySchemaOf(op);
  const mayCreate = options.mayCreate || !CREATES.has(op.operationId);
  const given = options.validBodies?.[op.operationId];
  const validBody = bodySchema
    ? given
      ? fc.oneof(given, validArbitrary(bodySchema, 0, known))
      : validArbitrary(bodySchema, 0, known)
    : fc.constant(undefined);
  const valid = fc.tuple(pathValue, queryArbitrary(op, true, known), validBody).map(([p, q, body]) => ({
    request: { method: op.method, path: pathWith(op, p), query: q.query, body },
    valid: true,
    why: "valid request",
  }));
  const invalidQuery = fc.tuple(pathValue, queryArbitrary(op, false, known)).map(([p, q]) => ({
    request: { method: op.method, path: pathWith(op, p), query: q.query },
    valid: false,
    why: q.why,
  }));
  const invalid = bodySchema
    ? fc.tuple(pathValue, invalidBody(bodySchema, known)).map(([p, b]) => ({
        request: { method: op.method, path: pathWith(op, p), body: b.body },
        valid: false,
        why: b.why,
      }))
    : invalidQuery;
  // E9 is multipart: here it only gets bodies that are not a form, which must be refused.
  if (op.requestContentType === "multipart/form-data") {
    return fc.constantFrom("{}", "name=x", "").map((rawBody) => ({
      request: {
        method: op.method,
        path: op.path,
        rawBody,
        headers: { "Content-Type": rawBody.startsWith("{") ? "application/json" : "text/plain" },
      },
      valid: false,
      why: `a ${rawBody.startsWith("{") ? "JSON" : "text"} body instead of a form`,
    }));
  }
  const hasInvalid = !!bodySchema || op.parameters.some((p) => p.in === "query" && (p.name as string) in BAD_QUERY);
  const choices = [...(mayCreate ? [valid] : []), ...(hasInvalid ? [invalid] : [])];
  return choices.length > 0 ? fc.oneof(...choices) : valid;
}
