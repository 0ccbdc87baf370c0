/**
 * --fuzz N: per operation, N generated requests, valid and invalid, from the spec's schemas.
 * Always: no 5xx, and every error carries the 2.2 body (expectConforms on each response).
 * At level assumed also: valid requests are not rejected (400) and invalid ones are (4xx); the
 * spec's required fields and closed bodies are assumptions, so a foreign target is not judged on them.
 * Valid writes that would create records are sent to the kit's mock only.
 */
import fc from "fast-check";
import type { RequestSpec } from "../lib/http.js";
import { defineRules, type Rule, type RuleContext, type RuleSpec } from "../lib/rule.js";
import { operations, resolvePointer, spec, type Json, type OperationInfo } from "../lib/spec.js";
import { invalidBody, validArbitrary } from "./arbitraries.js";

const SEED = 20_261_101;
const CREATES = new Set(["createIntegration", "createKnowledgeBase", "createBatchRun", "createChat"]);

interface Case { request: RequestSpec; valid: boolean; why: string }

function pathWith(op: OperationInfo, value: string): string {
  return op.path.replace(/\{[^}]+\}/, encodeURIComponent(value));
}

function queryArbitrary(op: OperationInfo, valid: boolean): fc.Arbitrary<{ query: Record<string, string>; why: string }> {
  const params = op.parameters.filter((p) => p.in === "query");
  const record = fc.record(Object.fromEntries(params.map((p) => [p.name as string, validArbitrary(p.schema as Json).map(String)])), { requiredKeys: [] });
  const breakable = params.filter((p) => ["page", "size", "status", "active"].includes(p.name as string));
  if (valid || breakable.length === 0) return record.map((query) => ({ query: query as Record<string, string>, why: "valid query" }));
  const bad: Record<string, string[]> = { page: ["-1", "abc", "1.5", "99999999999"], size: ["0", "-5", "abc", "2.5", "99999999999"], status: ["finished", "ENDED", ""], active: ["maybe", "2"] };
  return fc.tuple(record, fc.constantFrom(...breakable)).chain(([query, p]) => fc.constantFrom(...bad[p.name as string]).map((v) => ({ query: { ...(query as Record<string, string>), [p.name as string]: v }, why: `${p.name}=${v}` })));
}

function caseArbitrary(op: OperationInfo, t: RuleContext): fc.Arbitrary<Case> {
  const pathParam = op.parameters.find((p) => p.in === "path");
  const pathValue = pathParam ? validArbitrary(pathParam.schema as Json).map(String) : fc.constant("");
  const bodySchema = op.requestSchemaPointer && op.requestContentType === "application/json" ? (resolvePointer(spec, op.requestSchemaPointer) as Json) : undefined;
  const mayCreate = t.fixtures.isMock || !CREATES.has(op.operationId);
  const valid = fc.tuple(pathValue, queryArbitrary(op, true), bodySchema ? validArbitrary(bodySchema) : fc.constant(undefined)).map(([p, q, body]) => ({ request: { method: op.method, path: pathWith(op, p), query: q.query, body }, valid: true, why: "valid request" }));
  const invalidQuery = fc.tuple(pathValue, queryArbitrary(op, false)).map(([p, q]) => ({ request: { method: op.method, path: pathWith(op, p), query: q.query }, valid: false, why: q.why }));
  const invalid = bodySchema
    ? fc.tuple(pathValue, invalidBody(bodySchema)).map(([p, b]) => ({ request: { method: op.method, path: pathWith(op, p), body: b.body }, valid: false, why: b.why }))
    : invalidQuery;
  // E9 is multipart: the fuzzer only sends it bodies that are not a form, which must be refused.
  if (op.requestContentType === "multipart/form-data") {
    return fc.constantFrom("{}", "name=x", "").map((rawBody) => ({ request: { method: op.method, path: op.path, rawBody, headers: { "Content-Type": rawBody.startsWith("{") ? "application/json" : "text/plain" } }, valid: false, why: `a ${rawBody.startsWith("{") ? "JSON" : "text"} body instead of a form` }));
  }
  const hasInvalid = !!bodySchema || op.parameters.some((p) => p.in === "query" && ["page", "size", "status", "active"].includes(p.name as string));
  const choices = [...(mayCreate && op.operationId !== "createKnowledgeBase" ? [valid] : []), ...(hasInvalid ? [invalid] : [])];
  return choices.length > 0 ? fc.oneof(...choices) : valid;
}

function fuzzRule(op: OperationInfo, n: number): RuleSpec {
  return {
    id: `${op.operationId}.fuzz`, operationId: op.operationId, level: "documented", readOnly: op.method === "GET",
    description: `${n} generated requests: no 5xx, errors in the 2.2 shape; at level assumed valid ones accepted and invalid ones rejected.`,
    run: async (t) => {
      const cases = fc.sample(caseArbitrary(op, t), { numRuns: n, seed: SEED });
      for (const c of cases) {
        const ex = await t.call(op.operationId, c.request);
        t.expect(ex.status < 500, { pointer: "#status", expected: "not 5xx", actual: ex.status, message: `${c.why}: the server must not fail`, exchange: ex });
        if (c.valid) t.expect(ex.status !== 400, { pointer: "#status", expected: "not 400", actual: `${ex.status} ${ex.text.slice(0, 200)}`, message: "a request valid by the spec is not rejected", exchange: ex, assumed: true });
        else t.expect(ex.status >= 400 && ex.status < 500, { pointer: "#status", expected: "4xx", actual: ex.status, message: `${c.why}: an invalid request is rejected`, exchange: ex, assumed: true });
      }
    },
  };
}

export function fuzzRules(n: number): Rule[] {
  return defineRules("fuzz", [...operations.values()].map((op) => fuzzRule(op, n)));
}
