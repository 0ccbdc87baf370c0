/**
 * The seeded world of a workspace: a deterministic, coherent set of records covering every value a
 * client should be ready for (every call type, status and termination reason, every provider, active
 * and inactive, with and without auth, running and finished things).
 *
 * Order matters twice: parents before children (ids must exist when referenced), and within each
 * collection oldest first, because lists are "most recently created first" by insertion order.
 * Determinism: one Faker seeded from workspace.seed and the workspace id, with its reference date
 * pinned to `now`; no Math.random, Date.now or crypto. Same workspace, seed and now give
 * byte-identical records.
 */
import type { Workspace } from "../store/workspace.js";
import { hash32 } from "../core/random.js";
import type {
  Agent,
  Call,
  CallStatus,
  Campaign,
  IntegrationAuth,
  QaIssue,
  QaRule,
  StoredTestRun,
} from "../store/records.js";
import { ascendingTimes, iso, newFaker, referenceTo, DAY, HOUR, MINUTE, SECOND, type BuildContext } from "./context.js";
import { buildAgent, agentWebhooksOf } from "./agents.js";
import { buildPhoneNumber, PROVIDERS } from "./phone-numbers.js";
import { buildIntegration } from "./integrations.js";
import { buildKnowledgeBase } from "./knowledge-bases.js";
import { buildWebhook } from "./webhooks.js";
import { buildQaIssue, buildQaRule, QA_RULE_TEMPLATES } from "./qa.js";
import { buildMockToolData, MOCK_TOOL_CASES } from "./mock-tool-data.js";
import { buildTestCase, TEST_SCENARIOS } from "./test-cases.js";
import { buildBatchRun, buildTestRun, recountBatch } from "./batch-runs.js";
import { buildCall, buildCampaign, pickPhoneNumber } from "./calls.js";
import { ALL_TERMINATION_REASONS, statusOfReason, type TerminationReason } from "./call-lifecycle.js";
import { buildChat } from "./chats.js";
import { buildApiKey } from "./api-keys.js";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

export function seedWorkspace(workspace: Workspace, now: Date): void {
  // The workspace id joins the seed: two workspaces created with the same seed still hold different
  // ids (isolation can be checked by id), while a workspace always gets the same world back on reset.
  const ctx: BuildContext = { faker: newFaker([workspace.seed, hash32(workspace.workspaceId)], now), workspace, now };
  const c = workspace.collections;
  const nowMs = now.getTime();

  const agents = times(6).map(() => c.agents.create(buildAgent(ctx)));

  // Providers in rotation, two numbers switched off; each agent answers at least one number.
  times(8).forEach((i) =>
    c.phoneNumbers.create(
      buildPhoneNumber(ctx, {
        provider: PROVIDERS[i % PROVIDERS.length],
        active: i !== 2 && i !== 6,
        inboundAgentId: agents[i % agents.length].agentId,
        outboundAgentId: i % 2 === 0 ? agents[(i + 1) % agents.length].agentId : null,
      }),
    ),
  );

  // Every auth type once, and two integrations without credentials.
  const authPlan: (IntegrationAuth["authType"] | null)[] = ["BEARER", null, "API_KEY", "BASIC", "NONE", null];
  ascendingTimes(ctx, authPlan.length, nowMs - 60 * DAY, nowMs - 20 * DAY).forEach((at, i) => {
    const type = authPlan[i];
    c.integrations.create(
      buildIntegration(ctx, {
        createdAt: iso(at),
        authentication: type === null ? null : ({ authType: type } as IntegrationAuth),
      }),
    );
  });

  ascendingTimes(ctx, 4, nowMs - 45 * DAY, nowMs - 3 * DAY).forEach((at) =>
    c.knowledgeBases.create(buildKnowledgeBase(ctx, { createdAt: iso(at) })),
  );

  // Two webhooks per agent, a third of them disabled; agents then list theirs in their settings.
  times(12).forEach((i) =>
    c.webhooks.create(buildWebhook(ctx, { agentId: agents[i % agents.length].agentId, active: i % 3 !== 2 })),
  );
  for (const agent of agents) {
    c.agents.update(agent.agentId, (a) => ({
      ...a,
      agentSettings: { ...a.agentSettings, webhooks: agentWebhooksOf(ctx, a.agentId) },
    }));
  }

  // The first rule applies to every agent, so every finished conversation has a rule to be judged by.
  const rules: QaRule[] = times(4).map((i) =>
    c.qaRules.create(
      buildQaRule(ctx, { ...QA_RULE_TEMPLATES[i], ...(i === 0 ? { agents: agents.map(referenceTo) } : {}) }),
    ),
  );

  ascendingTimes(ctx, 6, nowMs - 40 * DAY, nowMs - 15 * DAY).forEach((at, i) => {
    const { toolAlias, name, statusCode } = MOCK_TOOL_CASES[i];
    c.mockToolData.create(buildMockToolData(ctx, { toolAlias, name, statusCode, createdAt: iso(at) }));
  });

  times(8).forEach((i) =>
    c.testCases.create(buildTestCase(ctx, { ...TEST_SCENARIOS[i], agent: referenceTo(agents[i % agents.length]) })),
  );

  seedBatchRuns(ctx, agents.slice(0, 3));
  const calls = seedCalls(ctx, agents);
  seedQaIssues(ctx, rules, calls);

  ascendingTimes(ctx, 5, nowMs - 10 * DAY, nowMs - HOUR).forEach((at, i) =>
    c.chats.create(
      buildChat(ctx, {
        createdAt: iso(at),
        agentId: agents[i % agents.length].agentId,
        ...(i === 3 ? { status: "failed" as const } : {}),
      }),
    ),
  );

  ascendingTimes(ctx, 2, nowMs - 90 * DAY, nowMs - 30 * DAY).forEach((at, i) =>
    c.apiKeys.create(buildApiKey(ctx, { name: ["CI pipeline", "Reporting dashboard"][i], createdAt: iso(at) })),
  );
}

