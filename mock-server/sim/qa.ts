/**
 * QA evaluation (2.12): when a conversation ends, every QA rule that applies to the agent yields a
 * QA issue, Success when the evaluation equals the rule's expectedValue, Fail otherwise. A deleted
 * rule is gone from the store, so it yields nothing afterwards.
 */
import type { Workspace } from "../store/workspace.js";
import type { Random } from "../core/random.js";

export function evaluateConversation(
  workspace: Workspace,
  agentId: string,
  conversationId: string,
  at: string,
  random: Random,
): number {
  let created = 0;
  for (const rule of workspace.collections.qaRules.all()) {
    if (!rule.agents.some((a) => a.agentId === agentId)) continue;
    const result = random.chance(0.75) ? rule.expectedValue : !rule.expectedValue;
    workspace.collections.qaIssues.create({
      qaIssueId: workspace.random.uuid(),
      workspaceId: workspace.workspaceId,
      qaRuleId: rule.qaRuleId,
      ruleName: rule.ruleName,
      agentId,
      conversationId,
      status: result === rule.expectedValue ? "Success" : "Fail",
      createdAt: at,
    });
    created++;
  }
  return created;
}
