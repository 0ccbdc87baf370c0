/** What a control-plane route is and what it works on (the routes of each group are in their own files). */
import type { FaultRules } from "../core/faults.js";
import type { Reply, Services } from "../routes/context.js";
import type { RequestJournal } from "../store/journal.js";

export interface ControlRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when none (or no JSON) was sent. */
  body: unknown;
}

export interface ControlRoute {
  /** Its operationId in spec/mock-control.yaml: the journal and the request log name it. */
  operationId: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /__mock: `/workspaces/{workspaceId}`. */
  path: string;
  /** Runs the route, as transactions of the store (router.ts makes most routes one: Store.control). */
  handle(request: ControlRequest): Reply | Promise<Reply>;
}

/** What the control plane works on: the mock's services, and the core's journal and fault rules. */
export interface ControlServices extends Services {
  journal: RequestJournal;
  faults: FaultRules;
}
