/**
 * Control plane, what the dashboard reads besides the journals: the live event stream, the API's
 * operations (for its fault picker), one request in detail, and a webhook redelivery. And the one place
 * that tells the event stream what a control operation changed (`announce`, called by router.ts after
 * the operation succeeded, so a refused or undone change is never announced).
 */
import { ApiError } from "../core/errors.js";
import type { ControlInput, ControlOperationId, ControlReply } from "../core/control-operations.js";
import type { MockEvents } from "../core/events.js";
import { harOf } from "./har.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { format } from "../store/journal.js";

/** The stream and the redelivery: each runs its own transactions (a stream none, a redelivery its attempt's). */
export function liveHandlers({
  events,
  workspaces,
  webhooks,
}: ControlServices): ControlHandlers<"streamEvents" | "redeliverWebhook"> {
  return {
    streamEvents: {
      // A workspace's key hears its own workspace only, not the mock-wide events (other callers' control requests).
      handle: ({ query, scope }) => ({
        status: 200,
        events: events.subscribe({ workspaceId: query.workspaceId, ...(scope !== undefined && { exclusive: true }) }),
      }),
    },

    redeliverWebhook: {
      handle: async ({ params: { deliveryId }, scope }) => {
        const workspace = await workspaces
          .catchUp()
          .then(() =>
            workspaces.list().find((w) => (scope === undefined || w.workspaceId === scope) && w.outbox.get(deliveryId)),
          );
        const outcome = workspace && (await webhooks.redeliver(workspace, deliveryId));
        if (outcome === undefined) throw new ApiError(404, `Webhook delivery not found: ${deliveryId}`);
        if (typeof outcome === "string") throw new ApiError(409, `Cannot redeliver: ${outcome}`);
        return { status: 200, body: outcome };
      },
    },
  };
}

/** Reads for the dashboard: router.ts makes each one control-plane transaction, as the journals'. */
export function detailHandlers({
  contract,
  journal,
  faults,
  drift,
}: ControlServices): ControlHandlers<"listOperations" | "getRequest"> {
  return {
    listOperations: {
      handle: () => {
        const paths = (contract().document as { paths: Record<string, Record<string, { summary?: string }>> }).paths;
        return {
          status: 200,
          body: contract().operations.map((op) => ({
            operationId: op.operationId,
            method: op.method.toUpperCase(),
            path: op.path,
            tag: op.tags[0] ?? null,
            summary: paths[op.path]?.[op.method]?.summary ?? null,
            statuses: [...op.responses.keys()].sort((a, b) => a - b),
          })),
        };
      },
    },

    getRequest: {
      handle: async ({ params: { requestId }, scope }) => {
        const recorded = (await journal.exchanges(scope === undefined ? {} : { workspaceId: scope })).find(
          (r) => String(r.seq) === requestId,
        );
        if (!recorded)
          throw new ApiError(
            404,
            `No journaled request ${requestId} (the journal keeps the newest ${journal.capacity})`,
          );
        const har = recorded.exchange ? (await harOf([recorded])).log.entries[0] : undefined;
        const requestIdHeader = har?.response.headers.find((h) => h.name.toLowerCase() === "x-request-id")?.value;
        return {
          status: 200,
          body: {
            ...format(recorded),
            ...(har && { har }),
            fault: (recorded.faultId && faults.list().find((rule) => rule.faultId === recorded.faultId)) || null,
            // The upstream door checks an exchange after answering it: its findings carry the answer's X-Request-Id.
            drift:
              requestIdHeader === undefined
                ? []
                : drift.list().filter((finding) => {
                    const headers = finding.exchange.response?.headers ?? {};
                    return Object.entries(headers).some(
                      ([name, value]) => name.toLowerCase() === "x-request-id" && value === requestIdHeader,
                    );
                  }),
          },
        };
      },
    },
  };
}

type Announced = { [K in ControlOperationId]?: (input: ControlInput<K>, reply: ControlReply<K>) => void };

/** What each control operation that changes something tells the event stream, once it succeeded. */
export function announcer(
  events: MockEvents,
): (operationId: ControlOperationId, input: ControlInput, reply: ControlReply) => void {
  const workspace = (change: string, workspaceId: string | null) =>
    events.publish("workspace", workspaceId, { change, ...(workspaceId !== null && { workspaceId }) });
  const fault = (change: string, workspaceId: string | null, faultId?: string) =>
    events.publish("fault", workspaceId, { change, ...(faultId && { faultId }) });
  const announced: Announced = {
    createFault: (_, reply) => {
      const rule = reply.body as { faultId: string; workspaceId?: string };
      fault("created", rule.workspaceId ?? null, rule.faultId);
    },
    deleteFault: ({ params }) => fault("deleted", null, params.faultId),
    clearFaults: () => fault("cleared", null),
    advanceClock: ({ body }, reply) =>
      events.publish("clock", body.workspaceId ?? null, {
        workspaceId: body.workspaceId ?? null,
        now: (reply.body as { now: string }).now,
      }),
    createWorkspace: (_, reply) => {
      const { workspaceId } = reply.body as { workspaceId: string };
      workspace("created", workspaceId);
    },
    resetWorkspace: ({ params }) => workspace("reset", params.workspaceId),
    deleteWorkspace: ({ params }) => workspace("deleted", params.workspaceId),
    importSnapshot: ({ params }) => workspace("imported", params.workspaceId),
    createRecord: ({ params }) => workspace("records", params.workspaceId),
    resetMock: () => workspace("reset", null),
  };
  return (operationId, input, reply) => {
    if (!events.active) return;
    (announced[operationId] as ((input: ControlInput, reply: ControlReply) => void) | undefined)?.(input, reply);
  };
}
