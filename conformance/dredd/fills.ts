/**
 * What the Dredd hooks put into each transaction: real ids of the target instead of the spec's
 * example ids, bodies that reference them, and the multipart body of E9 (Dredd cannot build one).
 */
import { randomBytes } from "node:crypto";
import { discoverFixtures } from "../fixtures/discover.js";
import { detectTarget } from "../fixtures/control.js";
import { mockFixtures } from "../fixtures/mock-fixtures.js";
import { send } from "../lib/http.js";
import type { Fill } from "./hooks-source.js";

function multipart(fields: Record<string, string>): { body: string; contentType: string } {
  const boundary = `----conformance${randomBytes(8).toString("hex")}`;
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return { body: `${parts.join("")}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function buildDreddFixtures(baseUrl: string, apiKey: string) {
  const runId = `conformance-dredd-${randomBytes(3).toString("hex")}`;
  const notes: string[] = [];
  const connection = { baseUrl };
  const mock = (await detectTarget(connection, undefined)).kind === "mock";
  const { fixtures: f, apiKey: key } = mock
    ? await mockFixtures(connection, runId)
    : { fixtures: await discoverFixtures({ baseUrl, apiKey }, runId, {}, { isMock: false, readOnly: false }), apiKey };
  if (!mock) notes.push("foreign target: Dredd's write transactions (E2, E5, E6, E9, E15, E16, E13) act on real data");
  const created = await send(
    { baseUrl, apiKey: key },
    { method: "POST", path: "/v1/integrations", body: { name: `${runId} integration` } },
  );
  const integrationId = (created.json as { integrationId?: string } | undefined)?.integrationId ?? "missing";
  const kb = multipart({
    name: `${runId} kb`,
    knowledge_base_texts: JSON.stringify(["Opening hours are 9 to 5."]),
    knowledge_base_urls: JSON.stringify(["https://example.com/faq"]),
  });
  const agentId = f.agentId ?? "missing";
  const enc = encodeURIComponent;
  const fills: Record<string, Fill> = {
    "GET /v1/integrations/{integrationId}": { path: `/v1/integrations/${enc(integrationId)}` },
    "PATCH /v1/integrations/{integrationId}": { path: `/v1/integrations/${enc(integrationId)}` },
    "POST /v1/integrations/{integrationId}/auth": { path: `/v1/integrations/${enc(integrationId)}/auth` },
    "POST /v1/batch-runs": { body: JSON.stringify({ agentId, testCases: f.testCaseIds }) },
    "GET /v1/batch-runs/{batchId}": { path: `/v1/batch-runs/${enc(f.batchId ?? "missing")}` },
    "GET /v1/test-runs": { path: `/v1/test-runs?page=0&size=10${f.batchId ? `&batchId=${enc(f.batchId)}` : ""}` },
    "POST /v1/knowledge-bases": { body: kb.body, headers: { "Content-Type": kb.contentType } },
    "GET /v1/calls/{callId}": { path: `/v1/calls/${enc(f.callId ?? "missing")}` },
    "GET /v1/qa-rules/{qaRuleId}": { path: `/v1/qa-rules/${enc(f.qaRuleId ?? "missing")}` },
    "DELETE /v1/qa-rules/{qaRuleId}": { path: `/v1/qa-rules/${enc(f.qaRuleIdToDelete ?? "missing")}` },
    "PATCH /v1/phone-number/{phoneNumber}": {
      path: `/v1/phone-number/${enc(f.phoneNumber ?? "+14155550100")}`,
      body: JSON.stringify({ friendlyName: `${runId} line`, inboundAgentId: agentId }),
    },
    "POST /v1/chat": {
      body: JSON.stringify({
        agentId,
        conversation: "Can I move my appointment to Friday?",
        variables: { customerName: "Dana" },
      }),
    },
    "GET /v1/webhooks": { path: `/v1/webhooks?page=0&size=10&agentId=${enc(agentId)}` },
  };
  for (const [what, id] of [
    ["QA rule to read", f.qaRuleId],
    ["QA rule to delete", f.qaRuleIdToDelete],
    ["call", f.callId],
    ["batch run", f.batchId],
  ] as const) {
    if (!id) notes.push(`no ${what} on the target: that transaction will fail with 404`);
  }
  return { apiKey: key, fills, notes };
}
