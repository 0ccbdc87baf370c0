/** Section 4 of the reference (E1 to E17), operation by operation, as a table. */
import { type FieldWant, CALL_STATUSES, boolean, e164, int32, string } from "./fields.js";

export interface OperationWant {
  operationId: string;
  tag: string;
  success: string;
  /** Component schema of the success body; null for a response without content (204). */
  response: string | null;
  errors: string[];
  /** Every parameter (query and path), by name; none other may exist. */
  parameters: Record<string, FieldWant & { in: "query" | "path" }>;
  body?: { media: string; schema: string };
  /** The reference leaves something about the operation open (E5's response, E8's filters). */
  assumed?: boolean;
}

export type OperationRow = [string, { given: { method: string; path: string }; want: OperationWant }];

const ERRORS = ["400", "401", "403", "404", "500"];
/** int32 (section 2.1) bounds the value: its maximum is the type's, not an invented limit. */
const INT32_MAX = 2147483647;
const page = { in: "query", required: false, ...int32({ default: 0, minimum: 0, maximum: INT32_MAX }) } as const;
const size = { in: "query", required: false, ...int32({ default: 10, minimum: 1, maximum: INT32_MAX }) } as const;
const pathId = { in: "path", required: true, ...string } as const;
const json = (schema: string) => ({ media: "application/json", schema });

export const operations: OperationRow[] = [
  [
    "E1 list agents",
    {
      given: { method: "get", path: "/v1/agents" },
      want: {
        operationId: "listAgents",
        tag: "Agents",
        success: "200",
        response: "AgentPage",
        errors: ERRORS,
        parameters: { page, size },
      },
    },
  ],
  [
    "E2 create integration",
    {
      given: { method: "post", path: "/v1/integrations" },
      want: {
        operationId: "createIntegration",
        tag: "Integrations",
        success: "201",
        response: "Integration",
        errors: ERRORS,
        parameters: {},
        body: json("IntegrationCreate"),
      },
    },
  ],
  [
    "E3 get integration",
    {
      given: { method: "get", path: "/v1/integrations/{integrationId}" },
      want: {
        operationId: "getIntegration",
        tag: "Integrations",
        success: "200",
        response: "Integration",
        errors: ERRORS,
        parameters: { integrationId: pathId },
      },
    },
  ],
  [
    "E4 update integration",
    {
      given: { method: "patch", path: "/v1/integrations/{integrationId}" },
      want: {
        operationId: "updateIntegration",
        tag: "Integrations",
        success: "200",
        response: "Integration",
        errors: ERRORS,
        parameters: { integrationId: pathId },
        body: json("IntegrationUpdate"),
      },
    },
  ],
  [
    "E5 create integration auth",
    {
      given: { method: "post", path: "/v1/integrations/{integrationId}/auth" },
      want: {
        operationId: "createIntegrationAuth",
        tag: "Integrations",
        success: "200",
        response: "IntegrationAuth",
        errors: ERRORS,
        parameters: { integrationId: pathId },
        body: json("IntegrationAuthCreate"),
        assumed: true,
      },
    },
  ],
  [
    "E6 create batch run",
    {
      given: { method: "post", path: "/v1/batch-runs" },
      want: {
        operationId: "createBatchRun",
        tag: "Simulations",
        success: "201",
        response: "BatchRunCreated",
        errors: ERRORS,
        parameters: {},
        body: json("BatchRunCreate"),
      },
    },
  ],
  [
    "E7 get batch run",
    {
      given: { method: "get", path: "/v1/batch-runs/{batchId}" },
      want: {
        operationId: "getBatchRun",
        tag: "Simulations",
        success: "200",
        response: "BatchRun",
        errors: ERRORS,
        parameters: { batchId: pathId, agentId: { in: "query", ...string, assumed: true } },
      },
    },
  ],
  [
    "E8 list test runs",
    {
      given: { method: "get", path: "/v1/test-runs" },
      want: {
        operationId: "listTestRuns",
        tag: "Simulations",
        success: "200",
        response: "TestRunPage",
        errors: ERRORS,
        parameters: { batchId: { in: "query", ...string }, agentId: { in: "query", ...string }, page, size },
        assumed: true,
      },
    },
  ],
  [
    "E9 create knowledge base",
    {
      given: { method: "post", path: "/v1/knowledge-bases" },
      want: {
        operationId: "createKnowledgeBase",
        tag: "Knowledge bases",
        success: "201",
        response: "KnowledgeBase",
        errors: ["400", "401", "403", "404", "413", "415", "500"],
        parameters: {},
        body: { media: "multipart/form-data", schema: "KnowledgeBaseCreate" },
      },
    },
  ],
  [
    "E10 list calls",
    {
      given: { method: "get", path: "/v1/calls" },
      want: {
        operationId: "listCalls",
        tag: "Calls",
        success: "200",
        response: "CallPage",
        errors: ERRORS,
        parameters: { status: { in: "query", required: false, type: "string", enum: CALL_STATUSES }, page, size },
      },
    },
  ],
  [
    "E11 get call",
    {
      given: { method: "get", path: "/v1/calls/{callId}" },
      want: {
        operationId: "getCall",
        tag: "Calls",
        success: "200",
        response: "Call",
        errors: ERRORS,
        parameters: { callId: pathId },
      },
    },
  ],
  [
    "E12 get QA rule",
    {
      given: { method: "get", path: "/v1/qa-rules/{qaRuleId}" },
      want: {
        operationId: "getQaRule",
        tag: "QA rules",
        success: "200",
        response: "QaRule",
        errors: ERRORS,
        parameters: { qaRuleId: pathId },
      },
    },
  ],
  [
    "E13 delete QA rule",
    {
      given: { method: "delete", path: "/v1/qa-rules/{qaRuleId}" },
      want: {
        operationId: "deleteQaRule",
        tag: "QA rules",
        success: "204",
        response: null,
        errors: ERRORS,
        parameters: { qaRuleId: pathId },
      },
    },
  ],
  [
    "E14 list phone numbers",
    {
      given: { method: "get", path: "/v1/phone-number" },
      want: {
        operationId: "listPhoneNumbers",
        tag: "Phone numbers",
        success: "200",
        response: "PhoneNumberPage",
        errors: ERRORS,
        parameters: { page, size },
      },
    },
  ],
  [
    "E15 update phone number",
    {
      given: { method: "patch", path: "/v1/phone-number/{phoneNumber}" },
      want: {
        operationId: "updatePhoneNumber",
        tag: "Phone numbers",
        success: "200",
        response: "PhoneNumber",
        errors: ERRORS,
        parameters: { phoneNumber: { in: "path", required: true, ...e164 } },
        body: json("PhoneNumberUpdate"),
      },
    },
  ],
  [
    "E16 create chat",
    {
      given: { method: "post", path: "/v1/chat" },
      want: {
        operationId: "createChat",
        tag: "Chat",
        success: "200",
        response: "ChatCompletion",
        errors: ERRORS,
        parameters: {},
        body: json("ChatCreate"),
      },
    },
  ],
  [
    "E17 list webhooks",
    {
      given: { method: "get", path: "/v1/webhooks" },
      want: {
        operationId: "listWebhooks",
        tag: "Webhooks",
        success: "200",
        response: "WebhookPage",
        errors: ERRORS,
        parameters: {
          agentId: { in: "query", required: false, ...string },
          active: { in: "query", required: false, ...boolean, default: true },
          page,
          size,
        },
      },
    },
  ],
];
