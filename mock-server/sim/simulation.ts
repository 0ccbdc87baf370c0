/**
 * Everything the mock simulates over time, behind one object the routes and the control plane use:
 * call progression, batch runs, chats (with their webhooks and QA issues).
 */
import type { Clock } from "../clock.js";
import type { Workspace } from "../store/workspace.js";
import type { Agent, Call, StoredChat, TestCase } from "../store/records.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { BatchRuns, agentReference } from "./batch-runs.js";
import { CallProgression } from "./calls.js";
import { agentReplies, type Variables } from "./chat-reply.js";
import { evaluateConversation } from "./qa.js";

export class Simulation {
  readonly calls: CallProgression;
  readonly batches: BatchRuns;

  constructor(
    private readonly clock: Clock,
    private readonly webhooks: WebhookDispatcher,
  ) {
    this.calls = new CallProgression(clock, webhooks);
    this.batches = new BatchRuns(clock);
  }

  /** After seeding or restoring: whatever is under way continues on the clock. */
  resume(workspace: Workspace): void {
    for (const call of workspace.collections.calls.all()) this.calls.track(workspace, call);
    for (const run of workspace.collections.testRuns.all()) this.batches.track(workspace, run);
  }

  startBatch(workspace: Workspace, agent: Agent, testCases: TestCase[]) {
    return this.batches.start(workspace, agent, testCases);
  }

  /** E16: one conversation, started and ended within the request (x-assumption of createChat). */
  chat(workspace: Workspace, agent: Agent, conversation: string | undefined, variables: Variables): StoredChat {
    const now = this.clock.iso();
    const replies = agentReplies(agent, conversation, variables);
    const chat: StoredChat = {
      id: workspace.random.uuid(),
      createdAt: now,
      updatedAt: now,
      status: "completed",
      error: null,
      response: replies.map((text) => ({ id: workspace.random.uuid(), role: "assistant", type: "text", content: [text] })),
      agentId: agent.agentId,
      conversation: conversation ?? "",
      variables,
    };
    workspace.collections.chats.create(chat);
    const transcript = [...(conversation ? [`User: ${conversation}`] : []), ...replies.map((r) => `Agent: ${r}`)].join("\n");
    const call: Call = {
      callId: chat.id,
      callType: "chat",
      phoneNumber: null,
      campaign: null,
      status: "ended",
      transcript,
      startTime: now,
      endTime: now,
      duration: 0,
      terminationReason: "agent_ended_call",
      createdAt: now,
      updatedAt: now,
      dynamicVariables: Object.keys(variables).length > 0 ? { ...variables } : null,
      recordingUrl: null,
      agent: agentReference(agent),
    };
    workspace.collections.calls.create(call);
    const data = { conversationId: chat.id, channel: "chat" as const, callId: call.callId, callType: "chat" as const };
    this.webhooks.emit(workspace, agent.agentId, "conversation_started", { ...data, variables });
    this.webhooks.emit(workspace, agent.agentId, "conversation_ended", { ...data, transcript });
    evaluateConversation(workspace, agent.agentId, chat.id, now, workspace.random);
    return chat;
  }
}
