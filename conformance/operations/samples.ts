/**
 * One well-formed request per operation, built from the fixtures: what the auth rules send without a
 * key (so only the key can be wrong) and what the Dredd hooks and the fuzzer start from.
 */
import type { Fixtures } from "../fixtures/types.js";
import type { RequestSpec } from "../lib/http.js";

const PLACEHOLDER_ID = "00000000-0000-4000-8000-000000000000";

export function knowledgeBaseForm(name: string): FormData {
  const form = new FormData();
  form.set("name", name);
  form.set("knowledge_base_texts", JSON.stringify(["Opening hours are 9 to 5."]));
  return form;
}

/** The operations with a sample request: the reference's 17 (an operation a spec author adds has generic rules). */
export const SAMPLED_OPERATIONS: ReadonlySet<string> = new Set([
  "listAgents",
  "createIntegration",
  "getIntegration",
  "updateIntegration",
  "createIntegrationAuth",
  "createBatchRun",
  "getBatchRun",
  "listTestRuns",
  "createKnowledgeBase",
  "listCalls",
  "getCall",
  "getQaRule",
  "deleteQaRule",
  "listPhoneNumbers",
  "updatePhoneNumber",
  "createChat",
  "listWebhooks",
]);

export function sampleRequest(operationId: string, f: Fixtures): RequestSpec {
  const agentId = f.agentId ?? PLACEHOLDER_ID;
  const phone = encodeURIComponent(f.phoneNumber ?? "+14155550100");
  switch (operationId) {
    case "listAgents":
      return { method: "GET", path: "/v1/agents" };
    case "createIntegration":
      return {
        method: "POST",
        path: "/v1/integrations",
        body: { name: `${f.runId} integration`, description: "Created by the conformance suite" },
      };
    case "getIntegration":
      return { method: "GET", path: `/v1/integrations/${PLACEHOLDER_ID}` };
    case "updateIntegration":
      return { method: "PATCH", path: `/v1/integrations/${PLACEHOLDER_ID}`, body: { description: "x" } };
    case "createIntegrationAuth":
      return { method: "POST", path: `/v1/integrations/${PLACEHOLDER_ID}/auth`, body: { authType: "NONE" } };
    case "createBatchRun":
      return {
        method: "POST",
        path: "/v1/batch-runs",
        body: { agentId, testCases: f.testCaseIds.length ? f.testCaseIds : [PLACEHOLDER_ID] },
      };
    case "getBatchRun":
      return { method: "GET", path: `/v1/batch-runs/${encodeURIComponent(f.batchId ?? PLACEHOLDER_ID)}` };
    case "listTestRuns":
      return { method: "GET", path: "/v1/test-runs" };
    case "createKnowledgeBase":
      return { method: "POST", path: "/v1/knowledge-bases", body: knowledgeBaseForm(`${f.runId} kb`) };
    case "listCalls":
      return { method: "GET", path: "/v1/calls" };
    case "getCall":
      return { method: "GET", path: `/v1/calls/${encodeURIComponent(f.callId ?? PLACEHOLDER_ID)}` };
    case "getQaRule":
      return { method: "GET", path: `/v1/qa-rules/${encodeURIComponent(f.qaRuleId ?? PLACEHOLDER_ID)}` };
    // An id no rule exists under: sent without a valid key, a deployment whose auth leaks still deletes nothing.
    case "deleteQaRule":
      return { method: "DELETE", path: `/v1/qa-rules/${PLACEHOLDER_ID}` };
    case "listPhoneNumbers":
      return { method: "GET", path: "/v1/phone-number" };
    // No field: on a foreign target a deployment whose auth leaks must not have its number's label changed.
    case "updatePhoneNumber":
      return { method: "PATCH", path: `/v1/phone-number/${phone}`, body: {} };
    case "createChat":
      return { method: "POST", path: "/v1/chat", body: { agentId, conversation: "Hello" } };
    case "listWebhooks":
      return { method: "GET", path: "/v1/webhooks" };
    default:
      throw new Error(`no sample request for ${operationId}`);
  }
}

export { PLACEHOLDER_ID };
