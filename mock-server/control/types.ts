/**
 * What a control-plane handler is and what it works on (the handlers of each group are in their own
 * files). Methods, paths and validators are the spec's (core/control-operations.ts): a handler is
 * keyed by its operationId in spec/mock-control.yaml and gets the request valid and typed.
 */
import type {
  ControlInput,
  ControlOperation,
  ControlOperationId,
  ControlReply,
  SentControlInput,
} from "../core/control-operations.js";
import type { ValidationErrors } from "../core/errors.js";
import type { FaultRules } from "../core/faults.js";
import type { MockEvents } from "../core/events.js";
import type { Reply, Services } from "../routes/context.js";
import type { RequestJournal } from "../store/journal.js";
import type { DriftLog } from "../upstream/drift-log.js";

export interface ControlHandler<K extends ControlOperationId> {
  handle(input: ControlInput<K>): ControlReply<K> | Promise<ControlReply<K>>;
  /**
   * Rules the schema cannot express (a field against another), as validationErrors. It sees the request
   * as sent, valid or not, so that one 400 names every problem; it must not trust the types.
   */
  check?(input: SentControlInput): ValidationErrors | undefined;
}

/** One table per group: operationId -> handler. */
export type ControlHandlers<K extends ControlOperationId> = { [P in K]: ControlHandler<P> };

/** A control operation of the spec with its handler: what the core routes and serves. */
export interface ControlRoute {
  /** The operation's, in spec/mock-control.yaml: the journal and the request log name it. */
  operationId: ControlOperationId;
  method: ControlOperation["method"];
  /** The spec's path template, /__mock included: `/__mock/workspaces/{workspaceId}`. */
  path: string;
  operation: ControlOperation;
  /** Runs the handler, as transactions of the store (router.ts makes most handlers one: Store.control). */
  handle(input: ControlInput): Reply | Promise<Reply>;
  check?(input: SentControlInput): ValidationErrors | undefined;
}

/** What the control plane works on: the mock's services, and the core's journal and fault rules. */
export interface ControlServices extends Services {
  journal: RequestJournal;
  faults: FaultRules;
  /** The upstream door's findings (empty without --upstream). */
  drift: DriftLog;
  /** The live events (GET /__mock/events): the control plane tells what it changed. */
  events: MockEvents;
  /** GET /__mock/metrics: this process's Prometheus text (the Node doors); without it, 404. */
  metrics?: MetricsText;
}

/** What GET /__mock/metrics serves (node/metrics.ts makes it with prom-client). */
export interface MetricsText {
  render(): Promise<{ contentType: string; body: string }>;
}
