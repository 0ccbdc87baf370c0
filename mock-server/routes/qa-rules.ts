/** E12-E13: QA rules. Delete is permanent; the rule no longer yields QA issues. */
import type { HandlerTable } from "./context.js";

export const qaRuleHandlers: HandlerTable<"getQaRule" | "deleteQaRule"> = {
  getQaRule: ({ workspace, params }) => ({
    status: 200,
    body: workspace.collections.qaRules.require(params.qaRuleId, "QA rule"),
  }),

  deleteQaRule: ({ workspace, params }) => {
    workspace.collections.qaRules.require(params.qaRuleId, "QA rule");
    workspace.collections.qaRules.delete(params.qaRuleId);
    return { status: 204 };
  },
};
