/** Section 2 of the reference (and the bodies of section 4), resource by resource, as a table. */
import {
  type FieldWant,
  AUTH_TYPES,
  CALL_STATUSES,
  CALL_TYPES,
  PROVIDERS,
  TERMINATION_REASONS,
  arrayOf,
  boolean,
  count,
  dateTime,
  double,
  e164,
  int32,
  integer,
  openString,
  ref,
  string,
  stringMap,
} from "./fields.js";

export interface ResourceWant {
  /** Every property the schema has (allOf merged); none may be missing, none added. */
  fields: Record<string, FieldWant>;
  /** The reference leaves something about the whole schema open (E2's required fields). */
  assumed?: boolean;
}

export type ResourceRow = [string, { given: string; want: ResourceWant }];

const agentRef = ref("AgentReference", { type: "object" });
/** A field the reference gives no default for ("-" in 2.3.1): null when not set, which is a decision. */
const unset = (want: FieldWant): FieldWant => ({ ...want, nullable: true, assumed: true });
const phoneNumber = ref("PhoneNumber", { type: "object" });
const id = string;

/** 2.1: every list wraps its items like this; the phone number list says totalCounts. */
function page(items: string, total: "totalCount" | "totalCounts" = "totalCount"): ResourceWant {
  return {
    fields: {
      data: arrayOf(ref(items)),
      page: int32({ minimum: 0 }),
      size: int32({ minimum: 1 }),
      totalPages: int32({ minimum: 0 }),
      [total]: count({ format: "int64" }),
      hasNext: boolean,
      hasPrevious: boolean,
    },
  };
}

