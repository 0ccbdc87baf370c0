/**
 * Calls move through their states on the clock (x-assumption of CallStatus):
 * scheduled -> in_progress | not_connected | error, in_progress -> ended | error.
 * Each call's path and timing come from a Random seeded by its id, so a run is repeatable.
 */
import type { Workspace } from "../store/workspace.js";
import type { Call, CallStatus } from "../store/records.js";
import { Random, hash32 } from "../store/random.js";
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
    const random = new Random(hash32(`${call.callId}:${call.status}`));
    const generation = workspace.generation;
    const from = call.status === "scheduled" ? call.createdAt : (call.startTime ?? call.createdAt);
    const wait = call.status === "scheduled" ? random.int(5, 30) : random.int(20, 240);
    const at = Math.max(workspace.clock.nowMs(), Date.parse(from) + wait * 1000);
    const next: CallStatus =
      call.status === "scheduled"
        ? random.chance(0.7) ? "in_progress" : random.chance(0.66) ? "not_connected" : "error"
        : random.chance(0.9) ? "ended" : "error";
    workspace.clock.schedule(at, () => {
      if (workspace.generation !== generation) return;
      const current = workspace.collections.calls.get(call.callId);
      if (!current || current.status !== call.status) return;
      this.move(workspace, current, next, random);
    });
  }

  private move(workspace: Workspace, call: Call, status: CallStatus, random: Random): void {
    const moved = settleCall(call, status, workspace.clock.now(), () => random.next());
    workspace.collections.calls.replace(call.callId, moved);
    const data = { conversationId: call.callId, channel: "call" as const, callId: call.callId, callType: call.callType };
    if (status === "in_progress") {
      this.webhooks.emit(workspace, call.agent.agentId, "conversation_started", { ...data, variables: call.dynamicVariables ?? {} });
    }
    if (call.status === "in_progress" && FINAL_STATUSES.includes(status)) {
      this.webhooks.emit(workspace, call.agent.agentId, "conversation_ended", { ...data, transcript: moved.transcript ?? "" });
      evaluateConversation(workspace, call.agent.agentId, call.callId, workspace.clock.iso(), random);
    }
    this.track(workspace, moved);
  }
}
