/**
 * --fuzz N: per operation, N generated requests, valid and invalid, from the spec's schemas.
 * Always: no 5xx, and every error carries the 2.2 body (expectConforms on each response).
 * At level assumed also: valid requests are not rejected (400) and invalid ones are (4xx); the
 * spec's required fields and closed bodies are assumptions, so a foreign target is not judged on them.
 * Valid writes that would create records are sent to the kit's mock only.
 */
import fc from "fast-check";
import { defineRules, type Rule, type RuleSpec } from "../lib/rule.js";
import { operations, type OperationInfo } from "../lib/spec.js";
import { caseArbitrary } from "./requests.js";

const SEED = 20_261_101;

function fuzzRule(op: OperationInfo, n: number): RuleSpec {
  return {
    id: `${op.operationId}.fuzz`,
    operationId: op.operationId,
    level: "documented",
    readOnly: op.method === "GET",
    description: `${n} generated requests: no 5xx, errors in the 2.2 shape; at level assumed valid ones accepted and invalid ones rejected.`,
    run: async (t) => {
      const cases = fc.sample(caseArbitrary(op, { mayCreate: t.fixtures.isMock }), { numRuns: n, seed: SEED });
      for (const c of cases) {
        const ex = await t.call(op.operationId, c.request);
        t.expect(ex.status < 500, {
          pointer: "#status",
          expected: "not 5xx",
          actual: ex.status,
          message: `${c.why}: the server must not fail`,
          exchange: ex,
        });
        if (c.valid)
          t.expect(ex.status !== 400, {
            pointer: "#status",
            expected: "not 400",
            actual: `${ex.status} ${ex.text.slice(0, 200)}`,
            message: "a request valid by the spec is not rejected",
            exchange: ex,
            assumed: true,
          });
        else
          t.expect(ex.status >= 400 && ex.status < 500, {
            pointer: "#status",
            expected: "4xx",
            actual: ex.status,
            message: `${c.why}: an invalid request is rejected`,
            exchange: ex,
            assumed: true,
          });
      }
    },
  };
}

export function fuzzRules(n: number): Rule[] {
  return defineRules(
    "fuzz",
    [...operations.values()].map((op) => fuzzRule(op, n)),
  );
}
