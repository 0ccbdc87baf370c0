/**
 * A call filled through the control plane can be given its outcome in advance, so a UI test can
 * script a call's life: `outcome` is a control-only field of the partial (not part of the Call
 * schema), taken out before the call is built and checked against the lifecycle (seed/call-lifecycle.ts):
 *   scheduled   -> not_connected | error             (never connects: afterSeconds)
 *   scheduled   -> in_progress -> ended | error     (connectAfterSeconds, then afterSeconds or durationSeconds)
 *   in_progress -> ended | error                    (afterSeconds)
 * Seconds count from the fill, on the workspace's clock; whatever is not given follows the usual
 * random timing. The result is a CallPlan that sim/calls.ts follows.
 */
import type { components } from "../../generated/mock-control.js";
import type { ValidationErrors } from "../core/errors.js";
import {
  CALL_STATUSES,
  NEXT_STATUSES,
  isFinal,
  statusOfReason,
  terminationReasonsFor,
  type TerminationReason,
} from "../seed/call-lifecycle.js";
import type { CallStatus } from "../store/records.js";
import type { CallPlan } from "../store/workspace.js";

type CallOutcome = components["schemas"]["CallOutcome"];

/**
 * The partial without `outcome`, and the plan it asks for; the outcome is valid (the spec's CallOutcome
 * and outcomeErrors). A call given an outcome but no status is live: in_progress when a start is given,
 * else scheduled (a status the builder would otherwise draw).
 */
export function takeOutcome(
  body: Record<string, unknown>,
  now: Date,
): { partial: Record<string, unknown>; plan?: CallPlan } {
  if (!("outcome" in body)) return { partial: body };
  const { outcome, ...partial } = body;
  const status = statusOfPartial(partial);
  if (partial.status === undefined && status) partial.status = status;
  // A status the Call schema refuses is reported by the record check; there is no lifecycle to check against.
  if (!status) return { partial };
  return { partial, plan: planOf(outcome as CallOutcome, status, now) };
}

function statusOfPartial(partial: Record<string, unknown>): CallStatus | undefined {
  const { status, terminationReason, endTime, duration, startTime } = partial;
  if (status !== undefined) return (CALL_STATUSES as unknown[]).includes(status) ? (status as CallStatus) : undefined;
  if (typeof terminationReason === "string") return statusOfReason(terminationReason as TerminationReason);
  if (endTime || duration != null) return "ended";
  return startTime ? "in_progress" : "scheduled";
}

/** The final statuses a call of status `from` can reach along the lifecycle's transitions. */
function reachableFinals(from: CallStatus): CallStatus[] {
  return [...new Set(NEXT_STATUSES[from].flatMap((next) => (isFinal(next) ? [next] : reachableFinals(next))))];
}

/** Whether a scheduled call connects before it ends: an error does when the outcome says when, or for how long. */
function connectsFirst(from: CallStatus, o: Record<string, unknown>): boolean {
  return (
    from === "scheduled" &&
    (o.status === "ended" ||
      (o.status === "error" && (o.connectAfterSeconds !== undefined || o.durationSeconds !== undefined)))
  );
}

/**
 * What the lifecycle refuses in a fill of calls' `outcome`, by field (`outcome.terminationReason`): the
 * rules of one field against another and against the call's own status, which the spec's CallOutcome
 * cannot express. Its types, ranges and fields are the schema's: this looks at the body as sent, valid
 * or not (the core runs it with the schema so that one 400 names both), and judges only what it can read.
 */
export function outcomeErrors(body: unknown): ValidationErrors | undefined {
  if (!isObject(body) || !isObject(body.outcome)) return undefined;
  const { outcome: o, ...partial } = body;
  const from = statusOfPartial(partial);
  if (!from) return undefined;
  if (isFinal(from)) return { outcome: `a call that is already ${from} has no outcome left to script` };
  const errors: ValidationErrors = {};
  const finals = reachableFinals(from);
  const status = o.status as CallStatus;
  if (["ended", "not_connected", "error"].includes(status as string)) {
    if (!finals.includes(status)) {
      errors["outcome.status"] = `must be one of ${finals.join(", ")} (what a ${from} call can end as)`;
    } else if (
      typeof o.terminationReason === "string" &&
      !terminationReasonsFor(status).includes(o.terminationReason as TerminationReason)
    ) {
      errors["outcome.terminationReason"] =
        `must be one of ${terminationReasonsFor(status).join(", ")} (the reasons of ${status})`;
    }
  }
  const { afterSeconds: after, connectAfterSeconds: connectAfter, durationSeconds: duration } = o;
  const connects = connectsFirst(from, o);
  if (connectAfter !== undefined && !connects) {
    errors["outcome.connectAfterSeconds"] =
      from === "in_progress" ? "the call is already in progress" : `a ${String(status)} call never connects`;
  }
  if (duration !== undefined) {
    if (from === "in_progress")
      errors["outcome.durationSeconds"] = "the call is already in progress: give afterSeconds";
    else if (!connects) errors["outcome.durationSeconds"] = `a ${String(status)} call never connects`;
    else if (after !== undefined) errors["outcome.durationSeconds"] = "give afterSeconds or durationSeconds, not both";
  }
  if (typeof after === "number" && typeof connectAfter === "number" && after < connectAfter)
    errors["outcome.afterSeconds"] = "must be at least connectAfterSeconds";
  return Object.keys(errors).length > 0 ? errors : undefined;
}

/** The plan of a valid outcome for a call of status `from`. */
function planOf(o: CallOutcome, from: CallStatus, now: Date): CallPlan {
  const at = (seconds: number | undefined) =>
    seconds === undefined ? undefined : new Date(now.getTime() + seconds * 1000).toISOString();
  const plan: CallPlan = { status: o.status, connects: connectsFirst(from, o) };
  if (o.terminationReason !== undefined) plan.terminationReason = o.terminationReason as TerminationReason;
  if (o.connectAfterSeconds !== undefined) plan.connectAt = at(o.connectAfterSeconds);
  if (o.afterSeconds !== undefined) plan.finalAt = at(o.afterSeconds);
  if (o.durationSeconds !== undefined) plan.durationSeconds = o.durationSeconds;
  return plan;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
