/**
 * One /__mock control request in the core: who is asking (control/access.ts: 401 before anything
 * else), its body and parameters checked against spec/mock-control.yaml (400; 404 for a path naming
 * nothing, or another workspace for a key), the route's handler run as the store's transactions
 * (control/router.ts), and its reply as JSON, Prometheus text or an event stream.
 */
import type { ControlAccess } from "../control/access.js";
import type { ControlRoute } from "../control/router.js";
import { controlInput, controlReplyDrift } from "../core/control-operations.js";
import type { BodyReader, CoreReply } from "../core/exchange.js";
import type { Exchange } from "./exchange-record.js";
import { jsonReply, parseQuery, readControlBody } from "./request-parts.js";
import type { InFront } from "./upstream-step.js";

export interface ControlStep {
  access: ControlAccess;
  /** In front of an upstream: its findings are settled before the control plane reads them. */
  upstream?: Pick<InFront, "drift">;
  /** When replies are validated: turns an off-spec reply into the core's loud 500. */
  refuseDrift?: (operationId: string, drift: string | undefined) => void;
}

export async function serveControl(
  step: ControlStep,
  exchange: Exchange,
  route: ControlRoute,
  params: Record<string, string>,
  readBody: BodyReader,
): Promise<CoreReply> {
  const { head } = exchange;
  // Who is asking first (401), as the API checks its key before the request.
  const caller = await step.access.callerOf(route.operationId, head.headers);
  if (caller.scope !== undefined) exchange.workspace = caller.workspace;
  // What the upstream door checks and records after its answers is there for the control plane to read.
  await step.upstream?.drift.settled();
  const body = await readControlBody(head, readBody);
  // Checked against spec/mock-control.yaml (400; 404 for a path naming nothing) before the handler runs.
  const input = step.access.scope(
    route.operationId,
    controlInput(route.operation, { path: params, query: parseQuery(exchange.query), body }, route.check),
    caller,
  );
  // Each route runs its work as the store's transactions (control/router.ts).
  const reply = await route.handle(input);
  if (reply.events)
    return {
      status: 200,
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        // nginx and its kin buffer responses unless told not to: events would arrive in lumps.
        "X-Accel-Buffering": "no",
      },
      events: reply.events,
    };
  if (reply.text)
    return { status: reply.status, headers: { "Content-Type": reply.text.contentType }, body: reply.text.body };
  step.refuseDrift?.(route.operationId, controlReplyDrift(route.operation, reply));
  return jsonReply(reply);
}