export const resources: ResourceRow[] = [
  ["2.1 agent page", { given: "AgentPage", want: page("Agent") }],
  ["2.1 test run page", { given: "TestRunPage", want: page("TestRun") }],
  ["2.1 call page", { given: "CallPage", want: page("Call") }],
  ["2.1 webhook page (E17)", { given: "WebhookPage", want: page("Webhook") }],
  [
    "2.1 phone number page with totalCounts (E14)",
    { given: "PhoneNumberPage", want: page("PhoneNumber", "totalCounts") },
  ],
  [
    "2.2 error body",
    {
      given: "Error",
      want: {
        fields: {
          timestamp: { ...dateTime, required: true },
          status: { ...integer, minimum: 400, maximum: 599, required: true },
          error: { ...string, required: true },
          message: { ...string, required: true },
          path: { ...string, required: true },
          validationErrors: { ...stringMap, required: false },
        },
      },
    },
  ],
  [
    "2.3 agent",
    {
      given: "Agent",
      want: {
        fields: {
          agentId: id,
          agentName: string,
          instructions: string,
          welcomeMessageType: { type: "string", enum: ["static", "prompt"], default: "static" },
          welcomeMessage: string,
          agentSettings: ref("AgentSettings", { type: "object" }),
          tools: arrayOf(ref("AgentTool")),
        },
      },
    },
  ],
  [
    "2.3.1 agentSettings",
    {
      given: "AgentSettings",
      want: {
        fields: {
          language: { ...string, default: "en_US" },
          aiStartsConversation: { ...boolean, default: true },
          backgroundSound: { type: "string", enum: ["keyboard_typing", "office_ambience", "none"], default: "none" },
          globalPrompt: unset(string),
          remindersIntervalDuration: int32({ default: 10 }),
          remindersLimit: int32({ default: 4, minimum: 0, assumed: true }),
          endCallOnSilenceDuration: { type: "number", format: "float", default: 5 },
          maxCallDuration: int32({ default: 60 }),
          llmModel: { ...string, assumed: true },
          llmTemperature: double({ assumed: true }),
          llmTopP: double({ assumed: true }),
          llmTopK: int32({ assumed: true }),
          voiceId: { ...string, assumed: true },
          voiceModelId: { ...string, assumed: true },
          ttsSpeed: double({ assumed: true }),
          ttsTemperature: double({ assumed: true }),
          ttsVolume: double({ assumed: true }),
          aiStartsSpeakingPlan: double({ default: 1 }),
          aiStopsSpeakingPlan: double({ default: 1 }),
          ivrHangup: { ...boolean, default: false },
          agentTimezone: unset(string),
          autoVolumeNormalization: unset(boolean),
          backgroundNoiseFilter: unset(boolean),
          echoCancellation: unset(boolean),
          enablePostConversationAnalysis: unset(boolean),
          postConversationAnalysisLlmModel: unset(string),
          postConversationAnalysis: arrayOf(ref("PostConversationInsight"), { assumed: true }),
          webhooks: arrayOf(ref("AgentWebhook"), { assumed: true }),
        },
      },
    },
  ],
  [
    "2.3.1 post-conversation insight",
    {
      given: "PostConversationInsight",
      want: {
        fields: {
          insightName: string,
          insightInstructions: string,
          dataType: { ...openString, assumed: true },
          options: arrayOf(string, { assumed: true }),
        },
      },
    },
  ],
  [
    "2.3.1 agentSettings.webhooks item (events an array)",
    {
      given: "AgentWebhook",
      want: {
        fields: {
          webhookId: id,
          name: string,
          url: string,
          secret: string,
          events: arrayOf(string),
        },
      },
    },
  ],
  [
    "2.3.2 agent tool",
    {
      given: "AgentTool",
      want: {
        fields: {
          type: openString,
          nodeId: string,
          toolName: string,
          instruction: string,
          transferToRouting: openString,
          transferTo: string,
          extensionNumber: string,
          transferSettings: ref("TransferSettings", { type: "object" }),
        },
      },
    },
  ],
  [
    "2.3.2 transferSettings",
    {
      given: "TransferSettings",
      want: {
        fields: {
          transferType: openString,
          ringingDuration: integer,
          waitForParticipantAnswer: boolean,
          enableWhisperMessage: boolean,
          whisperMessage: string,
          whisperMessageType: openString,
          enableThreeWayMessage: boolean,
          threeWayMessage: string,
          threeWayMessageType: openString,
          customHeaders: { type: "object" },
        },
      },
    },
  ],
  [
    "2.4 integration",
    {
      given: "Integration",
      want: {
        fields: {
          integrationId: id,
          name: string,
          description: { ...string, nullable: true, assumed: true },
          authentication: ref("IntegrationAuth", { nullable: true, assumed: true }),
          tools: arrayOf(ref("IntegrationTool")),
          createdAt: dateTime,
          updatedAt: dateTime,
        },
      },
    },
  ],
  [
    "2.5 integration auth summary",
    {
      given: "IntegrationAuth",
      want: {
        fields: {
          authId: id,
          integrationId: id,
          authType: { type: "string", enum: AUTH_TYPES },
          headers: arrayOf(ref("KeyValue")),
          createdAt: dateTime,
          updatedAt: dateTime,
        },
      },
    },
  ],
  [
    "2.5 header {key, value}",
    { given: "KeyValue", want: { fields: { key: { ...string, assumed: true }, value: string } } },
  ],
  [
    "2.6 integration tool",
    {
      given: "IntegrationTool",
      want: {
        fields: {
          toolId: id,
          integrationId: id,
          name: string,
          description: string,
          method: openString,
          url: string,
          scope: openString,
          headers: stringMap,
          queryParams: stringMap,
          bodyParams: stringMap,
          createdAt: dateTime,
          updatedAt: dateTime,
        },
      },
    },
  ],
  [
    "2.7 agent reference",
    { given: "AgentReference", want: { fields: { name: string, agentId: id, status: openString } } },
  ],
  [
    "2.7 batch run (get-one)",
    {
      given: "BatchRun",
      want: {
        fields: {
          batchId: id,
          workspaceId: id,
          agent: agentRef,
          createdDate: dateTime,
          testCases: arrayOf(ref("TestCase")),
          successfulAttempts: count(),
          failedAttempts: count(),
          totalAttempts: count({ assumed: true }),
        },
      },
    },
  ],
  [
    "2.7 test case",
    {
      given: "TestCase",
      want: {
        fields: {
          testCaseId: id,
          label: string,
          agent: agentRef,
          workspaceId: id,
          llmModel: string,
          mockData: arrayOf(ref("MockDataItem")),
          mockToolData: arrayOf(ref("MockToolDataRef"), { assumed: true }),
          userPrompt: string,
          attempt: { ...integer, minimum: 1, assumed: true },
          successCriteria: string,
        },
      },
    },
  ],
  ["2.7 mock data item", { given: "MockDataItem", want: { fields: { variableName: string, value: string } } }],
  [
    "2.7 mock tool data reference",
    {
      given: "MockToolDataRef",
      want: {
        fields: {
          toolAlias: string,
          mockToolDataId: id,
          name: string,
          statusCode: { ...integer, minimum: 100, maximum: 599, assumed: true },
        },
      },
    },
  ],
  [
    "2.7 test run",
    {
      given: "TestRun",
      want: {
        fields: {
          batchId: id,
          workspaceId: id,
          agent: agentRef,
          testCase: ref("TestCase"),
          jobId: id,
          chatId: id,
          createdDate: dateTime,
          completedDate: { ...dateTime, nullable: true, assumed: true },
          isSuccessful: { ...boolean, nullable: true, assumed: true },
          remarks: { ...string, nullable: true, assumed: true },
          conversation: arrayOf(ref("ConversationMessage"), { assumed: true }),
        },
      },
    },
  ],
  [
    "2.7 conversation message",
    { given: "ConversationMessage", want: { fields: { role: { ...openString, assumed: true }, content: string } } },
  ],
  [
    "2.8 knowledge base",
    {
      given: "KnowledgeBase",
      want: {
        fields: {
          kbId: { ...string, minLength: 1, maxLength: 64 },
          name: { ...string, maxLength: 512 },
          files: arrayOf(ref("KnowledgeBaseSource")),
          createdAt: dateTime,
          updatedAt: dateTime,
        },
      },
    },
  ],
  [
    "2.8 knowledge base source",
    {
      given: "KnowledgeBaseSource",
      want: {
        fields: {
          documentId: id,
          type: { ...openString, assumed: true },
          content: { ...string, assumed: true },
        },
      },
    },
  ],
  [
    "2.9 call",
    {
      given: "Call",
      want: {
        fields: {
          callId: id,
          callType: { type: "string", enum: CALL_TYPES },
          phoneNumber: { ...phoneNumber, nullable: true, assumed: true },
          campaign: ref("Campaign", { type: "object", nullable: true, assumed: true }),
          status: { type: "string", enum: CALL_STATUSES },
          transcript: { ...string, nullable: true, assumed: true },
          startTime: { ...dateTime, nullable: true },
          endTime: { ...dateTime, nullable: true },
          duration: count({ nullable: true }),
          terminationReason: { type: "string", enum: TERMINATION_REASONS, nullable: true },
          createdAt: dateTime,
          updatedAt: dateTime,
          dynamicVariables: { type: "object", nullable: true },
          recordingUrl: { ...string, nullable: true },
          agent: agentRef,
        },
      },
    },
  ],
  [
    "2.10 phone number",
    {
      given: "PhoneNumber",
      want: {
        fields: {
          sipPhoneNumber: e164,
          provider: { type: "string", enum: PROVIDERS, assumed: true },
          inboundAgentId: unset(string),
          outboundAgentId: unset(string),
          outboundPhoneNumber: unset(e164),
          active: boolean,
          terminationSipURI: unset(string),
          friendlyName: unset(string),
        },
      },
    },
  ],
  [
    "2.11 campaign",
    {
      given: "Campaign",
      want: {
        fields: {
          campaignId: id,
          campaignName: string,
          campaignStatus: openString,
          scheduledDate: dateTime,
          concurrentCalls: { ...integer, minimum: 1, assumed: true },
          agent: agentRef,
          phoneNumber,
          errors: arrayOf(string),
          scheduled: boolean,
        },
      },
    },
  ],
  [
    "2.12 QA rule",
    {
      given: "QaRule",
      want: {
        fields: {
          qaRuleId: id,
          workspaceId: id,
          ruleName: string,
          ruleDescription: string,
          agents: arrayOf(agentRef),
          evaluationCriteria: string,
          expectedValue: boolean,
        },
      },
    },
  ],
  [
    "2.13 webhook (events a string)",
    {
      given: "Webhook",
      want: {
        fields: {
          workspaceId: id,
          webhookId: id,
          name: string,
          agentId: id,
          active: boolean,
          secret: string,
          events: { ...string, assumed: true },
          url: string,
        },
      },
    },
  ],
  [
    "2.14 chat completion result",
    {
      given: "ChatCompletion",
      want: {
        fields: {
          id,
          createdAt: dateTime,
          updatedAt: dateTime,
          status: { ...openString, assumed: true },
          error: { ...string, nullable: true, assumed: true },
          response: arrayOf(ref("ChatResponseMessage")),
        },
      },
    },
  ],
  [
    "2.14 chat response item",
    {
      given: "ChatResponseMessage",
      want: {
        fields: {
          id,
          role: { ...openString, assumed: true },
          type: { ...openString, assumed: true },
          content: arrayOf(string),
        },
      },
    },
  ],
  [
    "E2 body",
    {
      given: "IntegrationCreate",
      want: {
        fields: {
          name: { ...string, assumed: true },
          description: { ...string, assumed: true },
        },
        assumed: true,
      },
    },
  ],
  [
    "E4 body (partial update)",
    {
      given: "IntegrationUpdate",
      want: {
        fields: {
          name: { ...string, required: false, assumed: true },
          description: { ...string, required: false, assumed: true },
        },
      },
    },
  ],
  ["E6 body", { given: "BatchRunCreate", want: { fields: { agentId: id, testCases: arrayOf(string) } } }],
  [
    "E9 multipart fields",
    {
      given: "KnowledgeBaseCreate",
      want: {
        fields: {
          name: { ...string, maxLength: 512, assumed: true },
          knowledge_base_texts: { ...string, required: false },
          knowledge_base_urls: { ...string, required: false },
          knowledge_base_files: arrayOf(string, { required: false }),
        },
      },
    },
  ],
  [
    "E15 body (all strings)",
    {
      given: "PhoneNumberUpdate",
      want: {
        fields: {
          friendlyName: string,
          inboundAgentId: string,
          outboundAgentId: string,
          terminationSipUri: string,
          sipTrunkName: string,
          trunkUsername: string,
          trunkPassword: string,
        },
      },
    },
  ],
  [
    "E16 body",
    {
      given: "ChatCreate",
      want: {
        fields: {
          agentId: { ...string, required: true },
          conversation: { ...string, assumed: true },
          variables: { type: "object" },
        },
      },
    },
  ],
];

