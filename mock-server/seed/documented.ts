/**
 * The documented records: what the spec's examples show, with exactly their ids, in the default
 * workspace (the one `npm start` serves), so a request copied from an example finds what it names and
 * a tool that pairs request and response examples by name (Specmatic, Microcks) can replay them
 * against the mock. The examples' not-found ids (unknownCall, unknownIntegration, ...) stay unknown.
 *
 * They are the oldest records of their collections: they are put before the generated world (at
 * negative places in insertion order), after it was generated, so the generated records are exactly
 * what they were without them, and lists (newest first) still end with the oldest. Their times are
 * the examples' times moved back to some 90 days before `now`, before anything generated; the gaps
 * between them (a call's 192 s, an integration's later update) are the examples' own.
 */
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import type { Collection } from "../store/collection.js";
import type {
  Agent,
  AgentReference,
  BatchRun,
  Call,
  CollectionName,
  Integration,
  KnowledgeBase,
  MockToolData,
  PhoneNumber,
  QaRule,
  RecordTypes,
  StoredChat,
  StoredTestRun,
  TestCase,
  Webhook,
} from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { countAttempts } from "./batch-runs.js";
import { DAY } from "./context.js";

/** The ids the examples use, by what they name. */
export const DOCUMENTED = {
  agentId: "4f6a8c0e-2b1d-4e3f-9a5c-7d9e1b3f5a72",
  webhookId: "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b",
  phoneNumber: "+14155550142",
  londonNumber: "+442071838750",
  integrationId: "0c2e4a6b-8d1f-4a3c-9e5b-7f1a3c5e7b92",
  authId: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
  toolId: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
  kbId: "kb_5f2c9a1e7b3d4c6a8e0f",
  qaRuleId: "2d4f6b8a-0c1e-4a3b-8d5f-7e9a1c3b5d68",
  mockToolDataId: "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
  testCaseIds: ["3a5c7e9b-1d2f-4b4a-8c6e-0f2b4d6a8c13", "5c7e9b1d-3f4a-4d6c-9e8a-2b4d6f8a0c35"],
  batchId: "6e8a0c2d-4f5b-4c7e-8a9d-1b3c5e7f9a24",
  jobIds: ["3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a", "9f1b3d5e-7a2c-4e4b-8d6f-0a2c4e6b8d57"],
  callIds: {
    ended: "8c0e2a4b-6d1f-4c3e-a5b7-9d1f3b5c7e90",
    notConnected: "6c8d0e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
    scheduled: "7d9e1f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a",
  },
  campaignId: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
  chatId: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
} as const;

/** The examples' times are around this instant; it becomes `now` minus EXAMPLES_AGE. */
const EXAMPLES_EPOCH = Date.parse("2026-11-03T00:00:00.000Z");
const EXAMPLES_AGE = 90 * DAY;

export function seedDocumented(workspace: Workspace, now: Date): void {
  if (workspace.workspaceId !== DEFAULT_WORKSPACE_ID) return;
  const at = (example: string) =>
    new Date(Date.parse(example) - EXAMPLES_EPOCH + now.getTime() - EXAMPLES_AGE).toISOString();
  const records = documentedRecords(workspace.workspaceId, at);
  const c = workspace.collections;
  prepend(c.agents, [records.agent]);
  prepend(c.webhooks, [records.webhook]);
  prepend(c.phoneNumbers, records.phoneNumbers);
  prepend(c.integrations, [records.integration]);
  workspace.credentials.set(DOCUMENTED.integrationId, {
    authType: "BEARER",
    token: "<TOKEN>",
    headers: [{ key: "Accept", value: "application/json" }],
  });
  prepend(c.knowledgeBases, [records.knowledgeBase]);
  prepend(c.qaRules, [records.qaRule]);
  prepend(c.mockToolData, [records.mockToolData]);
  prepend(c.testCases, records.testCases);
  prepend(c.batchRuns, [records.batchRun]);
  prepend(c.testRuns, records.testRuns);
  c.batchRuns.update(DOCUMENTED.batchId, (batch) => ({ ...batch, ...countAttempts(workspace, batch.batchId) }));
  prepend(c.chats, [records.chat]);
  prepend(c.calls, records.calls);
}

/**
 * Puts `records` (oldest first) before every record the collection holds: created as any record (so
 * the store is told, and an id a generated record already has is refused), then moved to its place.
 */
function prepend<T extends object>(collection: Collection<T>, records: T[]): void {
  records.forEach((record, i) => {
    collection.create(record);
    collection.put(collection.idOf(record), { seq: i - records.length, value: record });
  });
}

