/** E10-E11: calls, most recently created first, optionally by status. */
import type { HandlerTable } from "./context.js";
import { pageOf } from "../core/pagination.js";

export const callHandlers: HandlerTable<"listCalls" | "getCall"> = {
  listCalls: ({ workspace, query }) => ({
    status: 200,
    body: pageOf(workspace.collections.calls, {
      where: { status: query.status },
      order: "newest",
      page: query.page!,
      size: query.size!,
    }),
  }),

  getCall: ({ workspace, params }) => ({
    status: 200,
    body: workspace.collections.calls.require(params.callId, "Call"),
  }),
};
