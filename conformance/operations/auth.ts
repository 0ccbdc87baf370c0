/**
 * Section 5: every operation answers 401 with the error body when the X-API-Key header is missing or
 * holds a key the service never issued. Writes are sent too (they cannot change state without a key),
 * except under --read-only, which promises no request that could.
 */
import { operations } from "../lib/spec.js";
import { defineRules, type RuleSpec } from "../lib/rule.js";
import { sampleRequest } from "./samples.js";

const WRONG_KEY = "conformance-invalid-key-0000000000";

function authRule(operationId: string, method: string): RuleSpec {
  return {
    id: `${operationId}.auth`,
    operationId,
    level: "documented",
    readOnly: method === "GET",
    description: "A missing or invalid API key answers 401 with the error body (section 5).",
    run: async (t) => {
      for (const [label, key] of [["without a key", null], ["with a wrong key", WRONG_KEY]] as const) {
        const ex = await t.call(operationId, { ...sampleRequest(operationId, t.fixtures), key });
        t.expectStatus(ex, 401, `${method} ${ex.request.path} ${label} must answer 401`);
      }
    },
  };
}

/**
 * x-assumption of the 403 response: a valid read-only key answers 403 on an operation that changes
 * state. Only the kit's mock can issue such a key (POST /__mock/workspaces {"readOnly": true}).
 */
function forbiddenRule(operationId: string): RuleSpec {
  return {
    id: `${operationId}.read-only-key`,
    operationId,
    level: "assumed",
    readOnly: false,
    description: "A read-only API key answers 403 with the error body on an operation that changes state (x-assumption).",
    run: async (t) => {
      const control = t.fixtures.control;
      if (!control) return t.skip("needs the mock's control plane to issue a read-only key");
      const { apiKey } = await control.createWorkspace({ empty: true, readOnly: true });
      const ex = await t.call(operationId, { ...sampleRequest(operationId, t.fixtures), key: apiKey });
      t.expectStatus(ex, 403, `${ex.request.method} ${ex.request.path} with a read-only key must answer 403`);
    },
  };
}

const writes = [...operations.values()].filter((op) => op.method !== "GET");

export const authRules = defineRules("auth", [
  ...[...operations.values()].map((op) => authRule(op.operationId, op.method)),
  ...writes.map((op) => forbiddenRule(op.operationId)),
]);
