/** E17 list webhooks: pagination, most recently created first, the `active` default and the agent filter. */
import { defineRules, type RuleContext } from "../lib/rule.js";
import { agentsList } from "./agents.js";
import { checkFilter, listOf, walk, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { listMatchesStore } from "./store-agreement.js";
import { webhookContractRule } from "../webhooks/contract-rule.js";

const cfg: ListConfig = {
  ...listOf("listWebhooks"),
  path: "/v1/webhooks",
  idOf: (w) => w.webhookId,
  emptyQuery: (f) => (f.idleAgentId ? { agentId: f.idleAgentId } : undefined),
};

/** The three values of `active` a client can send: absent (the default, true), true and false. */
const ACTIVE = [
  { query: {}, active: true, what: "enabled (active absent: the default)" },
  { query: { active: "true" }, active: true, what: "enabled" },
  { query: { active: "false" }, active: false, what: "disabled" },
] as const;

/** Both halves of the list (E17 shows one value of `active` at a time), in list order; bounded on a foreign target. */
async function bothHalves(
  t: RuleContext,
): Promise<{ enabled?: string[]; disabled?: string[]; items: Record<string, any>[] }> {
  const enabled = await walk(t, cfg, {}, 10, 20);
  const disabled = await walk(t, cfg, { active: "false" }, 10, 20);
  return {
    enabled: enabled?.items.map(cfg.idOf),
    disabled: disabled?.items.map(cfg.idOf),
    items: [...(enabled?.items ?? []), ...(disabled?.items ?? [])],
  };
}

/** Event kinds of the list's `events` string, read as the kit writes it (comma-separated, an x-assumption). */
const kindsOf = (events: unknown) =>
  typeof events === "string"
    ? events
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean)
    : [];

export const webhookRules = defineRules("webhooks", [
  ...paginationRules(cfg),
  orderRule(cfg, {
    knownIds: (f) => f.known.webhooks?.filter((w) => w.active).map((w) => w.webhookId),
  }),
  listMatchesStore(cfg, { collection: "webhooks", idOf: (w) => w.webhookId, listed: (w) => w.active === true }),
  {
    id: "listWebhooks.active-filter",
    operationId: "listWebhooks",
    level: "documented",
    readOnly: true,
    description:
      "active defaults to true (enabled only); active=false lists the disabled ones only; each walked over several pages, newest first.",
    run: async (t) => {
      const halves = await bothHalves(t);
      const stored = await t.fixtures.control?.listRecords("webhooks");
      const totals = [];
      for (const { query, active, what } of ACTIVE) {
        const result = await checkFilter(t, cfg, query, (w) => w.active === active, `${what} webhooks`, {
          unfiltered: active ? halves.enabled : halves.disabled,
          stored,
        });
        totals.push(result?.total);
      }
      if (totals[0] !== undefined && totals[1] !== undefined)
        t.expectEqual(totals[0], totals[1], "/totalCount", "omitting active is the same as active=true");
    },
  },
  {
    id: "listWebhooks.agent-filter",
    operationId: "listWebhooks",
    level: "documented",
    readOnly: true,
    description:
      "agentId lists the webhooks of that agent only, with active absent, true and false, for each agent that has webhooks; each walked over several pages, newest first.",
    run: async (t) => {
      const halves = await bothHalves(t);
      // The fixtures' agents first, then agents seen in the list (a foreign target), at most three.
      const agents = [
        ...new Set(
          [t.fixtures.agentId, t.fixtures.otherAgentId, ...halves.items.map((w) => w.agentId)].filter(
            (a): a is string => typeof a === "string",
          ),
        ),
      ].slice(0, 3);
      if (agents.length === 0) return t.skip("no agent known and the target lists no webhook");
      const stored = await t.fixtures.control?.listRecords("webhooks");
      for (const agentId of agents) {
        for (const { query, active, what } of ACTIVE) {
          await checkFilter(
            t,
            cfg,
            { agentId, ...query },
            (w) => w.agentId === agentId && w.active === active,
            `${what} webhooks of agent ${agentId}`,
            { unfiltered: active ? halves.enabled : halves.disabled, stored },
          );
        }
      }
    },
  },
  {
    id: "listWebhooks.events-whole",
    operationId: "listWebhooks",
    level: "documented",
    readOnly: true,
    description:
      "A webhook subscribed to several event kinds shows them all: E17's events string names every kind E1's agent settings list for the same webhook (2.3.1, 2.13); the string is those kinds comma-separated, in the same order (assumption).",
    run: async (t) => {
      const hooks = new Map((await bothHalves(t)).items.map((w) => [w.webhookId, w]));
      const agents = await walk(t, agentsList, {}, 10, 20);
      let compared = 0;
      for (const page of agents?.pages ?? []) {
        page.data.forEach((agent, i) =>
          (agent.agentSettings?.webhooks ?? []).forEach((inSettings: Record<string, any>, j: number) => {
            const listed = hooks.get(inSettings.webhookId);
            if (!listed || !Array.isArray(inSettings.events)) return;
            compared++;
            const pointer = `/data/${i}/agentSettings/webhooks/${j}/events`;
            const missing = inSettings.events.filter(
              (kind: unknown) => typeof kind !== "string" || !String(listed.events).includes(kind),
            );
            t.expect(missing.length === 0, {
              pointer,
              expected: `kinds named in E17's events ${JSON.stringify(listed.events)}`,
              actual: inSettings.events,
              message: `webhook ${inSettings.webhookId}: E1 and E17 name the same event kinds (missing from E17: ${missing.join(", ")})`,
              exchange: page.exchange,
            });
            t.expectEqual(
              kindsOf(listed.events),
              inSettings.events,
              pointer,
              `webhook ${inSettings.webhookId}: E17's events is E1's array comma-separated, in order (assumption)`,
              { exchange: page.exchange, assumed: true },
            );
          }),
        );
      }
      if (compared === 0) return t.skip("no webhook both listed by E17 and shown in an agent's settings by E1");
      // Kit's mock: the fixtures subscribe webhooks to several kinds, so the check above saw more than one kind at once.
      if (t.fixtures.control)
        t.expect(
          [...hooks.values()].some((w) => kindsOf(w.events).length > 1),
          {
            pointer: "/data",
            expected: "a webhook with several event kinds",
            actual: "none",
            message: "the fixtures' webhooks with several event kinds are listed",
          },
        );
    },
  },
  {
    id: "listWebhooks.invalid-active",
    operationId: "listWebhooks",
    level: "documented",
    readOnly: true,
    description: "active is a boolean: active=maybe answers 400.",
    run: async (t) =>
      void t.expectStatus(
        await t.call("listWebhooks", { method: "GET", path: cfg.path, query: { active: "maybe" } }),
        400,
      ),
  },
  webhookContractRule,
]);
export { cfg as webhooksList };
