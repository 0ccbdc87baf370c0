/**
 * Calls move through their states on the clock (x-assumption of CallStatus):
 * scheduled -> in_progress | not_connected | error, in_progress -> ended | error.
 * Each call's path and timing come from a Random seeded by its id, so a run is repeatable; a call
 * filled with an `outcome` follows its plan (workspace.callPlans) instead, with the same webhooks
 * and QA evaluation along the way.
 */
import type { CallPlan, Workspace } from "../store/workspace.js";
import type { Call, CallStatus } from "../store/records.js";
import { Random, hash32 } from "../core/random.js";
import type { Task } from "../store/tasks.js";
import { settleCall } from "../seed/call-lifecycle.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { evaluateConversation } from "./qa.js";

export const FINAL_STATUSES: CallStatus[] = ["ended", "not_connected", "error"];

export class CallProgression {
  constructor(
    private readonly webhooks: WebhookDispatcher,
    /** Calls that move on by another rule (E16 conversations end on silence, sim/chats.ts). */
    private readonly movedElsewhere: (workspace: Workspace, call: Call) => boolean = () => false,
  ) {}

  /** Schedules the next step of a call that is not final yet. */
  track(workspace: Workspace, call: Call): void {
    if (FINAL_STATUSES.includes(call.status) || this.movedElsewhere(workspace, call)) return;
    const { at } = this.nextStep(workspace, call);
    workspace.tasks.schedule({
      kind: "call",
      ref: call.callId,
      at: Math.max(workspace.clock.nowMs(), at),
      expect: call.status,
    });
  }

  /** The scheduled step of a call, if the call is still as it was when the step was scheduled. */
  step(workspace: Workspace, task: Task): void {
    const current = workspace.collections.calls.get(task.ref);
    if (!current || current.status !== task.expect) return;
    const { next, random, plan } = this.nextStep(workspace, current);
    this.move(workspace, current, next, random, plan);
  }

  /**
   * Where a call goes next and when: drawn from a Random seeded by its id and status, so the task that
   * runs the step (in whichever process) draws the same as the one that scheduled it.
   */
  private nextStep(
    workspace: Workspace,
    call: Call,
  ): { next: CallStatus; at: number; random: Random; plan?: CallPlan } {
    const random = new Random(hash32(`${call.callId}:${call.status}`));
    const from = call.status === "scheduled" ? call.createdAt : (call.startTime ?? call.createdAt);
    const wait = call.status === "scheduled" ? random.int(5, 30) : random.int(20, 240);
    const usualAt = Date.parse(from) + wait * 1000;
    const usualNext: CallStatus =
      call.status === "scheduled"
        ? random.chance(0.7)
          ? "in_progress"
          : random.chance(0.66)
            ? "not_connected"
            : "error"
        : random.chance(0.9)
          ? "ended"
          : "error";
    const plan = workspace.callPlans.get(call.callId);
    const { next, at } = plan ? plannedStep(plan, call, usualAt) : { next: usualNext, at: usualAt };
    return { next, at, random, plan };
  }

  private move(workspace: Workspace, call: Call, status: CallStatus, random: Random, plan?: CallPlan): void {
    const moved = settleCall(call, status, workspace.clock.now(), () => random.next(), {
      terminationReason: plan?.terminationReason,
    });
    workspace.collections.calls.replace(call.callId, moved);
    if (plan && FINAL_STATUSES.includes(status)) workspace.callPlans.delete(call.callId);
    const data = {
      conversationId: call.callId,
      channel: "call" as const,
      callId: call.callId,
      callType: call.callType,
    };
    if (status === "in_progress") {
      this.webhooks.emit(workspace, call.agent.agentId, "conversation_started", {
        ...data,
        variables: call.dynamicVariables ?? {},
      });
    }
    if (call.status === "in_progress" && FINAL_STATUSES.includes(status)) {
      this.webhooks.emit(workspace, call.agent.agentId, "conversation_ended", {
        ...data,
        transcript: moved.transcript ?? "",
      });
      evaluateConversation(workspace, call.agent.agentId, call.callId, workspace.clock.iso(), random);
    }
    this.track(workspace, moved);
  }
}

/**
 * The next step of a scripted call and when it comes: a scheduled call connects first when the plan
 * says so (at connectAt, else the usual wait but never after finalAt), then reaches the plan's status
 * at finalAt, else durationSeconds after its start, else after the usual wait.
 */
function plannedStep(plan: CallPlan, call: Call, usualAt: number): { next: CallStatus; at: number } {
  const finalAt = plan.finalAt ? Date.parse(plan.finalAt) : undefined;
  if (call.status === "scheduled" && plan.connects) {
    return {
      next: "in_progress",
      at: plan.connectAt ? Date.parse(plan.connectAt) : Math.min(usualAt, finalAt ?? Infinity),
    };
  }
  const byDuration =
    plan.durationSeconds !== undefined && call.startTime
      ? Date.parse(call.startTime) + plan.durationSeconds * 1000
      : undefined;
  return { next: plan.status, at: finalAt ?? byDuration ?? usualAt };
}