/** Three finished batches, days apart; one test run per attempt of each test case. */
function seedBatchRuns(ctx: BuildContext, agents: Agent[]): void {
  const c = ctx.workspace.collections;
  const nowMs = ctx.now.getTime();
  [12, 6, 2].forEach((daysAgo, i) => {
    const agent = agents[i];
    const createdMs = nowMs - daysAgo * DAY - ctx.faker.number.int({ min: 0, max: 6 * HOUR });
    const testCases = c.testCases.all().filter((t) => t.agent.agentId === agent.agentId);
    const batch = c.batchRuns.create(
      buildBatchRun(ctx, { agent: referenceTo(agent), testCases, createdDate: iso(createdMs) }),
    );
    let at = createdMs;
    for (const testCase of testCases) {
      for (let attempt = 0; attempt < (testCase.attempt ?? 1); attempt++) {
        at += ctx.faker.number.int({ min: 50, max: 900 });
        const run: StoredTestRun = buildTestRun(ctx, {
          batchId: batch.batchId,
          testCase,
          agent: batch.agent,
          createdDate: iso(at),
        });
        c.testRuns.create(run);
      }
    }
    recountBatch(ctx.workspace, batch.batchId);
  });
}

interface PlannedCall {
  createdAt: number;
  status: CallStatus;
  reason?: TerminationReason;
  callType?: Call["callType"];
  errorAfterConnect?: boolean;
}

/**
 * ~60 calls: every termination reason at least once, more of the common endings, spread over the
 * last 30 days; plus a few scheduled and in-progress calls created in the last minutes.
 */
