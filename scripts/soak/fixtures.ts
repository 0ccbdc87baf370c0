/**
 * Soak workspaces, prepared through the control plane: fresh seeded workspaces, the ids the workload
 * needs, two webhooks on the chat agent (one receiver that accepts, one that fails), and a baseline
 * snapshot to go back to. The baseline leaves qaRules out: the workload creates and deletes its own
 * rules, and a reset between the two must not take one away.
 */
export interface SoakWorkspace {
  workspaceId: string;
  apiKey: string;
  agentId: string;
  testCaseIds: string[];
  integrationId: string;
  batchId: string;
  batchAgentId: string;
  callId: string;
  phoneNumber: string;
  baseline: Record<string, unknown[]>;
}

async function control<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/__mock${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} /__mock${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

type Rec = Record<string, any>;

export async function prepareWorkspace(
  baseUrl: string,
  seed: number,
  hooks: { okUrl: string; failUrl: string },
): Promise<SoakWorkspace> {
  const { workspaceId, apiKey } = await control<{ workspaceId: string; apiKey: string }>(
    baseUrl,
    "POST",
    "/workspaces",
    { seed },
  );
  const all = (collection: string) => control<Rec[]>(baseUrl, "GET", `/workspaces/${workspaceId}/${collection}`);
  const testCases = await all("testCases");
  const agentId: string = testCases[0].agent.agentId;
  const [integration] = await all("integrations");
  const [batch] = await all("batchRuns");
  const [call] = await all("calls");
  const [phone] = await all("phoneNumbers");
  for (const url of [hooks.okUrl, hooks.failUrl]) {
    await control(baseUrl, "POST", `/workspaces/${workspaceId}/webhooks`, {
      agentId,
      url,
      active: true,
      events: "conversation_started,conversation_ended",
    });
  }
  const { qaRules: _rules, ...baseline } = await control<Record<string, unknown[]>>(
    baseUrl,
    "GET",
    `/workspaces/${workspaceId}/snapshot`,
  );
  return {
    workspaceId,
    apiKey,
    agentId,
    testCaseIds: testCases.filter((t) => t.agent.agentId === agentId).map((t) => t.testCaseId),
    integrationId: integration.integrationId,
    batchId: batch.batchId,
    batchAgentId: batch.agent.agentId,
    callId: call.callId,
    phoneNumber: phone.sipPhoneNumber,
    baseline,
  };
}

/** Back to the baseline: stored records stop growing, so memory growth measures leaks, not data. */
export async function restoreBaseline(baseUrl: string, ws: SoakWorkspace): Promise<void> {
  await control(baseUrl, "PUT", `/workspaces/${ws.workspaceId}/snapshot`, ws.baseline);
}

export async function controlList(baseUrl: string, path: string): Promise<unknown[]> {
  return control<unknown[]>(baseUrl, "GET", path);
}