type Records = {
  agent: Agent;
  webhook: Webhook;
  phoneNumbers: PhoneNumber[];
  integration: Integration;
  knowledgeBase: KnowledgeBase;
  qaRule: QaRule;
  mockToolData: MockToolData;
  testCases: TestCase[];
  batchRun: BatchRun;
  testRuns: StoredTestRun[];
  chat: StoredChat;
  calls: Call[];
};

/** The records, as the examples show them; `at` moves an example's time to the workspace's. */
export function documentedRecords(workspaceId: string, at: (example: string) => string): Records {
  const d = DOCUMENTED;
  const agentRef: AgentReference = { name: "Front desk", agentId: d.agentId, status: "Live" };
  const webhook: Webhook = {
    workspaceId,
    webhookId: d.webhookId,
    name: "CRM sync",
    agentId: d.agentId,
    active: true,
    secret: "whsec_3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e",
    events: "conversation_started,conversation_ended",
    url: "https://hooks.example.com/agent-events",
  };
  const agent: Agent = {
    agentId: d.agentId,
    agentName: "Front desk",
    instructions: "You are the friendly receptionist of a dental practice. Book, move and cancel appointments.",
    welcomeMessageType: "static",
    welcomeMessage: "Hello, thanks for calling. How can I help?",
    agentSettings: {
      language: "en_US",
      aiStartsConversation: true,
      backgroundSound: "none",
      globalPrompt: "Never give medical advice; offer to book an appointment instead.",
      remindersIntervalDuration: 10,
      remindersLimit: 4,
      endCallOnSilenceDuration: 5,
      maxCallDuration: 60,
      llmModel: "small-general-model",
      llmTemperature: 0.7,
      llmTopP: 0.9,
      llmTopK: 40,
      voiceId: "defaultvendor_voice01",
      voiceModelId: "tts-default-v1",
      ttsSpeed: 1,
      ttsTemperature: 0.5,
      ttsVolume: 1,
      aiStartsSpeakingPlan: 1,
      aiStopsSpeakingPlan: 1,
      ivrHangup: false,
      agentTimezone: "America/New_York",
      autoVolumeNormalization: true,
      backgroundNoiseFilter: true,
      echoCancellation: true,
      enablePostConversationAnalysis: true,
      postConversationAnalysisLlmModel: "small-general-model",
      postConversationAnalysis: [
        {
          insightName: "appointment_booked",
          insightInstructions: "Did the caller book, move or cancel an appointment?",
          dataType: "boolean",
          options: [],
        },
      ],
      webhooks: [
        {
          webhookId: webhook.webhookId,
          name: webhook.name,
          url: webhook.url,
          secret: webhook.secret,
          events: webhook.events.split(","),
        },
      ],
    },
    tools: [
      {
        type: "voice_transfer_call",
        nodeId: "node-1",
        toolName: "transfer_to_billing",
        instruction: "Transfer when the caller asks about an invoice.",
        transferToRouting: "static",
        transferTo: "+14155550199",
        extensionNumber: "204",
        transferSettings: {
          transferType: "warm",
          ringingDuration: 30,
          waitForParticipantAnswer: true,
          enableWhisperMessage: true,
          whisperMessage: "Caller has a billing question.",
          whisperMessageType: "static",
          enableThreeWayMessage: false,
          threeWayMessage: "",
          threeWayMessageType: "static",
          customHeaders: {},
        },
      },
    ],
  };
  const mainLine: PhoneNumber = {
    sipPhoneNumber: d.phoneNumber,
    provider: "<carrier_a>",
    inboundAgentId: d.agentId,
    outboundAgentId: d.agentId,
    outboundPhoneNumber: d.phoneNumber,
    active: true,
    terminationSipURI: "sip:trunk.example.com",
    friendlyName: "Main line",
  };
  const london: PhoneNumber = {
    sipPhoneNumber: d.londonNumber,
    provider: "byo",
    inboundAgentId: null,
    outboundAgentId: null,
    outboundPhoneNumber: null,
    active: false,
    terminationSipURI: "sip:pbx.example.co.uk",
    friendlyName: "London office",
  };
  const integration: Integration = {
    integrationId: d.integrationId,
    name: "CRM",
    description: "Use to look up customers, orders and invoices.",
    authentication: {
      authId: d.authId,
      integrationId: d.integrationId,
      authType: "BEARER",
      headers: [{ key: "Accept", value: "application/json" }],
      createdAt: at("2026-11-01T09:31:00.000Z"),
      updatedAt: at("2026-11-01T09:31:00.000Z"),
    },
    tools: [
      {
        toolId: d.toolId,
        integrationId: d.integrationId,
        name: "lookup_customer",
        description: "Call when the caller gives a customer number.",
        method: "GET",
        url: "https://crm.example.com/customers/{{customerId}}",
        scope: "local",
        headers: {},
        queryParams: { expand: "orders" },
        bodyParams: {},
        createdAt: at("2026-11-01T09:32:00.000Z"),
        updatedAt: at("2026-11-01T09:32:00.000Z"),
      },
    ],
    createdAt: at("2026-11-01T09:30:00.000Z"),
    updatedAt: at("2026-11-02T14:05:00.000Z"),
  };
  const knowledgeBase: KnowledgeBase = {
    kbId: d.kbId,
    name: "Support FAQ",
    files: [
      { documentId: "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f", type: "text", content: "Opening hours are 9 to 5." },
      { documentId: "1e2d3c4b-5a69-4877-8665-4b3c2d1e0f1a", type: "text", content: "Returns\n\n30 days." },
      { documentId: "2d3c4b5a-6978-4866-9554-3c2d1e0f1a2b", type: "url", content: "https://example.com/faq" },
    ],
    createdAt: at("2026-11-01T11:00:00.000Z"),
    updatedAt: at("2026-11-01T11:00:00.000Z"),
  };
  const qaRule: QaRule = {
    qaRuleId: d.qaRuleId,
    workspaceId,
    ruleName: "Greets by name",
    ruleDescription: "The agent greets the customer by name when it is known.",
    agents: [agentRef],
    evaluationCriteria: "Did the agent use the customer's name in its first two turns?",
    expectedValue: true,
  };
  const mockToolData: MockToolData = {
    mockToolDataId: d.mockToolDataId,
    workspaceId,
    toolAlias: "lookup_order",
    name: "Order found",
    statusCode: 200,
    responseBody: JSON.stringify({ orderId: "A-1001", status: "delayed", placedDaysAgo: 14 }),
    createdAt: at("2026-11-01T09:40:00.000Z"),
  };
  const refund: TestCase = {
    testCaseId: d.testCaseIds[0],
    label: "Refund request for a late order",
    agent: agentRef,
    workspaceId,
    llmModel: "small-general-model",
    mockData: [{ variableName: "customerName", value: "Dana" }],
    mockToolData: [
      { toolAlias: "lookup_order", mockToolDataId: d.mockToolDataId, name: "Order found", statusCode: 200 },
    ],
    userPrompt: "You are Dana, whose order is two weeks late. You want a refund.",
    attempt: 2,
    successCriteria: "The agent offers a refund or a replacement.",
  };
  const moveAppointment: TestCase = {
    testCaseId: d.testCaseIds[1],
    label: "Move an appointment to next week",
    agent: agentRef,
    workspaceId,
    llmModel: "small-general-model",
    mockData: [{ variableName: "customerName", value: "Sam" }],
    mockToolData: [],
    userPrompt: "You are Sam. Your check-up is on Monday and you want to move it to next week.",
    attempt: 1,
    successCriteria: "The agent offers a new time next week and confirms it.",
  };
  const batchRun: BatchRun = {
    batchId: d.batchId,
    workspaceId,
    agent: agentRef,
    createdDate: at("2026-11-01T10:00:00.000Z"),
    testCases: [refund],
    successfulAttempts: 0,
    failedAttempts: 0,
    totalAttempts: 0,
  };
  const conversation = [
    { role: "assistant", content: "Hello, thanks for calling. How can I help?" },
    { role: "user", content: "My order is two weeks late and I want a refund." },
  ];
  const testRuns: StoredTestRun[] = [
    {
      batchId: d.batchId,
      workspaceId,
      agent: agentRef,
      testCase: refund,
      jobId: d.jobIds[0],
      chatId: "4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b",
      createdDate: at("2026-11-01T10:00:00.000Z"),
      completedDate: at("2026-11-01T10:01:30.000Z"),
      isSuccessful: true,
      remarks: "The agent apologised and offered a refund.",
      conversation: [
        ...conversation,
        { role: "assistant", content: "I am sorry about that, Dana. I have started a refund for you." },
      ],
    },
    {
      batchId: d.batchId,
      workspaceId,
      agent: agentRef,
      testCase: refund,
      jobId: d.jobIds[1],
      chatId: "0b2d4f6a-8c1e-4b3d-9f5a-7c9e1b3d5f80",
      createdDate: at("2026-11-01T10:00:01.000Z"),
      completedDate: at("2026-11-01T10:01:45.000Z"),
      isSuccessful: false,
      remarks: "The agent asked Dana to call back later and offered neither a refund nor a replacement.",
      conversation: [...conversation, { role: "assistant", content: "Please call back once the order has arrived." }],
    },
  ];
  const chat: StoredChat = {
    id: d.chatId,
    createdAt: at("2026-11-01T13:00:00.000Z"),
    updatedAt: at("2026-11-01T13:00:01.000Z"),
    status: "completed",
    error: null,
    response: [
      {
        id: "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
        role: "assistant",
        type: "text",
        content: ["Of course, Dana. Friday at 10:00 or at 15:30 is free. Which one suits you?"],
      },
    ],
    agentId: d.agentId,
    conversation: "Can I move my appointment to Friday?",
    variables: { customerName: "Dana" },
  };
  const campaign: Call["campaign"] = {
    campaignId: d.campaignId,
    campaignName: "November follow-ups",
    campaignStatus: "live",
    scheduledDate: at("2026-11-01T08:00:00.000Z"),
    concurrentCalls: 5,
    agent: agentRef,
    phoneNumber: mainLine,
    errors: [],
    scheduled: true,
  };
  const calls: Call[] = [
    {
      callId: d.callIds.ended,
      callType: "outbound",
      phoneNumber: mainLine,
      campaign,
      status: "ended",
      transcript:
        "Agent: Hello Dana, this is the front desk of Bright Smile Dental, calling about your check-up.\nUser: Yes, can we move it to next week?\nAgent: Of course. Tuesday at 9:00 is free; I have booked it.",
      startTime: at("2026-11-01T12:00:05.000Z"),
      endTime: at("2026-11-01T12:03:17.000Z"),
      duration: 192,
      terminationReason: "agent_ended_call",
      createdAt: at("2026-11-01T12:00:00.000Z"),
      updatedAt: at("2026-11-01T12:03:20.000Z"),
      dynamicVariables: { customerName: "Dana" },
      recordingUrl: `https://recordings.example.com/${d.callIds.ended}.mp3`,
      agent: agentRef,
    },
    {
      callId: d.callIds.notConnected,
      callType: "outbound",
      phoneNumber: mainLine,
      campaign: null,
      status: "not_connected",
      transcript: null,
      startTime: null,
      endTime: null,
      duration: null,
      terminationReason: "dial_no_answer",
      createdAt: at("2026-11-01T12:00:01.000Z"),
      updatedAt: at("2026-11-01T12:00:45.000Z"),
      dynamicVariables: null,
      recordingUrl: null,
      agent: agentRef,
    },
    {
      callId: d.chatId,
      callType: "chat",
      phoneNumber: null,
      campaign: null,
      status: "ended",
      transcript:
        "User: Can I move my appointment to Friday?\nAgent: Of course, Dana. Friday at 10:00 or at 15:30 is free. Which one suits you?",
      startTime: chat.createdAt,
      endTime: at("2026-11-01T13:05:01.000Z"),
      duration: 300,
      terminationReason: "silence_timed_out",
      createdAt: chat.createdAt,
      updatedAt: at("2026-11-01T13:05:01.000Z"),
      dynamicVariables: { customerName: "Dana" },
      recordingUrl: null,
      agent: agentRef,
    },
    {
      callId: d.callIds.scheduled,
      callType: "web",
      phoneNumber: null,
      campaign: null,
      status: "scheduled",
      transcript: null,
      startTime: null,
      endTime: null,
      duration: null,
      terminationReason: null,
      createdAt: at("2026-11-01T13:10:00.000Z"),
      updatedAt: at("2026-11-01T13:10:00.000Z"),
      dynamicVariables: {},
      recordingUrl: null,
      agent: agentRef,
    },
  ];
  return {
    agent,
    webhook,
    phoneNumbers: [mainLine, london],
    integration,
    knowledgeBase,
    qaRule,
    mockToolData,
    testCases: [refund, moveAppointment],
    batchRun,
    testRuns,
    chat,
    calls,
  };
}

/** Every documented id, by collection, for checks. */
export function documentedIds(): { [K in CollectionName]?: string[] } {
  const records = documentedRecords(DEFAULT_WORKSPACE_ID, (t) => t);
  const ids = <K extends CollectionName>(list: RecordTypes[K][], idOf: (r: RecordTypes[K]) => string) => list.map(idOf);
  return {
    agents: [records.agent.agentId],
    webhooks: [records.webhook.webhookId],
    phoneNumbers: ids<"phoneNumbers">(records.phoneNumbers, (r) => r.sipPhoneNumber),
    integrations: [records.integration.integrationId],
    knowledgeBases: [records.knowledgeBase.kbId],
    qaRules: [records.qaRule.qaRuleId],
    mockToolData: [records.mockToolData.mockToolDataId],
    testCases: ids<"testCases">(records.testCases, (r) => r.testCaseId),
    batchRuns: [records.batchRun.batchId],
    testRuns: ids<"testRuns">(records.testRuns, (r) => r.jobId),
    chats: [records.chat.id],
    calls: ids<"calls">(records.calls, (r) => r.callId),
  };
}
