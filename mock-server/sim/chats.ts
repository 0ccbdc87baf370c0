/**
 * E16 chat conversations (x-assumption of createChat). The reference gives a chat no id in the request,
 * so a conversation is recognised by what a client sends: a request continues the open conversation of
 * the same agent and variables whose last `conversation` text it contains (a client that resends the
 * history each turn stays in one conversation); otherwise it starts a new one. A conversation is also
 * a call of callType chat: in_progress while open, ended (silence_timed_out) once no turn has come for
 * the agent's endCallOnSilenceDuration. conversation_started goes out on the first turn,
 * conversation_ended when it ends, so a client never gets a start/end pair per turn.
 */
import type { Workspace } from "../store/workspace.js";
import type { Agent, Call, StoredChat } from "../store/records.js";
import type { Store } from "../store/store.js";
import { Random, hash32 } from "../core/random.js";
import type { Task } from "../store/tasks.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { agentReference } from "./batch-runs.js";
import { agentReplies, lastCustomerLine, type Variables } from "./chat-reply.js";
import { evaluateConversation } from "./qa.js";

/** The reference's default of endCallOnSilenceDuration (2.3.1), for an agent whose value is unusable. */
const DEFAULT_SILENCE_MINUTES = 5;
/**
 * Open conversations a turn is compared with, per agent and variables: the most recent ones only, so a
 * turn costs the same under load as alone (an older one still ends on time; it just cannot be continued).
 */
const CANDIDATES = 100;

export class ChatConversations {
  /**
   * Ids of open conversations per workspace, by agent and variables, most recent turn last: derived
   * from the store, and derived again when the workspace's generation moves (a reset, or writes of
   * another process sharing the store), so it never decides on what this process alone saw.
   */
  private readonly open = new WeakMap<Workspace, { generation: number; byKey: Map<string, string[]> }>();

  constructor(
    private readonly webhooks: WebhookDispatcher,
    private readonly store: Pick<Store, "generationOf">,
  ) {}

  /** One turn: continues the open conversation it belongs to, or starts one. */
  turn(workspace: Workspace, agent: Agent, conversation: string | undefined, variables: Variables): StoredChat {
    const text = conversation ?? "";
    const open = this.openConversationOf(workspace, agent.agentId, text, variables);
    return open
      ? this.continueConversation(workspace, agent, open, text, variables)
      : this.startConversation(workspace, agent, text, variables);
  }

  /** Schedules the end of an open E16 conversation (after a turn, a restore or a reset). */
  track(workspace: Workspace, call: Call): void {
    const chat = workspace.collections.chats.get(call.callId);
    if (call.status !== "in_progress" || !chat) return;
    this.remember(workspace, chat);
    const agent = workspace.collections.agents.get(call.agent.agentId);
    const minutes = agent?.agentSettings.endCallOnSilenceDuration;
    const silenceMs = (typeof minutes === "number" && minutes > 0 ? minutes : DEFAULT_SILENCE_MINUTES) * 60_000;
    workspace.tasks.schedule({
      kind: "chatEnd",
      ref: call.callId,
      at: Date.parse(call.updatedAt) + silenceMs,
      expect: call.updatedAt,
    });
  }

  /** The scheduled end of a conversation, unless a later turn came (it moved updatedAt and scheduled its own). */
  step(workspace: Workspace, task: Task): void {
    const current = workspace.collections.calls.get(task.ref);
    if (current?.status !== "in_progress" || current.updatedAt !== task.expect) return;
    this.end(workspace, current);
  }

  /** Whether a call is an E16 conversation (which this class, not the call progression, moves on). */
  owns(workspace: Workspace, call: Call): boolean {
    return call.callType === "chat" && workspace.collections.chats.get(call.callId) !== undefined;
  }

  private openConversationOf(
    workspace: Workspace,
    agentId: string,
    text: string,
    variables: Variables,
  ): StoredChat | undefined {
    if (text === "") return undefined;
    const ids = this.candidates(workspace).get(conversationKey(agentId, variables)) ?? [];
    for (let i = ids.length - 1; i >= 0; i--) {
      const call = workspace.collections.calls.get(ids[i]);
      const chat = workspace.collections.chats.get(ids[i]);
      // Ended, or gone with a reset: no longer a candidate.
      if (call?.status !== "in_progress" || !chat) ids.splice(i, 1);
      else if (chat.conversation !== "" && text.includes(chat.conversation)) return chat;
    }
    return undefined;
  }

  /** The open conversations of a workspace by agent and variables (see `open`). */
  private candidates(workspace: Workspace): Map<string, string[]> {
    const cached = this.open.get(workspace);
    const generation = this.store.generationOf(workspace);
    if (cached?.generation === generation) return cached.byKey;
    const byKey = new Map<string, string[]>();
    this.open.set(workspace, { generation, byKey });
    const live = workspace.collections.calls.page({
      where: { status: "in_progress" },
      order: "oldest",
      page: 0,
      size: Number.MAX_SAFE_INTEGER,
    }).items;
    const chats = live.flatMap((call) => workspace.collections.chats.get(call.callId) ?? []);
    chats.sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
    for (const chat of chats) this.remember(workspace, chat);
    return byKey;
  }

