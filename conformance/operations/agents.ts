/** E1 list agents: the pagination wrapper of 2.1 over agents of 2.3. */
import { defineRules } from "../lib/rule.js";
import { listOf, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { listMatchesStore } from "./store-agreement.js";

export const agentsList: ListConfig = {
  ...listOf("listAgents"),
  path: "/v1/agents",
  idOf: (a) => a.agentId,
};

export const agentRules = defineRules("agents", [
  ...paginationRules(agentsList),
  orderRule(agentsList, { knownIds: (f) => f.known.agents }),
  listMatchesStore(agentsList, { collection: "agents", idOf: (a) => a.agentId }),
]);
