/** E1 listAgents: agents in creation order (x-assumption of listAgents). */
import type { HandlerTable } from "./context.js";
import { pageOf } from "../core/pagination.js";

export const agentHandlers: HandlerTable<"listAgents"> = {
  listAgents: ({ workspace, query }) => ({
    status: 200,
    body: pageOf(workspace.collections.agents, { order: "newest", page: query.page!, size: query.size! }),
  }),
};
