/**
 * Secrets stay in: integration credentials (token, password, API key value) and trunk passwords,
 * seeded or sent (accepted or refused), appear in no response of any operation or of the control
 * plane, in no log line and not in the request journal. Webhook signing secrets appear only where
 * the reference shows them (E17's webhooks, E1's agentSettings.webhooks) and in the control plane's
 * own records of those collections; never in another response, a log line, the journal or the outbox.
 */
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useMock } from "../harness.js";

const t = useMock({ webhooks: { maxAttempts: 2, backoffSeconds: 1, timeoutMs: 1000 } });

const spec = JSON.parse(readFileSync(new URL("../../../generated/openapi.json", import.meta.url), "utf8"));
const operationIds = Object.values<Record<string, { operationId?: string }>>(spec.paths).flatMap((item) =>
  ["get", "post", "put", "patch", "delete"].filter((m) => item[m]).map((m) => item[m].operationId!),
);

/** A loopback port nobody listens on: deliveries there are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const json = (body: unknown) => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
const patch = (body: unknown) => ({ ...json(body), method: "PATCH" });

describe("secrets", () => {
  it("never appear in a response, a log line or the journal, except webhook secrets where the reference shows them", async () => {
    const ws = t.mock.mock.services.workspaces.get("default")!;
    const seededCredentials = [...ws.credentials.values()]
      .flatMap((c) => [
        ("token" in c && c.token) || "",
        ("password" in c && c.password) || "",
        ("apiKey" in c && c.apiKey.value) || "",
      ])
      .filter(Boolean);
    expect(seededCredentials.length).toBeGreaterThan(0);

    const responses = new Map<string, string>();
    const send = async (label: string, path: string, init: RequestInit & { key?: string | null } = {}) => {
      const res = await t.raw(path, init);
      responses.set(`${label} ${init.method ?? "GET"} ${path} -> ${res.status}`, await res.text());
      return res;
    };

    // Credentials, accepted and refused.
    const sent = {
      token: "SECRET-token-a1",
      password: "SECRET-password-b2",
      keyValue: "SECRET-keyvalue-c3",
      refused: "SECRET-refused-d4",
      trunk: "SECRET-trunk-e5",
      trunkRefused: "SECRET-trunk-f6",
    };
    const [i1, i2, i3] = ws.collections.integrations.all().map((i) => i.integrationId);
    await send("createIntegrationAuth", `/v1/integrations/${i1}/auth`, json({ authType: "BEARER", token: sent.token }));
    await send(
      "createIntegrationAuth",
      `/v1/integrations/${i2}/auth`,
      json({ authType: "BASIC", username: "u", password: sent.password }),
    );
    await send(
      "createIntegrationAuth",
      `/v1/integrations/${i3}/auth`,
      json({ authType: "API_KEY", apiKey: { key: "X-Key", value: sent.keyValue, position: "header" } }),
    );
    await send(
      "createIntegrationAuth",
      `/v1/integrations/${i1}/auth`,
      json({ authType: "BEARER", token: sent.refused, password: sent.refused }),
    );
    await send(
      "createIntegrationAuth",
      `/v1/integrations/${i1}/auth`,
      json({ authType: "BASIC", username: "u", password: 42, token: sent.refused }),
    );
    await send(
      "createIntegrationAuth",
      `/v1/integrations/unknown/auth`,
      json({ authType: "BEARER", token: sent.refused }),
    );
    await send("createIntegrationAuth", `/v1/integrations/${i1}/auth?token=${sent.refused}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: `{"authType":"BEARER","token":"${sent.refused}"`,
    });
    const number = encodeURIComponent(ws.collections.phoneNumbers.all()[0].sipPhoneNumber);
    await send(
      "updatePhoneNumber",
      `/v1/phone-number/${number}`,
      patch({ trunkUsername: "user", trunkPassword: sent.trunk }),
    );
    await send(
      "updatePhoneNumber",
      `/v1/phone-number/${number}`,
      patch({ trunkPassword: sent.trunkRefused, trunkPort: 5060 }),
    );
    await send(
      "updatePhoneNumber",
      `/v1/phone-number/${number}`,
      patch({ trunkPassword: sent.trunkRefused, friendlyName: 7 }),
    );
    await send("updatePhoneNumber", "/v1/phone-number/%2B19999999999", patch({ trunkPassword: sent.trunkRefused }));
    expect([...ws.credentials.values()].map((c) => JSON.stringify(c)).join()).toContain(sent.token);
    expect(ws.trunks.get(decodeURIComponent(number))?.trunkPassword).toBe(sent.trunk);

    // A webhook whose receiver is gone: its delivery fails and is logged.
    const agentId = ws.collections.agents.all()[0].agentId;
    const hook = (await (
      await t.raw(
        "/__mock/workspaces/default/webhooks",
        json({
          agentId,
          url: `http://127.0.0.1:${await closedPort()}/hook`,
          active: true,
          events: "conversation_started",
        }),
      )
    ).json()) as { secret: string };
    await send("createChat", "/v1/chat", json({ agentId, conversation: "hello" }));
    await t.mock.mock.services.webhooks.idle();
    await t.advance(5);
    expect(t.logs.some((l) => /webhook delivery .* failed after 2 attempts/.test(l))).toBe(true);

    // Every operation, reads and writes, with what it can show.
    const kb = new FormData();
    kb.set("name", "kb");
    const batch = ws.collections.batchRuns.all()[0];
    const walk: Record<string, () => Promise<unknown>> = {
      listAgents: () => send("listAgents", "/v1/agents?size=100"),
      createIntegration: () => send("createIntegration", "/v1/integrations", json({ name: "n" })),
      getIntegration: async () => {
        for (const id of ws.collections.integrations.all().map((i) => i.integrationId))
          await send("getIntegration", `/v1/integrations/${id}`);
      },
      updateIntegration: () => send("updateIntegration", `/v1/integrations/${i1}`, patch({ description: "d" })),
      createIntegrationAuth: () =>
        send("createIntegrationAuth", `/v1/integrations/${i2}/auth`, json({ authType: "NONE" })),
      createBatchRun: () =>
        send(
          "createBatchRun",
          "/v1/batch-runs",
          json({
            agentId: batch.agent.agentId,
            testCases: ws.collections.testCases
              .all()
              .slice(0, 1)
              .map((c) => c.testCaseId),
          }),
        ),
      getBatchRun: () => send("getBatchRun", `/v1/batch-runs/${batch.batchId}?agentId=${batch.agent.agentId}`),
      listTestRuns: () => send("listTestRuns", "/v1/test-runs?size=100"),
      createKnowledgeBase: () => send("createKnowledgeBase", "/v1/knowledge-bases", { method: "POST", body: kb }),
      listCalls: () => send("listCalls", "/v1/calls?size=100"),
      getCall: () => send("getCall", `/v1/calls/${ws.collections.calls.all()[0].callId}`),
      getQaRule: () => send("getQaRule", `/v1/qa-rules/${ws.collections.qaRules.all()[0].qaRuleId}`),
      deleteQaRule: () =>
        send("deleteQaRule", `/v1/qa-rules/${ws.collections.qaRules.all()[1].qaRuleId}`, { method: "DELETE" }),
      listPhoneNumbers: () => send("listPhoneNumbers", "/v1/phone-number?size=100"),
      updatePhoneNumber: () => send("updatePhoneNumber", `/v1/phone-number/${number}`, patch({ friendlyName: "f" })),
      createChat: () => send("createChat", "/v1/chat", json({ agentId, conversation: "again" })),
      listWebhooks: async () => {
        await send("listWebhooks", "/v1/webhooks?size=100");
        await send("listWebhooks", "/v1/webhooks?size=100&active=false");
      },
    };
    expect(Object.keys(walk).sort()).toEqual([...operationIds].sort());
    for (const step of Object.values(walk)) await step();

    // The control plane, everything it serves about the workspace.
    const control = [
      "/__mock/workspaces",
      "/__mock/workspaces/default/snapshot",
      "/__mock/webhook-deliveries",
      "/__mock/clock",
    ];
    for (const path of control) await send("control", path);
    for (const name of Object.keys(ws.counts())) await send(`control:${name}`, `/__mock/workspaces/default/${name}`);
    const journal = await (await t.raw("/__mock/requests")).text();

    const credentials = [...seededCredentials, ...Object.values(sent)];
    const everything = [...responses.entries()];
    for (const secret of credentials) {
      expect(
        everything.filter(([, text]) => text.includes(secret)).map(([label]) => label),
        secret,
      ).toEqual([]);
      expect(
        t.logs.filter((l) => l.includes(secret)),
        secret,
      ).toEqual([]);
      expect(journal.includes(secret), `journal holds ${secret}`).toBe(false);
    }

    const webhookSecrets = [...ws.collections.webhooks.all().map((w) => w.secret), hook.secret];
    const showsWebhooks =
      /^(listWebhooks|listAgents|control:webhooks|control:agents|control) GET \/(v1\/webhooks|v1\/agents|__mock\/workspaces\/default\/(webhooks|agents|snapshot))/;
    for (const secret of webhookSecrets) {
      expect(
        everything
          .filter(([label, text]) => text.includes(secret) && !showsWebhooks.test(label))
          .map(([label]) => label),
        secret,
      ).toEqual([]);
      expect(t.logs.filter((l) => l.includes(secret))).toEqual([]);
      expect(journal.includes(secret)).toBe(false);
    }
    // Not vacuous: the webhook list did show the secrets.
    expect(
      [...responses.entries()].some(
        ([label, text]) => label.startsWith("listWebhooks") && text.includes(webhookSecrets[0]),
      ),
    ).toBe(true);
  });
});