/** 2.5 creation payload (E5): one variant per authType, with what each requires. */
export const authVariants: [
  string,
  { given: string; want: { required: string[]; fields: Record<string, FieldWant> } },
][] = [
  [
    "API_KEY",
    {
      given: "ApiKeyAuthCreate",
      want: {
        required: ["authType", "apiKey"],
        fields: {
          authType: string,
          apiKey: { type: "object" },
          headers: arrayOf(ref("KeyValue")),
        },
      },
    },
  ],
  [
    "BEARER",
    {
      given: "BearerAuthCreate",
      want: {
        required: ["authType", "token"],
        fields: {
          authType: string,
          token: { ...string, assumed: true },
          headers: arrayOf(ref("KeyValue")),
        },
      },
    },
  ],
  [
    "BASIC",
    {
      given: "BasicAuthCreate",
      want: {
        required: ["authType", "username", "password"],
        fields: {
          authType: string,
          username: { ...string, assumed: true },
          password: { ...string, assumed: true },
          headers: arrayOf(ref("KeyValue")),
        },
      },
    },
  ],
  [
    "NONE",
    {
      given: "NoneAuthCreate",
      want: { required: ["authType"], fields: { authType: string, headers: arrayOf(ref("KeyValue")) } },
    },
  ],
];

/** 2.5 apiKey object of the API_KEY payload. */
export const apiKeyObject: Record<string, FieldWant> = {
  key: { ...string, required: true, assumed: true },
  value: { ...string, required: true, assumed: true },
  position: { type: "string", enum: ["header", "query"], required: true },
};
