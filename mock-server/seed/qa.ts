/**
 * QA rules (2.12) and QA issues (fields not shown by the reference; the kit's shape in records.ts).
 * Rules are phrased as yes/no questions so `expectedValue` reads naturally: the answer a good
 * conversation gives. An issue records one rule's verdict on one conversation of one of its agents.
 */
import type { AgentReference, QaIssue, QaRule } from "../store/records.js";
import {
  agentReference,
  agentsOf,
  clampPast,
  iso,
  parseTime,
  referenceTo,
  MINUTE,
  type BuildContext,
} from "./context.js";

const RULES: { ruleName: string; ruleDescription: string; evaluationCriteria: string; expectedValue: boolean }[] = [
  {
    ruleName: "Identity verified",
    ruleDescription: "Account details are only shared after the caller's identity is confirmed.",
    evaluationCriteria:
      "Did the agent verify the caller's identity (name plus date of birth or postcode) before sharing account details?",
    expectedValue: true,
  },
  {
    ruleName: "No unauthorised refunds",
    ruleDescription: "Agents may not promise refunds; only the billing team can approve them.",
    evaluationCriteria: "Did the agent promise or confirm a refund?",
    expectedValue: false,
  },
  {
    ruleName: "Recap before closing",
    ruleDescription: "Every call ends with a short recap of what was agreed.",
    evaluationCriteria: "Did the agent summarise the outcome and next steps before ending the conversation?",
    expectedValue: true,
  },
  {
    ruleName: "Polite escalation",
    ruleDescription: "Frustrated customers are offered a human.",
    evaluationCriteria: "When the customer expressed frustration, did the agent offer a transfer to a human?",
    expectedValue: true,
  },
  {
    ruleName: "No medical advice",
    ruleDescription: "The agent schedules appointments but never gives medical advice.",
    evaluationCriteria: "Did the agent give any medical advice or diagnosis?",
    expectedValue: false,
  },
];

export function buildQaRule(ctx: BuildContext, partial: Partial<QaRule> = {}): QaRule {
  const { faker, workspace } = ctx;
  const template = faker.helpers.arrayElement(RULES);
  const agents = agentsOf(ctx);
  const refs =
    partial.agents?.map((a) => agentReference(ctx, a)) ??
    (agents.length > 0
      ? faker.helpers.arrayElements(agents, { min: 1, max: Math.min(3, agents.length) }).map(referenceTo)
      : [agentReference(ctx)]);
  return {
    qaRuleId: partial.qaRuleId ?? faker.string.uuid(),
    workspaceId: workspace.workspaceId,
    ruleName: partial.ruleName ?? template.ruleName,
    ruleDescription: partial.ruleDescription ?? template.ruleDescription,
    agents: refs,
    evaluationCriteria: partial.evaluationCriteria ?? template.evaluationCriteria,
    expectedValue: partial.expectedValue ?? template.expectedValue,
  };
}

/** Names and rubrics of the seeded rules, in a fixed order (the seed takes them one by one). */
export const QA_RULE_TEMPLATES = RULES;

/**
 * A verdict of an existing rule (when there is one) on a finished call of one of the rule's agents
 * (when there is one), dated a few minutes after that call ended. A fill creates the rule and the
 * call when the workspace has none that fit.
 */
export function buildQaIssue(ctx: BuildContext, partial: Partial<QaIssue> = {}): QaIssue {
  const { faker, workspace } = ctx;
  const rule = partial.qaRuleId ? workspace.collections.qaRules.get(partial.qaRuleId) : ruleFor(ctx, partial.agentId);
  const agentId =
    partial.agentId ??
    (rule && rule.agents.length > 0 ? faker.helpers.arrayElement(rule.agents).agentId : agentReference(ctx).agentId);
  const conversation = partial.conversationId
    ? workspace.collections.calls.get(partial.conversationId)
    : (lastFinishedCallOf(ctx, agentId) ??
      ctx.createMissing?.("calls", { status: "ended", agent: { agentId } as AgentReference }));
  const endedMs = parseTime(conversation?.endTime);
  const createdMs =
    parseTime(partial.createdAt) ??
    (endedMs !== undefined
      ? clampPast(ctx, endedMs + faker.number.int({ min: MINUTE, max: 10 * MINUTE }), endedMs)
      : ctx.now.getTime());
  return {
    qaIssueId: partial.qaIssueId ?? faker.string.uuid(),
    workspaceId: workspace.workspaceId,
    qaRuleId: partial.qaRuleId ?? rule?.qaRuleId ?? faker.string.uuid(),
    ruleName: rule?.ruleName ?? partial.ruleName ?? faker.helpers.arrayElement(RULES).ruleName,
    agentId,
    conversationId: partial.conversationId ?? conversation?.callId ?? faker.string.uuid(),
    status: partial.status ?? (faker.datatype.boolean(0.6) ? "Success" : "Fail"),
    createdAt: iso(createdMs),
  };
}

/** A rule for an issue given no rule: any rule, or for a fill one that applies to the given agent (created if none does). */
function ruleFor(ctx: BuildContext, agentId: string | undefined): QaRule | undefined {
  const rules = ctx.workspace.collections.qaRules.all();
  if (!ctx.createMissing) return rules.length > 0 ? ctx.faker.helpers.arrayElement(rules) : undefined;
  const fitting = agentId ? rules.filter((r) => r.agents.some((a) => a.agentId === agentId)) : rules;
  if (fitting.length > 0) return ctx.faker.helpers.arrayElement(fitting);
  return ctx.createMissing("qaRules", agentId ? { agents: [{ agentId } as AgentReference] } : {});
}

function lastFinishedCallOf(ctx: BuildContext, agentId: string) {
  const calls = ctx.workspace.collections.calls.all();
  for (let i = calls.length - 1; i >= 0; i--) {
    if (calls[i].agent.agentId === agentId && calls[i].endTime) return calls[i];
  }
  return undefined;
}