function seedCalls(ctx: BuildContext, agents: Agent[]): Call[] {
  const { faker, workspace } = ctx;
  const nowMs = ctx.now.getTime();

  const extra = times(34).map(() =>
    faker.helpers.weightedArrayElement<TerminationReason>([
      { weight: 12, value: "user_ended_call" },
      { weight: 9, value: "agent_ended_call" },
      { weight: 3, value: "agent_transferred_call" },
      { weight: 2, value: "voicemail_detected" },
      { weight: 2, value: "dial_no_answer" },
      { weight: 1, value: "dial_busy" },
      { weight: 1, value: "silence_timed_out" },
      { weight: 1, value: "error_llm" },
    ]),
  );
  const reasons = faker.helpers.shuffle([...ALL_TERMINATION_REASONS, ...extra]);
  const finalTimes = ascendingTimes(ctx, reasons.length, nowMs - 30 * DAY, nowMs - 3 * HOUR);
  const plan: PlannedCall[] = reasons.map((reason, i) => ({
    createdAt: finalTimes[i],
    status: statusOfReason(reason),
    reason,
  }));

  // Every call type at least once among the conversations that really happened.
  const ended = plan.filter((p) => p.status === "ended");
  (["inbound", "outbound", "web", "chat"] as const).forEach((type, i) => (ended[i].callType = type));
  // Dialling failures only happen on calls the platform places; telephony errors only on phone calls.
  for (const p of plan) if (p.status === "not_connected") p.callType = "outbound";
  for (const p of plan)
    if (p.reason === "error_telephony") p.callType = faker.helpers.arrayElement(["inbound", "outbound"] as const);
  // Errors alternate between failing before the call connected and cutting a conversation short.
  plan.filter((p) => p.status === "error").forEach((p, i) => (p.errorAfterConnect = i % 2 === 1));

  const liveStatuses = faker.helpers.shuffle<CallStatus>([
    "scheduled",
    "scheduled",
    "scheduled",
    "in_progress",
    "in_progress",
    "in_progress",
  ]);
  ascendingTimes(ctx, liveStatuses.length, nowMs - 15 * MINUTE, nowMs - 5 * SECOND).forEach((at, i) =>
    plan.push({
      createdAt: at,
      status: liveStatuses[i],
      ...(liveStatuses[i] === "scheduled" ? { callType: "outbound" as const } : {}),
    }),
  );

  // A few long-running campaigns, each with its own agent and number, reused by outbound calls.
  const campaigns: Campaign[] = [28, 20, 10].map((daysAgo, i) => {
    const agent = referenceTo(agents[(i + 3) % agents.length]);
    const phoneNumber = pickPhoneNumber(ctx, "outbound", agent.agentId);
    const scheduledMs = nowMs - daysAgo * DAY;
    return buildCampaign(
      ctx,
      { scheduledDate: iso(scheduledMs) },
      { agent, phoneNumber, callCreated: scheduledMs, callStatus: "ended" },
    );
  });

  return plan.map((p) => {
    const callType =
      p.callType ??
      faker.helpers.weightedArrayElement([
        { weight: 30, value: "inbound" as const },
        { weight: 35, value: "outbound" as const },
        { weight: 20, value: "web" as const },
        { weight: 15, value: "chat" as const },
      ]);
    const open = campaigns.filter((k) => Date.parse(k.scheduledDate!) <= p.createdAt);
    const campaign =
      callType === "outbound" && open.length > 0 && faker.datatype.boolean(0.5)
        ? faker.helpers.arrayElement(open)
        : null;
    const partial: Partial<Call> = {
      createdAt: iso(p.createdAt),
      status: p.status,
      callType,
      campaign,
      ...(p.reason ? { terminationReason: p.reason } : {}),
      // A duration marks an error after connect; a null start, one before it (see buildCall).
      ...(p.errorAfterConnect === true ? { duration: faker.number.int({ min: 5, max: 240 }) } : {}),
      ...(p.errorAfterConnect === false ? { startTime: null } : {}),
      ...(campaign
        ? { agent: campaign.agent, ...(campaign.phoneNumber ? { phoneNumber: campaign.phoneNumber } : {}) }
        : {}),
    };
    return workspace.collections.calls.create(buildCall(ctx, partial));
  });
}

/** Verdicts of the rules on finished conversations of their agents, oldest first. */
function seedQaIssues(ctx: BuildContext, rules: QaRule[], calls: Call[]): void {
  const { faker, workspace } = ctx;
  const judged = calls.filter((call) => call.endTime !== null);
  const seen = new Set<string>();
  const issues: QaIssue[] = [];
  for (let tries = 0; issues.length < 15 && tries < 200; tries++) {
    const call = faker.helpers.arrayElement(judged);
    const candidates = rules.filter(
      (r) => r.agents.some((a) => a.agentId === call.agent.agentId) && !seen.has(`${r.qaRuleId}/${call.callId}`),
    );
    if (candidates.length === 0) continue;
    const rule = faker.helpers.arrayElement(candidates);
    seen.add(`${rule.qaRuleId}/${call.callId}`);
    issues.push(
      buildQaIssue(ctx, {
        qaRuleId: rule.qaRuleId,
        agentId: call.agent.agentId,
        conversationId: call.callId,
        status: faker.datatype.boolean(0.65) ? "Success" : "Fail",
      }),
    );
  }
  issues.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const issue of issues) workspace.collections.qaIssues.create(issue);
}
