/** E17: webhooks, most recently created first; `active` defaults to true (enabled only). */
import type { HandlerTable } from "./context.js";
import { pageOf } from "../core/pagination.js";

export const webhookHandlers: HandlerTable<"listWebhooks"> = {
  listWebhooks: ({ workspace, query }) => ({
    status: 200,
    body: pageOf(workspace.collections.webhooks, {
      where: { agentId: query.agentId, active: query.active! },
      order: "newest",
      page: query.page!,
      size: query.size!,
    }),
  }),
};
