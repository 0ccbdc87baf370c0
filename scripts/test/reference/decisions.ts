/**
 * What the reference says is "not shown", or leaves unsaid, and the kit still had to decide: each decision
 * must be written in the spec with `x-assumption` at the place it governs (a JSON pointer into
 * generated/openapi.json), and the marker must be about that decision.
 */
export type DecisionRow = [string, { given: string; want: RegExp }];

const op = (path: string, method: string) => `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`;
const schema = (name: string, property?: string) =>
  `/components/schemas/${name}${property ? `/properties/${property}` : ""}`;
const e9Encoding = (field: string) =>
  `${op("/v1/knowledge-bases", "post")}/requestBody/content/multipart~1form-data/encoding/${field}`;

export const decisions: DecisionRow[] = [
  // Section 4: operations.
  ["E1 order of the agent list", { given: op("/v1/agents", "get"), want: /most recently created first/i }],
  [
    "E14 order of the phone number list",
    { given: op("/v1/phone-number", "get"), want: /most recently created first/i },
  ],
  ["E2 required-ness of the body fields", { given: schema("IntegrationCreate"), want: /required/i }],
  ["E2 name length", { given: schema("IntegrationCreate", "name"), want: /255/ }],
  ["E2 description length", { given: schema("IntegrationCreate", "description"), want: /2000/ }],
  ["E5 response body (section 4, E5)", { given: op("/v1/integrations/{integrationId}/auth", "post"), want: /respon/i }],
  ["E5 apiKey fields all required", { given: schema("ApiKeyAuthCreate", "apiKey"), want: /required/i }],
  ["E5 a token is not empty", { given: schema("BearerAuthCreate", "token"), want: /empty/i }],
  ["E5 a username is not empty", { given: schema("BasicAuthCreate", "username"), want: /empty/i }],
  ["E5 a password is not empty", { given: schema("BasicAuthCreate", "password"), want: /empty/i }],
  ["E5 a header name is not empty", { given: schema("KeyValue", "key"), want: /empty/i }],
  ["E7 required-ness of agentId", { given: "/components/parameters/BatchAgentId", want: /optional|required/i }],
  [
    "E8 required-ness of the batchId and agentId filters",
    { given: op("/v1/test-runs", "get"), want: /batchId.*agentId|filter/i },
  ],
  ["E9 label of the name field", { given: schema("KnowledgeBaseCreate", "name"), want: /label|`name`/i }],
  ["E9 part type of knowledge_base_texts", { given: e9Encoding("knowledge_base_texts"), want: /curl -F/ }],
  ["E9 part type of knowledge_base_urls", { given: e9Encoding("knowledge_base_urls"), want: /curl -F/ }],
  ["E9 part type of files", { given: e9Encoding("knowledge_base_files"), want: /extension and its content/i }],
  ["E15 no length bounds", { given: schema("PhoneNumberUpdate"), want: /no length bounds/i }],
  ["E16 what a conversation is", { given: op("/v1/chat", "post"), want: /resends the history/i }],
  ["E16 conversation length", { given: schema("ChatCreate", "conversation"), want: /100000/ }],
  ["chat status values (E16)", { given: schema("ChatCompletion", "status"), want: /completed|value/i }],
  // Section 2: resources.
  ["record rule: every field present, null when it has no value", { given: "/info", want: /null/i }],
  ["default llmModel withheld (a brand name)", { given: schema("AgentSettings", "llmModel"), want: /default/i }],
  ["default voiceId withheld", { given: schema("AgentSettings", "voiceId"), want: /default/i }],
  ["default voiceModelId withheld", { given: schema("AgentSettings", "voiceModelId"), want: /default/i }],
  ["remindersLimit is not negative", { given: schema("AgentSettings", "remindersLimit"), want: /0 disables/i }],
  ["insight dataType values", { given: schema("PostConversationInsight", "dataType"), want: /guess/i }],
  ["voice calls carry a transcript too", { given: schema("Call", "transcript"), want: /voice calls/i }],
  ["only outbound calls belong to a campaign", { given: schema("Call", "campaign"), want: /outbound/i }],
  ["test cases of a batch run carry mockToolData", { given: schema("TestCase", "mockToolData"), want: /batch run/i }],
  ["knowledge base source type values", { given: schema("KnowledgeBaseSource", "type"), want: /text.*url.*file/i }],
  ["provider brand placeholders", { given: schema("Provider"), want: /carrier_a/ }],
  ["format of the webhook events string", { given: schema("Webhook", "events"), want: /separated|string/i }],
  ["call status transitions (section 3)", { given: schema("CallStatus"), want: /->|transition/i }],
  // Sections 5 to 8.
  [
    "meaning of 403 on a write (section 7)",
    { given: `${op("/v1/integrations", "post")}/responses/403`, want: /read-only key/ },
  ],
  [
    "meaning of 403 on a read (section 7)",
    { given: `${op("/v1/calls/{callId}", "get")}/responses/403`, want: /forced/ },
  ],
  [
    "meaning of 404 on a get (section 7)",
    { given: `${op("/v1/calls/{callId}", "get")}/responses/404`, want: /another workspace/ },
  ],
  [
    "meaning of 404 on a list (section 7)",
    { given: `${op("/v1/agents", "get")}/responses/404`, want: /nothing to miss/i },
  ],
  [
    "keys belong to a workspace (section 5.5: scopes not shown)",
    { given: "/components/securitySchemes/ApiKeyAuth", want: /workspace/i },
  ],
  [
    "when conversation_started is sent (section 6)",
    { given: "/webhooks/conversation_started/post", want: /call that connects/i },
  ],
  [
    "the conversation_ended event kind (section 6.3)",
    { given: "/webhooks/conversation_ended/post", want: /event kinds/i },
  ],
  [
    "signature header and signing scheme (section 6.5)",
    { given: "/components/parameters/WebhookSignature", want: /HMAC-SHA256/ },
  ],
  ["the X-Webhook-Id delivery header", { given: "/components/parameters/WebhookIdHeader", want: /header/i }],
  ["the X-Webhook-Event delivery header", { given: "/components/parameters/WebhookEventHeader", want: /header/i }],
  [
    "acknowledgement, retries and timeouts (section 6.6)",
    { given: "/components/responses/WebhookAcknowledged", want: /2xx.*retried/i },
  ],
  ["webhook payload shape (section 6.4)", { given: schema("WebhookEvent"), want: /payload/i }],
  ["full list of event kinds (section 6.3)", { given: schema("WebhookEventKind"), want: /conversation_started/ }],
  ["maximum page size (section 8)", { given: "/components/parameters/Size", want: /maximum/i }],
];
