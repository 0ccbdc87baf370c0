/**
 * The `every-variant` scenario (`POST /__mock/workspaces {"scenario":"every-variant"}`, `--scenario`): a
 * small world in which every response variant of the reading operations is there to be read, so that a
 * consumer's plain GETs can reach 100 % on GET /__mock/coverage. In the records of each list and of each
 * get: every value of each enum, each nullable field null and set; and every list at least 3 records long
 * (size=1 then shows a first, a middle and a last page; a page past the end is the empty one), under
 * each filter value that matters: a batch with 5 test runs, an agent with 3 active and 3 disabled webhooks,
 * at least 3 calls of each status. No list holds more than 30 records.
 *
 * Records come from the same builders as the usual world (world.ts), so they are coherent and valid
 * against the schemas; only what a variant needs is given. Collections no reading operation serves
 * (knowledge bases, chats, QA issues, API keys) stay empty.
 *
 * What the simulation would move on is held, for a year of the workspace's clock:
 *  - scheduled calls wait for their campaign, which starts a year after they were created, and calls in
 *    progress end a year after they started: call plans (workspace.callPlans) that the call progression
 *    follows, kept by the state file and by Redis like any plan;
 *  - running test runs have no plan to follow: holdEveryVariant, run after each resume of the simulation
 *    (seeding, a reset, a restore), moves their completion a year after their creation.
 * So the variants stay until a consumer advances the clock by a year. Deterministic: one Faker seeded
 * from the workspace's seed and id, as the usual world.
 */
import { hash32, Random } from "../core/random.js";
import type {
  Agent,
  Call,
  CallStatus,
  Campaign,
  IntegrationAuth,
  PhoneNumber,
  StoredTestRun,
} from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { agentWebhooksOf, buildAgent } from "./agents.js";
import { buildBatchRun, buildTestRun, recountBatch } from "./batch-runs.js";
import { ENDED_REASONS, ERROR_REASONS, NOT_CONNECTED_REASONS, type TerminationReason } from "./call-lifecycle.js";
import { buildCall, buildCampaign } from "./calls.js";
import { ascendingTimes, iso, newFaker, referenceTo, DAY, HOUR, MINUTE, type BuildContext } from "./context.js";
import { buildIntegration } from "./integrations.js";
import { buildMockToolData, MOCK_TOOL_CASES } from "./mock-tool-data.js";
import { buildPhoneNumber, PROVIDERS, unusedE164 } from "./phone-numbers.js";
import { buildQaRule, QA_RULE_TEMPLATES } from "./qa.js";
import { buildTestCase, TEST_SCENARIOS } from "./test-cases.js";
import { buildWebhook } from "./webhooks.js";

export const EVERY_VARIANT = "every-variant";

/** How long held things wait: a clock advance shorter than this moves none of them. */
export const HOLD_MS = 365 * DAY;

type AgentSettings = Agent["agentSettings"];
type CallType = Call["callType"];

/**
 * Each value of each agent enum; the nullable settings all set on some agents, all unset (null) on the
 * others. Four agents, so the agent list has a middle page whichever agent a size=1 page shows.
 */
const AGENT_VARIANTS = [
  { welcomeMessageType: "static", backgroundSound: "keyboard_typing", settingsSet: true },
  { welcomeMessageType: "prompt", backgroundSound: "office_ambience", settingsSet: false },
  { welcomeMessageType: "static", backgroundSound: "none", settingsSet: true },
  { welcomeMessageType: "prompt", backgroundSound: "none", settingsSet: false },
] as const;

/** Every nullable agent setting unset; analysis off means no insights either. */
const UNSET_SETTINGS: Partial<AgentSettings> = {
  globalPrompt: null,
  agentTimezone: null,
  autoVolumeNormalization: null,
  backgroundNoiseFilter: null,
  echoCancellation: null,
  enablePostConversationAnalysis: null,
  postConversationAnalysisLlmModel: null,
  postConversationAnalysis: [],
};