  /** Puts a conversation last among the candidates of its agent and variables. */
  private remember(workspace: Workspace, chat: StoredChat): void {
    const byKey = this.candidates(workspace);
    const key = conversationKey(chat.agentId, chat.variables);
    const ids = (byKey.get(key) ?? []).filter((id) => id !== chat.id);
    ids.push(chat.id);
    byKey.set(key, ids.slice(-CANDIDATES));
  }

  private forget(workspace: Workspace, chat: StoredChat): void {
    const byKey = this.candidates(workspace);
    const key = conversationKey(chat.agentId, chat.variables);
    const ids = byKey.get(key)?.filter((id) => id !== chat.id);
    if (!ids) return;
    if (ids.length > 0) byKey.set(key, ids);
    else byKey.delete(key);
  }

  private startConversation(workspace: Workspace, agent: Agent, text: string, variables: Variables): StoredChat {
    const now = workspace.clock.iso();
    const replies = agentReplies(agent, text, variables);
    const chat: StoredChat = {
      id: workspace.random.uuid(),
      createdAt: now,
      updatedAt: now,
      status: "completed",
      error: null,
      response: this.messages(workspace, replies),
      agentId: agent.agentId,
      conversation: text,
      variables,
      transcript: transcriptLines(text, replies),
    };
    workspace.collections.chats.create(chat);
    const call: Call = {
      callId: chat.id,
      callType: "chat",
      phoneNumber: null,
      campaign: null,
      status: "in_progress",
      transcript: null,
      startTime: now,
      endTime: null,
      duration: null,
      terminationReason: null,
      createdAt: now,
      updatedAt: now,
      dynamicVariables: Object.keys(variables).length > 0 ? { ...variables } : null,
      recordingUrl: null,
      agent: agentReference(agent),
    };
    workspace.collections.calls.create(call);
    this.webhooks.emit(workspace, agent.agentId, "conversation_started", { ...eventData(chat.id), variables });
    this.track(workspace, call);
    return chat;
  }

  private continueConversation(
    workspace: Workspace,
    agent: Agent,
    open: StoredChat,
    text: string,
    variables: Variables,
  ): StoredChat {
    const now = workspace.clock.iso();
    const replies = agentReplies(agent, text, variables, { greeted: true });
    const said = lastCustomerLine(text);
    const chat: StoredChat = {
      ...open,
      updatedAt: now,
      status: "completed",
      error: null,
      response: this.messages(workspace, replies),
      conversation: text,
      // Appended with +, not join(): V8 keeps the sum as a rope, so a long conversation does not copy its
      // whole transcript on every turn (join flattened it: a turn cost grew with the conversation).
      transcript: appendLines(open.transcript ?? "", transcriptLines(said, replies)),
    };
    workspace.collections.chats.replace(chat.id, chat);
    const call = workspace.collections.calls.require(chat.id, "Call");
    const moved: Call = { ...call, updatedAt: now };
    workspace.collections.calls.replace(call.callId, moved);
    this.track(workspace, moved);
    return chat;
  }

  private end(workspace: Workspace, call: Call): void {
    const chat = workspace.collections.chats.get(call.callId);
    const now = workspace.clock.now();
    const transcript = chat?.transcript ?? "";
    if (chat) this.forget(workspace, chat);
    const started = Date.parse(call.startTime ?? call.createdAt);
    workspace.collections.calls.replace(call.callId, {
      ...call,
      status: "ended",
      transcript,
      endTime: now.toISOString(),
      duration: Math.max(0, Math.round((now.getTime() - started) / 1000)),
      terminationReason: "silence_timed_out",
      updatedAt: now.toISOString(),
    });
    this.webhooks.emit(workspace, call.agent.agentId, "conversation_ended", { ...eventData(call.callId), transcript });
    evaluateConversation(
      workspace,
      call.agent.agentId,
      call.callId,
      now.toISOString(),
      new Random(hash32(`${call.callId}:ended`)),
    );
  }

  private messages(workspace: Workspace, replies: string[]): StoredChat["response"] {
    return replies.map((text) => ({ id: workspace.random.uuid(), role: "assistant", type: "text", content: [text] }));
  }
}

function eventData(chatId: string) {
  return { conversationId: chatId, channel: "chat" as const, callId: chatId, callType: "chat" as const };
}

function appendLines(transcript: string, lines: string): string {
  return transcript === "" ? lines : lines === "" ? transcript : `${transcript}\n${lines}`;
}

function transcriptLines(said: string, replies: string[]): string {
  return [...(said ? [`User: ${said}`] : []), ...replies.map((r) => `Agent: ${r}`)].join("\n");
}

/** Agent and variables, whatever the order of the variables' keys. */
function conversationKey(agentId: string, variables: Variables): string {
  const entries = Object.entries(variables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${agentId}\n${JSON.stringify(entries)}`;
}
