/**
 * Everything the mock simulates over time, behind one object the routes and the control plane use:
 * call progression, batch runs, chats (with their webhooks and QA issues).
 */
import type { Workspace } from "../store/workspace.js";
import type { Agent, StoredChat, TestCase } from "../store/records.js";
import type { Store } from "../store/store.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { BatchRuns } from "./batch-runs.js";
import { CallProgression } from "./calls.js";
import { ChatConversations } from "./chats.js";
import type { Variables } from "./chat-reply.js";

export class Simulation {
  readonly calls: CallProgression;
  readonly batches: BatchRuns;
  readonly chats: ChatConversations;

  constructor(
    readonly webhooks: WebhookDispatcher,
    /** What the chats' cache asks: whether a workspace's state moved under it. */
    store: Pick<Store, "generationOf">,
  ) {
    this.chats = new ChatConversations(webhooks, store);
    this.calls = new CallProgression(webhooks, (workspace, call) => this.chats.owns(workspace, call));
    this.batches = new BatchRuns();
  }

  /** After seeding or restoring: whatever is under way continues on the workspace's clock. */
  resume(workspace: Workspace): void {
    for (const call of workspace.collections.calls.all()) {
      if (this.chats.owns(workspace, call)) this.chats.track(workspace, call);
      else this.calls.track(workspace, call);
    }
    for (const run of workspace.collections.testRuns.all()) this.batches.track(workspace, run);
  }

  startBatch(workspace: Workspace, agent: Agent, testCases: TestCase[]) {
    return this.batches.start(workspace, agent, testCases);
  }

  /** E16: one turn of a chat conversation (sim/chats.ts). */
  chat(workspace: Workspace, agent: Agent, conversation: string | undefined, variables: Variables): StoredChat {
    return this.chats.turn(workspace, agent, conversation, variables);
  }
}
