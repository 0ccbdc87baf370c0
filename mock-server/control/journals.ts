/** Control plane, journals: recent requests (filtered, counted, cleared) and the webhook outbox. */
import type { JournalFilter } from "../store/journal.js";
import { queryInteger, queryOf } from "./body.js";
import type { ControlRoute, ControlServices } from "./types.js";

const FILTERS = ["operationId", "workspaceId", "method", "status", "limit"];

function filterOf(query: URLSearchParams, capacity: number): JournalFilter {
  const q = queryOf(query, FILTERS);
  return {
    operationId: q.operationId,
    workspaceId: q.workspaceId,
    method: q.method?.toUpperCase(),
    status: queryInteger(q.status, "status", 100, 599),
    limit: queryInteger(q.limit, "limit", 1, Math.max(1, capacity)),
  };
}

export function journalRoutes({ journal, webhooks, workspaces }: ControlServices): ControlRoute[] {
  return [
    {
      operationId: "listRequests",
      method: "GET",
      path: "/requests",
      handle: async ({ query }) => ({ status: 200, body: await journal.list(filterOf(query, journal.capacity)) }),
    },
    {
      operationId: "countRequests",
      method: "GET",
      path: "/requests/count",
      handle: async ({ query }) => ({
        status: 200,
        body: { count: await journal.count(filterOf(query, journal.capacity)) },
      }),
    },
    {
      operationId: "clearRequests",
      method: "DELETE",
      path: "/requests",
      handle: async () => {
        await journal.clear();
        return { status: 204 };
      },
    },
    {
      operationId: "listWebhookDeliveries",
      method: "GET",
      path: "/webhook-deliveries",
      handle: () => ({ status: 200, body: webhooks.list(workspaces.list()) }),
    },
  ];
}
