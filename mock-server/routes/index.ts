/**
 * The hand-written handlers, by operationId: one table per resource group. An operation of the spec
 * that has none here is served by the generic layer (mock-server/generic/), from the document alone;
 * `npm run scaffold -- OPERATION_ID` starts a handler when the generic answer is not enough.
 */
import type { Handler } from "./context.js";
import type { OperationId } from "../core/operations.js";
import { agentHandlers } from "./agents.js";
import { callHandlers } from "./calls.js";
import { chatHandlers } from "./chat.js";
import { integrationHandlers } from "./integrations.js";
import { knowledgeBaseHandlers } from "./knowledge-bases.js";
import { phoneNumberHandlers } from "./phone-numbers.js";
import { qaRuleHandlers } from "./qa-rules.js";
import { simulationHandlers } from "./simulations.js";
import { webhookHandlers } from "./webhooks.js";

export const handlers: { [K in OperationId]?: Handler<K> } = {
  ...agentHandlers,
  ...integrationHandlers,
  ...simulationHandlers,
  ...knowledgeBaseHandlers,
  ...callHandlers,
  ...qaRuleHandlers,
  ...phoneNumberHandlers,
  ...chatHandlers,
  ...webhookHandlers,
};