/** Every auth type, and no credentials at all; descriptions given and left null across them. */
const INTEGRATION_VARIANTS: { authType: IntegrationAuth["authType"] | null; described: boolean }[] = [
  { authType: "API_KEY", described: true },
  { authType: "BEARER", described: false },
  { authType: "BASIC", described: true },
  { authType: "NONE", described: false },
  { authType: null, described: true },
  { authType: null, described: false },
];

/** A call to build: what its variants need; the rest is the builder's. */
interface PlannedCall {
  status: CallStatus;
  reason?: TerminationReason;
  callType: CallType;
  /** Placed by a campaign (outbound only). */
  campaign?: boolean;
  /** An error call: failed after it connected (startTime set) or before. */
  connected?: boolean;
  /** An ended call: recorded (recordingUrl set) or not. */
  recorded?: boolean;
}

/** Call types by position among the ended and the error calls: each type at least once in both. */
const ENDED_TYPES: CallType[] = ["inbound", "outbound", "web", "chat", "inbound", "outbound", "web"];
const ERROR_TYPES: CallType[] = ["inbound", "outbound", "web", "chat", "outbound", "inbound", "web"];

/** Test runs kept running (held); the batch's other runs are complete, one of them failed. */
const HELD_TEST_RUNS = 2;

export function seedEveryVariant(workspace: Workspace, now: Date): void {
  // The scenario's name joins the seed, so its ids differ from the usual world's of the same workspace.
  const ctx: BuildContext = {
    faker: newFaker([workspace.seed, hash32(workspace.workspaceId), hash32(EVERY_VARIANT)], now),
    workspace,
    now,
  };
  const agents = seedAgents(ctx);
  const numbers = seedPhoneNumbers(ctx, agents);
  seedIntegrations(ctx);
  seedWebhooks(ctx, agents);
  // Three rules (a get needs one); the first judges every agent's conversations, as in the usual world.
  QA_RULE_TEMPLATES.slice(0, 3).forEach((template, i) =>
    workspace.collections.qaRules.create(
      buildQaRule(ctx, { ...template, ...(i === 0 ? { agents: agents.map(referenceTo) } : {}) }),
    ),
  );
  seedBatchRun(ctx, agents[0]);
  seedCalls(ctx, agents, numbers);
}

/**
 * What the simulation's resume scheduled for the scenario's running test runs, moved a year after their
 * creation (a test run has no plan to follow, as a call does). Run after every resume of the simulation
 * on a workspace of this scenario; test runs a consumer started are left alone.
 */
export function holdEveryVariant(workspace: Workspace): void {
  for (const jobId of heldJobIds(workspace)) {
    const run = workspace.collections.testRuns.get(jobId);
    if (!run || run.completedDate !== null) continue;
    workspace.tasks.schedule({ kind: "testRun", ref: jobId, at: Date.parse(run.createdDate) + HOLD_MS });
  }
}

/** The job ids of the held test runs: drawn from the workspace's id and seed, so a restore finds them again. */
function heldJobIds(workspace: Workspace): string[] {
  const random = new Random(hash32(`${EVERY_VARIANT}:${workspace.workspaceId}:${workspace.seed}`));
  return Array.from({ length: HELD_TEST_RUNS }, () => random.uuid());
}

function seedAgents(ctx: BuildContext): Agent[] {
  return AGENT_VARIANTS.map(({ welcomeMessageType, backgroundSound, settingsSet }) => {
    // Given settings win over the builder's; the rest are filled as for any agent.
    const agentSettings: Partial<AgentSettings> = settingsSet
      ? { backgroundSound, enablePostConversationAnalysis: true }
      : { backgroundSound, ...UNSET_SETTINGS };
    return ctx.workspace.collections.agents.create(
      buildAgent(ctx, { welcomeMessageType, agentSettings: agentSettings as AgentSettings }),
    );
  });
}

/**
 * A number of each provider with every optional field set (its agents, its caller id, its trunk, its
 * label), and one of each with none of them.
 */
