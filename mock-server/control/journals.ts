/**
 * Control plane, journals: recent requests (filtered, counted, cleared, exported as HAR), the webhook
 * outbox, and the upstream door's drift findings.
 */
import { invalid } from "../core/errors.js";
import type { ControlQuery } from "../core/control-operations.js";
import type { JournalFilter } from "../store/journal.js";
import { harOf } from "./har.js";
import { withVerification } from "../webhooks/verification.js";
import type { ControlHandlers, ControlServices } from "./types.js";

function filterOf(query: ControlQuery<"listRequests" | "exportHar">, capacity: number): JournalFilter {
  // The journal's size is a setting of the run (--journal-size), which the spec cannot know.
  const most = Math.max(1, capacity);
  if (query.limit !== undefined && query.limit > most)
    throw invalid({ limit: `must be at most ${most}, the requests the journal keeps` });
  return { ...query, method: query.method?.toUpperCase() };
}

export function journalHandlers({
  journal,
  webhooks,
  workspaces,
  drift,
}: ControlServices): ControlHandlers<
  "listRequests" | "countRequests" | "clearRequests" | "exportHar" | "listWebhookDeliveries" | "listDriftFindings"
> {
  return {
    listDriftFindings: {
      handle: ({ query }) => ({
        status: 200,
        body: drift.list({ ...query, method: query.method?.toUpperCase() }),
      }),
    },
    listRequests: {
      handle: async ({ query }) => ({ status: 200, body: await journal.list(filterOf(query, journal.capacity)) }),
    },
    countRequests: {
      handle: async ({ query }) => ({
        status: 200,
        body: { count: await journal.count(filterOf(query, journal.capacity)) },
      }),
    },
    exportHar: {
      handle: async ({ query }) => {
        const { limit, ...filter } = filterOf(query, journal.capacity);
        // The limit counts /v1 exchanges only: the control plane's own requests are not in a HAR.
        return { status: 200, body: await harOf(await journal.exchanges(filter), limit) };
      },
    },
    clearRequests: {
      handle: async ({ scope }) => {
        await journal.clear(scope);
        return { status: 204 };
      },
    },
    listWebhookDeliveries: {
      handle: async ({ scope }) => {
        const deliveries = webhooks.list(
          workspaces.list().filter((w) => scope === undefined || w.workspaceId === scope),
        );
        return {
          status: 200,
          body: await Promise.all(deliveries.map((d) => withVerification(d, workspaces.get(d.workspaceId)))),
        };
      },
    },
  };
}
