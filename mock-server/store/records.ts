/**
 * What each collection stores. Where the platform has a resource shape, the record IS that shape
 * (typed from generated/), so a stored record can be returned as it is. Credentials never live in
 * these records: they sit in the workspace's secrets (see workspace.ts) and are never serialised.
 */
import type { components } from "../../generated/schema.js";
import type { CollectionOptions } from "./collection.js";

type S = components["schemas"];

export type Agent = S["Agent"];
export type AgentReference = S["AgentReference"];
export type Integration = S["Integration"];
export type IntegrationAuth = S["IntegrationAuth"];
export type IntegrationTool = S["IntegrationTool"];
export type Call = S["Call"];
export type CallStatus = S["CallStatus"];
export type PhoneNumber = S["PhoneNumber"];
export type Campaign = S["Campaign"];
export type KnowledgeBase = S["KnowledgeBase"];
export type Webhook = S["Webhook"];
export type QaRule = S["QaRule"];
export type TestCase = S["TestCase"];
export type TestRun = S["TestRun"];
export type ChatCompletion = S["ChatCompletion"];
export type WebhookEvent = S["WebhookEvent"];

/** A batch run as stored: the E7 shape; its counters are kept in step with its test runs. */
export type BatchRun = S["BatchRun"];

/** A test run as stored: the E8 shape; its jobId is unique and serves as the store id. */
export type StoredTestRun = TestRun;

/** QA issue: fields not shown by the reference (2.15). */
export interface QaIssue {
  qaIssueId: string;
  workspaceId: string;
  qaRuleId: string;
  ruleName: string;
  agentId: string;
  conversationId: string;
  status: "Success" | "Fail";
  createdAt: string;
}

/** Mock tool data: fields beyond the id and the 2.7 reference fields are not shown (2.15). */
export interface MockToolData {
  mockToolDataId: string;
  workspaceId: string;
  toolAlias: string;
  name: string;
  statusCode: number;
  responseBody: string;
  createdAt: string;
}

/** A chat conversation as stored: the E16 result plus what it was asked. */
export type StoredChat = ChatCompletion & {
  agentId: string;
  /** The conversation text of the latest turn: the next turn continues this chat if it contains it. */
  conversation: string;
  variables: Record<string, string | number | boolean>;
  /** What was said so far (`User:` and `Agent:` lines), the call's transcript once it ends. */
  transcript?: string;
};

/** API key record: the reference shows only keyId (2.15). The key value itself is a secret. */
export interface ApiKeyRecord {
  keyId: string;
  workspaceId: string;
  name: string;
  scope: "full" | "read_only";
  createdAt: string;
}

/** A stored phone number: the 2.10 shape keyed by sipPhoneNumber. */
export type StoredPhoneNumber = PhoneNumber;

export interface RecordTypes {
  agents: Agent;
  calls: Call;
  phoneNumbers: StoredPhoneNumber;
  integrations: Integration;
  knowledgeBases: KnowledgeBase;
  webhooks: Webhook;
  qaRules: QaRule;
  qaIssues: QaIssue;
  testCases: TestCase;
  batchRuns: BatchRun;
  testRuns: StoredTestRun;
  mockToolData: MockToolData;
  chats: StoredChat;
  apiKeys: ApiKeyRecord;
}

export type CollectionName = keyof RecordTypes;

export const collectionNames: CollectionName[] = [
  "agents",
  "calls",
  "phoneNumbers",
  "integrations",
  "knowledgeBases",
  "webhooks",
  "qaRules",
  "qaIssues",
  "testCases",
  "batchRuns",
  "testRuns",
  "mockToolData",
  "chats",
  "apiKeys",
];

/** Id and filter keys of each collection, and the indexes its list filters need. */
export const collectionOptions: { [K in CollectionName]: CollectionOptions<RecordTypes[K]> } = {
  agents: { idOf: (r) => r.agentId },
  calls: { idOf: (r) => r.callId, keys: { status: (r) => r.status }, indexes: [["status"]] },
  phoneNumbers: { idOf: (r) => r.sipPhoneNumber },
  integrations: { idOf: (r) => r.integrationId },
  knowledgeBases: { idOf: (r) => r.kbId },
  webhooks: {
    idOf: (r) => r.webhookId,
    keys: { active: (r) => r.active, agentId: (r) => r.agentId },
    indexes: [["active"], ["agentId", "active"]],
  },
  qaRules: { idOf: (r) => r.qaRuleId },
  qaIssues: { idOf: (r) => r.qaIssueId },
  testCases: { idOf: (r) => r.testCaseId },
  batchRuns: { idOf: (r) => r.batchId },
  testRuns: {
    idOf: (r) => r.jobId,
    keys: { batchId: (r) => r.batchId, agentId: (r) => r.agent.agentId },
    indexes: [["batchId"], ["agentId"], ["agentId", "batchId"]],
  },
  mockToolData: { idOf: (r) => r.mockToolDataId },
  chats: { idOf: (r) => r.id },
  apiKeys: { idOf: (r) => r.keyId },
};
