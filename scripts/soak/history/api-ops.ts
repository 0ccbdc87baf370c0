/**
 * The ops of the history checker on the public API (/v1/...), with the workspace's key: integrations
 * (whose names are the registers observers read), QA rules, phone numbers, lists, calls, chats and
 * batch runs. An op whose record does not exist yet runs the op that makes one instead.
 */
import { type Client, type OpOf, pick, type Redirect } from "./client.js";
import { setUpWorkspace } from "./workspace-lifecycle.js";
import { AGENT_A, acknowledge, type OwnedWorkspace, uuidOf } from "./workspace.js";

export async function createIntegration(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"createIntegration">,
): Promise<string> {
  const { real, twin, entry } = await client.owner(
    w,
    "create integration",
    "POST",
    () => "/v1/integrations",
    { name: op.name },
    op.r,
    true,
  );
  const realId = (real?.body as { integrationId?: string } | undefined)?.integrationId;
  if (real?.status === 201 && realId) {
    const twinId = (twin?.body as { integrationId?: string } | undefined)?.integrationId ?? "";
    w.integrations.push({ real: realId, twin: twinId });
    acknowledge(w, "integrations", realId);
    entry.writes = [{ register: `${w.real.id}/${realId}`, value: op.name }];
  }
  return op.k;
}

/** Reads, renames (a register write) or adds auth to one of the workspace's integrations. */
export async function onIntegration(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"getIntegration" | "patchIntegration" | "createAuth">,
  redirect: Redirect,
): Promise<string> {
  const r = op.r;
  const i = pick(w.integrations, op.i);
  if (!i) return redirect({ k: "createIntegration", w: op.w, name: "first", r });
  // By side, not by comparing workspace ids: the model's ids can be the same strings as the real ones.
  const path = (side: { real: boolean }) => `/v1/integrations/${side.real ? i.real : i.twin}`;
  if (op.k === "getIntegration") await client.owner(w, "get integration", "GET", path, undefined, r, true);
  else if (op.k === "patchIntegration") {
    const { real, entry } = await client.owner(w, "patch integration", "PATCH", path, { name: op.name }, r, true);
    if (real?.status === 200 || real === undefined)
      entry.writes = [{ register: `${w.real.id}/${i.real}`, value: op.name }];
  } else
    await client.owner(
      w,
      "create integration auth",
      "POST",
      (ws) => `${path(ws)}/auth`,
      { authType: "BEARER", token: `t-${op.i}` },
      r,
      true,
    );
  return op.k;
}

/** Reads or deletes one of the workspace's QA rules (a rule id that does not exist when it has none). */
export async function onQaRule(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"getQaRule" | "deleteQaRule">,
): Promise<string> {
  const q = pick(w.qaRules, op.i) ?? uuidOf("no-such-rule", op.i);
  const method = op.k === "getQaRule" ? "GET" : "DELETE";
  const { real } = await client.owner(
    w,
    op.k === "getQaRule" ? "get qa rule" : "delete qa rule",
    method,
    () => `/v1/qa-rules/${q}`,
    undefined,
    op.r,
    true,
  );
  if (method === "DELETE" && real?.status === 204) {
    w.qaRules = w.qaRules.filter((x) => x !== q);
    w.acked.get("qaRules")?.delete(q);
  }
  return op.k;
}

export async function patchPhoneNumber(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"patchPhoneNumber">,
  redirect: Redirect,
): Promise<string> {
  const p = pick(w.phones, op.i);
  if (!p) return redirect({ k: "createPhoneNumber", w: op.w, r: op.r });
  await client.owner(
    w,
    "patch phone number",
    "PATCH",
    () => `/v1/phone-number/${encodeURIComponent(p)}`,
    { friendlyName: op.name },
    op.r,
    true,
  );
  return op.k;
}

export async function list(client: Client, w: OwnedWorkspace, op: OpOf<"list">): Promise<string> {
  const path = {
    agents: "/v1/agents",
    calls: "/v1/calls",
    webhooks: "/v1/webhooks",
    testRuns: "/v1/test-runs",
    phoneNumbers: "/v1/phone-number",
  }[op.what];
  await client.owner(w, `list ${op.what}`, "GET", () => path, undefined, op.r, true);
  return `list ${op.what}`;
}

export async function getCall(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"getCall">,
  redirect: Redirect,
): Promise<string> {
  const c = pick(w.calls, op.i);
  if (!c) return redirect({ k: "list", w: op.w, what: "calls", r: op.r });
  await client.owner(w, "get call", "GET", () => `/v1/calls/${c}`, undefined, op.r, true);
  return op.k;
}

export async function createChat(client: Client, w: OwnedWorkspace, op: OpOf<"createChat">): Promise<string> {
  const conversation = `${op.text} ${client.ctx.run}-${client.index}-${client.nextCount()}`;
  await client.owner(w, "create chat", "POST", () => "/v1/chat", { agentId: AGENT_A, conversation }, op.r, true);
  return op.k;
}

export async function createBatchRun(client: Client, w: OwnedWorkspace, op: OpOf<"createBatchRun">): Promise<string> {
  if (w.testCases.length === 0) await setUpWorkspace(client, w, op.r);
  const testCases = w.testCases.slice(0, op.cases);
  const { real, twin } = await client.owner(
    w,
    "create batch run",
    "POST",
    () => "/v1/batch-runs",
    { agentId: AGENT_A, testCases },
    op.r,
    true,
  );
  const realId = (real?.body as { batchId?: string } | undefined)?.batchId;
  if (real?.status === 201 && realId) {
    w.batchRuns.push({ real: realId, twin: (twin?.body as { batchId?: string } | undefined)?.batchId ?? "" });
    acknowledge(w, "batchRuns", realId);
  }
  return op.k;
}

export async function getBatchRun(
  client: Client,
  w: OwnedWorkspace,
  op: OpOf<"getBatchRun">,
  redirect: Redirect,
): Promise<string> {
  const b = pick(w.batchRuns, op.i);
  if (!b) return redirect({ k: "createBatchRun", w: op.w, cases: 1, r: op.r });
  await client.owner(
    w,
    "get batch run",
    "GET",
    ({ real }) => `/v1/batch-runs/${real ? b.real : b.twin}`,
    undefined,
    op.r,
    true,
  );
  return op.k;
}