function seedPhoneNumbers(ctx: BuildContext, agents: Agent[]): PhoneNumber[] {
  const numbers = ctx.workspace.collections.phoneNumbers;
  return PROVIDERS.flatMap((provider, i) => {
    const sipPhoneNumber = unusedE164(ctx);
    const full = numbers.create(
      buildPhoneNumber(ctx, {
        sipPhoneNumber,
        provider,
        active: true,
        inboundAgentId: agents[i % agents.length].agentId,
        outboundAgentId: agents[(i + 1) % agents.length].agentId,
        outboundPhoneNumber: sipPhoneNumber,
      }),
    );
    const bare = numbers.create(
      buildPhoneNumber(ctx, {
        provider,
        active: i !== 1,
        inboundAgentId: null,
        outboundAgentId: null,
        outboundPhoneNumber: null,
        terminationSipURI: null,
        friendlyName: null,
      }),
    );
    return [full, bare];
  });
}

function seedIntegrations(ctx: BuildContext): void {
  const nowMs = ctx.now.getTime();
  ascendingTimes(ctx, INTEGRATION_VARIANTS.length, nowMs - 30 * DAY, nowMs - 2 * DAY).forEach((at, i) => {
    const { authType, described } = INTEGRATION_VARIANTS[i];
    ctx.workspace.collections.integrations.create(
      buildIntegration(ctx, {
        createdAt: iso(at),
        authentication: authType === null ? null : ({ authType } as IntegrationAuth),
        description: described ? "Use when the customer asks about something this service keeps." : null,
      }),
    );
  });
}

/** The first agent has three active and three disabled webhooks (the list's two filters); the others one each. */
function seedWebhooks(ctx: BuildContext, agents: Agent[]): void {
  const c = ctx.workspace.collections;
  for (let i = 0; i < 6; i++) c.webhooks.create(buildWebhook(ctx, { agentId: agents[0].agentId, active: i % 2 === 0 }));
  for (const agent of agents.slice(1)) c.webhooks.create(buildWebhook(ctx, { agentId: agent.agentId, active: true }));
  // Agents list their webhooks in their settings, as seeding always leaves them.
  for (const agent of agents) {
    c.agents.update(agent.agentId, (a) => ({
      ...a,
      agentSettings: { ...a.agentSettings, webhooks: agentWebhooksOf(ctx, a.agentId) },
    }));
  }
}

/**
 * One batch of the agent, started 20 minutes ago: one test run per attempt of each of its three test
 * cases, the last test case's attempts still running (held), the others complete, one of them failed.
 */
function seedBatchRun(ctx: BuildContext, agent: Agent): void {
  const c = ctx.workspace.collections;
  const nowMs = ctx.now.getTime();
  MOCK_TOOL_CASES.slice(0, 2).forEach((toolCase, i) =>
    c.mockToolData.create(
      buildMockToolData(ctx, {
        toolAlias: toolCase.toolAlias,
        name: toolCase.name,
        statusCode: toolCase.statusCode,
        createdAt: iso(nowMs - (10 - i) * DAY),
      }),
    ),
  );
  const attempts = [2, 1, HELD_TEST_RUNS];
  const testCases = attempts.map((attempt, i) =>
    c.testCases.create(buildTestCase(ctx, { ...TEST_SCENARIOS[i], attempt, agent: referenceTo(agent) })),
  );
  const createdMs = nowMs - 20 * MINUTE;
  const batch = c.batchRuns.create(
    buildBatchRun(ctx, { agent: referenceTo(agent), testCases, createdDate: iso(createdMs) }),
  );
  const held = heldJobIds(ctx.workspace);
  const outcomes = [true, false, true];
  let at = createdMs;
  let completed = 0;
  testCases.forEach((testCase, i) => {
    for (let attempt = 0; attempt < attempts[i]; attempt++) {
      at += ctx.faker.number.int({ min: 50, max: 900 });
      const running = i === testCases.length - 1;
      const run: StoredTestRun = buildTestRun(ctx, {
        batchId: batch.batchId,
        testCase,
        agent: batch.agent,
        createdDate: iso(at),
        ...(running ? { jobId: held[attempt], completedDate: null } : { isSuccessful: outcomes[completed++] }),
      });
      c.testRuns.create(run);
    }
  });
  recountBatch(ctx.workspace, batch.batchId);
}

/**
 * Every termination reason once (so every final status, with an error before and after connecting, a
 * recorded and an unrecorded ended call), three scheduled and three in-progress calls (held), each call
 * type; phone calls spread over every number, campaign calls too; dynamic variables null, empty and set.
 */
