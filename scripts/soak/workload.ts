/**
 * What each soak connection sends, in a loop: every operation (E1-E17), reads and writes mixed.
 * Writes: E2, E4, E5, E6, E9 (a small form), E13 (on a rule the loop created through the control
 * plane just before), E15, E16. Each request is valid, so any non-2xx answer counts as an error.
 */
import type { SoakWorkspace } from "./fixtures.js";

export interface SoakRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (req: SoakRequest) => SoakRequest;
  onResponse?: (status: number, body: string) => void;
}

export interface Failures {
  count: number;
  byRequest: Map<string, number>;
  samples: string[];
}

export function newFailures(): Failures {
  return { count: 0, byRequest: new Map(), samples: [] };
}

const BOUNDARY = "soakBoundary9f3c";
const FORM = [
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nSoak FAQ\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_texts"\r\n\r\n["Opening hours are 9 to 5."]\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="faq.txt"\r\nContent-Type: text/plain\r\n\r\nReturns within 30 days.\r\n`,
  `--${BOUNDARY}--\r\n`,
].join("");

/** The loop of one connection, against one workspace; `conn` keeps its rule ids apart from other connections'. */
export function requestsFor(ws: SoakWorkspace, conn: number, failures: Failures): SoakRequest[] {
  const json = { "X-API-Key": ws.apiKey, "Content-Type": "application/json" };
  const key = { "X-API-Key": ws.apiKey };
  let round = 0;
  const rule = () => `soak-rule-${conn}-${round}`;
  const phone = encodeURIComponent(ws.phoneNumber);
  const list: Omit<SoakRequest, "onResponse">[] = [
    { name: "E1 listAgents", method: "GET", path: "/v1/agents?page=0&size=10", headers: key },
    {
      name: "E2 createIntegration",
      method: "POST",
      path: "/v1/integrations",
      headers: json,
      body: JSON.stringify({ name: `Soak ${conn}`, description: "created by the soak" }),
    },
    { name: "E3 getIntegration", method: "GET", path: `/v1/integrations/${ws.integrationId}`, headers: key },
    {
      name: "E4 updateIntegration",
      method: "PATCH",
      path: `/v1/integrations/${ws.integrationId}`,
      headers: json,
      body: JSON.stringify({ description: `touched by connection ${conn}` }),
    },
    {
      name: "E5 createIntegrationAuth",
      method: "POST",
      path: `/v1/integrations/${ws.integrationId}/auth`,
      headers: json,
      body: JSON.stringify({ authType: "BEARER", token: "soak-token" }),
    },
    {
      name: "E6 createBatchRun",
      method: "POST",
      path: "/v1/batch-runs",
      headers: json,
      body: JSON.stringify({ agentId: ws.agentId, testCases: ws.testCaseIds.slice(0, 2) }),
    },
    {
      name: "E7 getBatchRun",
      method: "GET",
      path: `/v1/batch-runs/${ws.batchId}?agentId=${ws.batchAgentId}`,
      headers: key,
    },
    { name: "E8 listTestRuns", method: "GET", path: "/v1/test-runs?size=5", headers: key },
    {
      name: "E9 createKnowledgeBase",
      method: "POST",
      path: "/v1/knowledge-bases",
      headers: { ...key, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: FORM,
    },
    { name: "E10 listCalls", method: "GET", path: "/v1/calls?status=ended&size=10", headers: key },
    { name: "E11 getCall", method: "GET", path: `/v1/calls/${ws.callId}`, headers: key },
    {
      name: "control: create a QA rule",
      method: "POST",
      path: `/__mock/workspaces/${ws.workspaceId}/qaRules`,
      headers: { "Content-Type": "application/json" },
      setupRequest: (req) => {
        round++;
        return { ...req, body: JSON.stringify({ qaRuleId: rule(), ruleName: "soak rule" }) };
      },
    },
    {
      name: "E12 getQaRule",
      method: "GET",
      path: "",
      headers: key,
      setupRequest: (req) => ({ ...req, path: `/v1/qa-rules/${rule()}` }),
    },
    {
      name: "E13 deleteQaRule",
      method: "DELETE",
      path: "",
      headers: key,
      setupRequest: (req) => ({ ...req, path: `/v1/qa-rules/${rule()}` }),
    },
    { name: "E14 listPhoneNumbers", method: "GET", path: "/v1/phone-number?page=0&size=10", headers: key },
    {
      name: "E15 updatePhoneNumber",
      method: "PATCH",
      path: `/v1/phone-number/${phone}`,
      headers: json,
      body: JSON.stringify({ friendlyName: `Soak line ${conn}`, trunkPassword: "soak-secret" }),
    },
    {
      name: "E16 createChat",
      method: "POST",
      path: "/v1/chat",
      headers: json,
      body: JSON.stringify({
        agentId: ws.agentId,
        conversation: "Where is my order?",
        variables: { customerName: "Ada" },
      }),
    },
    { name: "E17 listWebhooks", method: "GET", path: `/v1/webhooks?agentId=${ws.agentId}&active=true`, headers: key },
  ];
  return list.map((req) => ({
    ...req,
    onResponse: (status: number, body: string) => {
      if (status >= 200 && status < 300) return;
      failures.count++;
      failures.byRequest.set(req.name, (failures.byRequest.get(req.name) ?? 0) + 1);
      if (failures.samples.length < 5) failures.samples.push(`${req.name}: ${status} ${body.slice(0, 300)}`);
    },
  }));
}
