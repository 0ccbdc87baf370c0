/** E17 list webhooks: pagination, most recently created first, the `active` default and the agent filter. */
import { defineRules, type RuleContext } from "../lib/rule.js";
import { fetchPage, walk, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { listMatchesStore } from "./store-agreement.js";
import { webhookContractRule } from "../webhooks/contract-rule.js";

const cfg: ListConfig = {
  operationId: "listWebhooks", path: "/v1/webhooks", totalField: "totalCount", idOf: (w) => w.webhookId,
  emptyQuery: (f) => (f.idleAgentId ? { agentId: f.idleAgentId } : undefined),
};

/** Walks a filtered list, checks every item against `predicate`, and against the mock's store when there is one. */
async function checkFilter(t: RuleContext, query: Record<string, string | boolean>, predicate: (w: Record<string, any>) => boolean, what: string): Promise<number | undefined> {
  const result = await walk(t, cfg, query, 4, 20);
  if (!result) return undefined;
  const wrong = result.items.find((w) => !predicate(w));
  t.expect(!wrong, { pointer: "/data", expected: what, actual: wrong, message: `${new URLSearchParams(query as Record<string, string>)} lists only ${what}` });
  const store = await t.fixtures.control?.listRecords("webhooks");
  if (store && result.complete) t.expectEqual(result.total, store.filter(predicate).length, "/totalCount", `every webhook of the workspace that is ${what} is counted`);
  return result.total;
}

export const webhookRules = defineRules("webhooks", [
  ...paginationRules(cfg),
  orderRule(cfg, { direction: "newest-first", level: "documented", knownIds: (f) => f.known.webhooks?.filter((w) => w.active).map((w) => w.webhookId) }),
  listMatchesStore(cfg, { collection: "webhooks", idOf: (w) => w.webhookId, listed: (w) => w.active === true }),
  {
    id: "listWebhooks.active-filter", operationId: "listWebhooks", level: "documented", readOnly: true,
    description: "active defaults to true (enabled only); active=false lists the disabled ones only.",
    run: async (t) => {
      const byDefault = await checkFilter(t, {}, (w) => w.active === true, "active webhooks (the default)");
      const explicit = await checkFilter(t, { active: "true" }, (w) => w.active === true, "active webhooks");
      if (byDefault !== undefined && explicit !== undefined) t.expectEqual(byDefault, explicit, "/totalCount", "omitting active is the same as active=true");
      await checkFilter(t, { active: "false" }, (w) => w.active === false, "disabled webhooks");
    },
  },
  {
    id: "listWebhooks.agent-filter", operationId: "listWebhooks", level: "documented", readOnly: true,
    description: "agentId lists the webhooks of that agent only, with either active value.",
    run: async (t) => {
      const page = await fetchPage(t, cfg, { size: 1, active: false });
      const agentId = t.fixtures.agentId ?? page.data[0]?.agentId;
      if (!agentId) return t.skip("no agent known");
      for (const active of [true, false]) {
        await checkFilter(t, { agentId, active: String(active) }, (w) => w.agentId === agentId && w.active === active, `${active ? "active" : "disabled"} webhooks of agent ${agentId}`);
      }
    },
  },
  {
    id: "listWebhooks.invalid-active", operationId: "listWebhooks", level: "documented", readOnly: true,
    description: "active is a boolean: active=maybe answers 400.",
    run: async (t) => void t.expectStatus(await t.call("listWebhooks", { method: "GET", path: cfg.path, query: { active: "maybe" } }), 400),
  },
  webhookContractRule,
]);
