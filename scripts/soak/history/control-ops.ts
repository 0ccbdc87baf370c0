/**
 * The ops of the history checker on the mock's control plane (/__mock/...) other than a workspace's
 * life: records the API cannot create (QA rules, phone numbers, scheduled calls), collection dumps,
 * one-shot fault rules, and clock advances. Each runs as an owner request, replayed on the twin.
 */
import { type Client, type OpOf, pick, type Redirect } from "./client.js";
import type { Op } from "./workload.js";
import { AGENT_A, AGENT_B, acknowledge, type OwnedWorkspace, uuidOf } from "./workspace.js";

export async function createQaRule(client: Client, w: OwnedWorkspace, op: OpOf<"createQaRule">): Promise<string> {
  const qaRuleId = uuidOf(client.ctx.run, client.index, client.nextCount(), "qa");
  const { real } = await client.owner(
    w,
    "create qaRules",
    "POST",
    ({ ws }) => `/__mock/workspaces/${ws}/qaRules`,
    { qaRuleId, agents: [{ agentId: AGENT_B }] },
    op.r,
    false,
  );
  if (real?.status === 201) {
    w.qaRules.push(qaRuleId);
    acknowledge(w, "qaRules", qaRuleId);
  }
  return op.k;
}

export async function createPhoneNumber(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"createPhoneNumber">,
): Promise<string> {
  const number = `+1555${String(client.ctx.run % 100).padStart(2, "0")}${String(client.index).padStart(2, "0")}${String(client.nextCount() % 1000).padStart(3, "0")}`;
  const { real } = await client.owner(
    w,
    "create phoneNumbers",
    "POST",
    ({ ws }) => `/__mock/workspaces/${ws}/phoneNumbers`,
    { sipPhoneNumber: number, inboundAgentId: AGENT_A, outboundAgentId: AGENT_A },
    op.r,
    false,
  );
  if (real?.status === 201) {
    w.phones.push(number);
    acknowledge(w, "phoneNumbers", number);
  }
  return op.k;
}

export async function scheduleCall(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"scheduleCall">,
  redirect: Redirect,
): Promise<string> {
  const r = op.r;
  // Its number named: one the mock picked would be a draw of the workspace's sequence, which
  // background work on the real side moves at other moments than on the model's.
  const phone = pick(w.phones, op.r);
  if (!phone) return redirect({ k: "createPhoneNumber", w: op.w, r });
  const callId = uuidOf(client.ctx.run, client.index, client.nextCount(), "call");
  const { real } = await client.owner(
    w,
    "create calls",
    "POST",
    ({ ws }) => `/__mock/workspaces/${ws}/calls`,
    { callId, status: "scheduled", agent: { agentId: AGENT_A }, phoneNumber: { sipPhoneNumber: phone } },
    r,
    false,
  );
  if (real?.status === 201) {
    w.calls.push(callId);
    acknowledge(w, "calls", callId);
  }
  return op.k;
}

export async function dumpCollection(client: Client, w: OwnedWorkspace, op: OpOf<"dump">): Promise<string> {
  await client.owner(
    w,
    `dump ${op.what}`,
    "GET",
    ({ ws }) => `/__mock/workspaces/${ws}/${op.what}`,
    undefined,
    op.r,
    false,
  );
  return `dump ${op.what}`;
}

/** A one-shot fault rule on the workspace, then the request that must meet it. */
export async function fault(client: Client, w: OwnedWorkspace, op: OpOf<"fault">, redirect: Redirect): Promise<string> {
  const r = op.r;
  const rule = (ws: string) => ({
    operationId: op.op,
    workspaceId: ws,
    kind: "status",
    status: op.status,
    times: 1,
  });
  await client.owner(w, "create fault", "POST", () => "/__mock/faults", rule(w.real.id), r, false, rule(w.twin.id));
  // The next matching request of the workspace must meet it, whichever replica serves it.
  const next: Record<typeof op.op, Op> = {
    listAgents: { k: "list", w: op.w, what: "agents", r: r + 1 },
    listPhoneNumbers: { k: "list", w: op.w, what: "phoneNumbers", r: r + 1 },
    listWebhooks: { k: "list", w: op.w, what: "webhooks", r: r + 1 },
    getIntegration: { k: "getQaRule", w: op.w, i: op.status, r: r + 1 },
  };
  w.faultPending = true;
  try {
    await redirect(next[op.op]);
  } finally {
    w.faultPending = false;
  }
  return op.k;
}

/** Advances one workspace's clock (on the real side and the twin) or, with no workspace drawn, every clock. */
export async function advanceClock(client: Client, op: OpOf<"advance">): Promise<string> {
  const w = op.w === null ? undefined : pick(client.workspaces, op.w);
  const body = (ws?: string) => (ws ? { seconds: op.seconds, workspaceId: ws } : { seconds: op.seconds });
  if (w)
    await client.owner(
      w,
      "advance clock",
      "POST",
      () => "/__mock/clock/advance",
      body(w.real.id),
      op.r,
      false,
      body(w.twin.id),
    );
  else
    await client.request(
      {
        label: "advance clock",
        method: "POST",
        path: "/__mock/clock/advance",
        twinPath: "/__mock/clock/advance",
        body: body(),
        role: "control",
      },
      op.r,
    );
  return op.w === null ? "advance (all)" : "advance";
}
