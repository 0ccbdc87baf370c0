/**
 * The ops of the history checker that make, set up, reset and delete workspaces, and the mock-wide
 * reset. A workspace's fixtures (two agents, a webhook to the receiver, two test cases) are set up at
 * its creation and again after every reset; a reset or delete makes its registers absent, and after a
 * delete its old key is probed through every live replica.
 */
import type { Client, OpOf } from "./client.js";
import { type Answer, Bindings } from "./model.js";
import { ABSENT, AGENT_A, AGENT_B, acknowledge, forgetRecords, type OwnedWorkspace, uuidOf } from "./workspace.js";

/** Agents A (calls, chats, batch runs, webhook) and B (QA rules), a webhook to the receiver, two test cases. */
export async function setUpWorkspace(client: Client, w: OwnedWorkspace, r: number): Promise<void> {
  const n = client.nextCount();
  for (const agentId of [AGENT_A, AGENT_B]) {
    const { real } = await client.owner(
      w,
      "setup agents",
      "POST",
      ({ ws }) => `/__mock/workspaces/${ws}/agents`,
      { agentId },
      r,
      false,
    );
    if (real?.status === 201) acknowledge(w, "agents", agentId);
  }
  const webhookId = uuidOf(client.ctx.run, client.index, n, "webhook");
  const path = `/real/${client.ctx.run}/${client.index}/${n}`;
  const hook = (side: "real" | "twin") => ({
    webhookId,
    agentId: AGENT_A,
    url: `${client.ctx.receiver.url}/${side}/${client.ctx.run}/${client.index}/${n}`,
    events: "conversation_started,conversation_ended",
    active: true,
  });
  const made = await client.owner(
    w,
    "setup webhooks",
    "POST",
    ({ ws }) => `/__mock/workspaces/${ws}/webhooks`,
    hook("real"),
    r,
    false,
    hook("twin"),
  );
  if (made.real?.status === 201) {
    acknowledge(w, "webhooks", webhookId);
    w.hooks.set(path, String((made.real.body as { secret?: string }).secret));
  }
  for (const c of [0, 1]) {
    const testCaseId = uuidOf(client.ctx.run, client.index, n, "case", c);
    const { real } = await client.owner(
      w,
      "setup testCases",
      "POST",
      ({ ws }) => `/__mock/workspaces/${ws}/testCases`,
      { testCaseId, agent: { agentId: AGENT_A }, attempt: 1 },
      r,
      false,
    );
    if (real?.status === 201) {
      w.testCases.push(testCaseId);
      acknowledge(w, "testCases", testCaseId);
    }
  }
}

export async function createWorkspace(
  client: Client,
  seed: number,
  empty: boolean,
  r: number,
): Promise<OwnedWorkspace | undefined> {
  const { real, twin, entry } = await client.request(
    {
      label: "create workspace",
      method: "POST",
      path: "/__mock/workspaces",
      twinPath: "/__mock/workspaces",
      body: { seed, empty },
      role: "owner",
    },
    r,
  );
  if (real?.status !== 201 || twin?.status !== 201) return undefined;
  const ids = (a: Answer) => a.body as { workspaceId: string; apiKey: string };
  const w: OwnedWorkspace = {
    owner: client.index,
    real: { id: ids(real).workspaceId, key: ids(real).apiKey },
    twin: { id: ids(twin).workspaceId, key: ids(twin).apiKey },
    seed,
    empty,
    integrations: [],
    qaRules: [],
    phones: [],
    calls: [],
    batchRuns: [],
    testCases: [],
    // A seeded workspace's world is not followed by the model (see the report): its acknowledged records are checked.
    unresolved: !empty,
    faultPending: false,
    acked: new Map(),
    deleted: false,
    hooks: new Map(),
    ids: new Bindings(),
  };
  client.adopt(w);
  entry.workspace = w.real.id;
  await setUpWorkspace(client, w, r);
  return w;
}

export async function deleteWorkspace(client: Client, w: OwnedWorkspace, op: OpOf<"deleteWorkspace">): Promise<string> {
  const { real } = await client.owner(
    w,
    "delete workspace",
    "DELETE",
    ({ ws }) => `/__mock/workspaces/${ws}`,
    undefined,
    op.r,
    false,
  );
  if (real?.status === 204 || real === undefined) {
    w.deleted = real !== undefined;
    if (real?.status === 204) {
      markAbsent(client, w);
      await probeDeletedKey(client, w);
    }
  }
  return op.k;
}

export async function resetWorkspace(client: Client, w: OwnedWorkspace, op: OpOf<"resetWorkspace">): Promise<string> {
  const { real } = await client.owner(
    w,
    "reset workspace",
    "POST",
    ({ ws }) => `/__mock/workspaces/${ws}/reset`,
    {},
    op.r,
    false,
  );
  if (real?.status === 200) {
    markAbsent(client, w);
    forgetRecords(w);
    await setUpWorkspace(client, w, op.r);
  } else if (real === undefined) forgetRecords(w); // It may have applied: nothing acknowledged before it must remain.
  return op.k;
}

/** POST /__mock/reset on a replica and on the model (run under a barrier); every workspace is then set up again. */
export async function mockReset(client: Client, r: number): Promise<void> {
  const { ctx } = client;
  const { real, entry } = await client.request(
    {
      label: "reset mock",
      method: "POST",
      path: "/__mock/reset",
      twinPath: "/__mock/reset",
      body: {},
      role: "control",
    },
    r,
  );
  if (real?.status !== 200) return;
  entry.writes = ctx.workspaces
    .filter((w) => !w.deleted)
    .flatMap((w) => w.integrations.map((i) => ({ register: `${w.real.id}/${i.real}`, value: ABSENT })));
  for (const other of client.allClients())
    for (const w of other.workspaces) {
      forgetRecords(w);
      await setUpWorkspace(other, w, r);
    }
}

/** Registers of a workspace reset or deleted: every integration read after it is absent. */
function markAbsent(client: Client, w: OwnedWorkspace): void {
  const entry = client.ctx.history.entries.findLast((e) => e.client === client.index && e.workspace === w.real.id);
  if (entry) entry.writes = w.integrations.map((i) => ({ register: `${w.real.id}/${i.real}`, value: ABSENT }));
}

/** After a delete: the old key answers 401 through every live replica. */
async function probeDeletedKey(client: Client, w: OwnedWorkspace): Promise<void> {
  const { ctx } = client;
  for (const replica of ctx.topology.live()) {
    const { real, entry } = await client.request(
      {
        label: "deleted key",
        method: "GET",
        path: "/v1/agents",
        key: w.real.key,
        workspace: w,
        role: "probe",
        replica,
      },
      0,
    );
    ctx.figures.deletedKeyProbes++;
    if (real && real.status !== 401)
      ctx.history.anomalies.push({
        kind: "deleted-key",
        message: `the key of deleted workspace ${w.real.id} answered ${real.status} through ${replica.name}, not 401`,
        entry: entry.id,
        workspace: w.real.id,
        at: entry.complete,
      });
  }
}
