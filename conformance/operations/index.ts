/** Every rule of the suite, in the order they run: reads first, then writes, deletes last. */
import type { Rule } from "../lib/rule.js";
import { agentRules } from "./agents.js";
import { authRules } from "./auth.js";
import { callRules } from "./calls.js";
import { chatRules } from "./chat.js";
import { integrationRules } from "./integrations.js";
import { isolationRules } from "./isolation.js";
import { knowledgeBaseRules } from "./knowledge-bases.js";
import { phoneNumberRules } from "./phone-numbers.js";
import { qaRuleRules } from "./qa-rules.js";
import { simulationRules } from "./simulations.js";
import { webhookRules } from "./webhooks.js";

export const allRules: Rule[] = [
  ...agentRules,
  ...callRules,
  ...webhookRules,
  ...phoneNumberRules,
  ...simulationRules,
  ...integrationRules,
  ...knowledgeBaseRules,
  ...chatRules,
  ...qaRuleRules,
  ...isolationRules,
  ...authRules,
];

const ids = new Set<string>();
for (const rule of allRules) {
  if (ids.has(rule.id)) throw new Error(`duplicate rule id ${rule.id}`);
  ids.add(rule.id);
}