function seedCalls(ctx: BuildContext, agents: Agent[], numbers: PhoneNumber[]): void {
  const { faker, workspace } = ctx;
  const nowMs = ctx.now.getTime();
  const finals: PlannedCall[] = faker.helpers.shuffle([
    ...ENDED_REASONS.map(
      (reason, i): PlannedCall => ({
        status: "ended",
        reason,
        callType: ENDED_TYPES[i],
        ...(ENDED_TYPES[i] !== "chat" && { recorded: i % 2 === 0 }),
      }),
    ),
    // Dialling failures happen on calls a campaign places.
    ...NOT_CONNECTED_REASONS.map(
      (reason): PlannedCall => ({ status: "not_connected", reason, callType: "outbound", campaign: true }),
    ),
    ...ERROR_REASONS.map(
      (reason, i): PlannedCall => ({
        status: "error",
        reason,
        // A telephony error happens on phone calls only.
        callType: reason === "error_telephony" ? "inbound" : ERROR_TYPES[i],
        connected: i % 2 === 1,
      }),
    ),
  ]);
  const live: PlannedCall[] = faker.helpers.shuffle([
    ...[0, 1, 2].map((): PlannedCall => ({ status: "scheduled", callType: "outbound", campaign: true })),
    ...(["inbound", "outbound", "web"] as const).map((callType): PlannedCall => ({ status: "in_progress", callType })),
  ]);
  const times = [
    ...ascendingTimes(ctx, finals.length, nowMs - 7 * DAY, nowMs - HOUR),
    ...ascendingTimes(ctx, live.length, nowMs - 10 * MINUTE, nowMs - MINUTE),
  ];
  let campaignCalls = 0;
  let otherPhoneCalls = 0;
  [...finals, ...live].forEach((p, i) => {
    const at = times[i];
    const phone = p.callType === "inbound" || p.callType === "outbound";
    // Campaign calls and the other phone calls each go round every number: both cover every number's variants.
    const number = !phone ? null : numbers[(p.campaign ? campaignCalls++ : otherPhoneCalls++) % numbers.length];
    const ownAgentId = number && (p.callType === "inbound" ? number.inboundAgentId : number.outboundAgentId);
    const agent = referenceTo(agents.find((a) => a.agentId === ownAgentId) ?? agents[i % agents.length]);
    const callId = faker.string.uuid();
    // A scheduled call waits for its campaign, which starts a year from now: the far-future start that holds it.
    const campaign: Campaign | null = p.campaign
      ? buildCampaign(ctx, p.status === "scheduled" ? { scheduledDate: iso(at + HOLD_MS) } : {}, {
          agent,
          phoneNumber: number,
          callCreated: at,
          callStatus: p.status,
        })
      : null;
    const dynamicVariables = [null, {}, { customerName: faker.person.fullName() }][i % 3];
    const call = workspace.collections.calls.create(
      buildCall(ctx, {
        callId,
        createdAt: iso(at),
        status: p.status,
        callType: p.callType,
        agent,
        campaign,
        dynamicVariables,
        ...(number && { phoneNumber: number }),
        ...(p.reason && { terminationReason: p.reason }),
        ...(p.recorded === true && { recordingUrl: `https://recordings.example.com/calls/${callId}.wav` }),
        ...(p.recorded === false && { recordingUrl: null }),
        // A duration marks an error after connect; a null start, one before it (see buildCall).
        ...(p.connected === true && { duration: faker.number.int({ min: 5, max: 240 }) }),
        ...(p.connected === false && { startTime: null }),
      }),
    );
    if (call.status === "scheduled" && campaign?.scheduledDate)
      workspace.callPlans.set(callId, {
        status: "ended",
        connects: true,
        connectAt: campaign.scheduledDate,
        durationSeconds: faker.number.int({ min: 30, max: 300 }),
      });
    if (call.status === "in_progress" && call.startTime)
      workspace.callPlans.set(callId, {
        status: "ended",
        connects: true,
        finalAt: iso(Date.parse(call.startTime) + HOLD_MS),
      });
  });
}
