/**
 * What the reference says is "not shown" and the kit still had to decide: each decision must be
 * written in the spec with `x-assumption` at the place it governs (a JSON pointer into generated/openapi.json).
 */
export type DecisionRow = [string, { given: string; want: RegExp }];

export const decisions: DecisionRow[] = [
  ["E5 response body (section 4, E5)", { given: "/paths/~1v1~1integrations~1{integrationId}~1auth/post", want: /respon/i }],
  ["E9 label of the name field", { given: "/components/schemas/KnowledgeBaseCreate/properties/name", want: /label|`name`/i }],
  ["E2 required-ness of the body fields", { given: "/components/schemas/IntegrationCreate", want: /required/i }],
  ["E7 required-ness of agentId", { given: "/components/parameters/BatchAgentId", want: /optional|required/i }],
  ["E8 required-ness of the batchId and agentId filters", { given: "/paths/~1v1~1test-runs/get", want: /batchId.*agentId|filter/i }],
  ["meaning of 403 (section 7)", { given: "/paths/~1v1~1integrations/post/responses/403", want: /403/ }],
  ["chat status values (E16)", { given: "/components/schemas/ChatCompletion/properties/status", want: /completed|value/i }],
  ["call status transitions (section 3)", { given: "/components/schemas/CallStatus", want: /->|transition/i }],
  ["signature header and signing scheme (section 6)", { given: "/webhooks/conversation_started/post", want: /signature/i }],
  ["webhook payload shape (section 6)", { given: "/components/schemas/WebhookEvent", want: /payload/i }],
  ["full list of event kinds (section 6)", { given: "/components/schemas/WebhookEventKind", want: /conversation_started/ }],
  ["maximum page size (section 8)", { given: "/components/parameters/Size", want: /maximum/i }],
  ["knowledge base source type values", { given: "/components/schemas/KnowledgeBaseSource/properties/type", want: /values/i }],
  ["provider brand placeholders", { given: "/components/schemas/Provider", want: /carrier_a/ }],
  ["format of the webhook events string", { given: "/components/schemas/Webhook/properties/events", want: /separated|string/i }],
  ["default llmModel (omitted brand name)", { given: "/components/schemas/AgentSettings/properties/llmModel", want: /default/i }],
  ["default voiceId", { given: "/components/schemas/AgentSettings/properties/voiceId", want: /default/i }],
  ["default voiceModelId", { given: "/components/schemas/AgentSettings/properties/voiceModelId", want: /default/i }],
];
