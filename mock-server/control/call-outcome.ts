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
import { invalid, type ValidationErrors } from "../core/errors.js";
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

const FIELDS = ["status", "terminationReason", "afterSeconds", "connectAfterSeconds", "durationSeconds"] as const;
const SECONDS_FIELDS = ["afterSeconds", "connectAfterSeconds", "durationSeconds"] as const;
/** A month: far enough for any test, near enough that a typo (ms for s) is caught. */
const MAX_SECONDS = 30 * 24 * 3600;

/**
 * The partial without `outcome`, and the plan it asks for. A call given an outcome but no status is
 * live: in_progress when a start is given, else scheduled (a status the builder would otherwise draw).
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
  return { partial, plan: planOf(outcome, status, now) };
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

/** The plan of a valid outcome for a call of status `from`; a 400 naming every field that is not. */
export function planOf(outcome: unknown, from: CallStatus, now: Date): CallPlan {
  if (!outcome || typeof outcome !== "object" || Array.isArray(outcome))
    throw invalid({ outcome: "must be an object" }, "Invalid call outcome");
  if (isFinal(from))
    throw invalid({ outcome: `a call that is already ${from} has no outcome left to script` }, "Invalid call outcome");
  const o = outcome as Record<string, unknown>;
  const errors: ValidationErrors = {};
  for (const key of Object.keys(o)) {
    if (!(FIELDS as readonly string[]).includes(key))
      errors[`outcome.${key}`] = `is not a field of an outcome (${FIELDS.join(", ")})`;
  }
  const finals = reachableFinals(from);
  const status = o.status as CallPlan["status"];
  if (!finals.includes(status)) {
    errors["outcome.status"] = `must be one of ${finals.join(", ")} (what a ${from} call can end as)`;
  } else if (
    o.terminationReason !== undefined &&
    !terminationReasonsFor(status).includes(o.terminationReason as TerminationReason)
  ) {
    errors["outcome.terminationReason"] =
      `must be one of ${terminationReasonsFor(status).join(", ")} (the reasons of ${status})`;
  }
  for (const key of SECONDS_FIELDS) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > MAX_SECONDS)) {
      errors[`outcome.${key}`] = `must be a number of seconds from 0 to ${MAX_SECONDS}`;
    }
  }
  const after = o.afterSeconds as number | undefined;
  const connectAfter = o.connectAfterSeconds as number | undefined;
  const duration = o.durationSeconds as number | undefined;
  // An error connects first when the outcome says when, or how long the conversation lasts.
  const connects =
    from === "scheduled" &&
    (status === "ended" || (status === "error" && (connectAfter !== undefined || duration !== undefined)));
  if (connectAfter !== undefined && !connects) {
    errors["outcome.connectAfterSeconds"] =
      from === "in_progress" ? "the call is already in progress" : `a ${status} call never connects`;
  }
  if (duration !== undefined) {
    if (from === "in_progress")
      errors["outcome.durationSeconds"] = "the call is already in progress: give afterSeconds";
    else if (!connects) errors["outcome.durationSeconds"] = `a ${status} call never connects`;
    else if (after !== undefined) errors["outcome.durationSeconds"] = "give afterSeconds or durationSeconds, not both";
  }
  if (after !== undefined && connectAfter !== undefined && after < connectAfter)
    errors["outcome.afterSeconds"] = "must be at least connectAfterSeconds";
  if (Object.keys(errors).length > 0) throw invalid(errors, "Invalid call outcome");

  const at = (seconds: number | undefined) =>
    seconds === undefined ? undefined : new Date(now.getTime() + seconds * 1000).toISOString();
  const plan: CallPlan = { status, connects };
  if (o.terminationReason !== undefined) plan.terminationReason = o.terminationReason as TerminationReason;
  if (connectAfter !== undefined) plan.connectAt = at(connectAfter);
  if (after !== undefined) plan.finalAt = at(after);
  if (duration !== undefined) plan.durationSeconds = duration;
  return plan;
}
