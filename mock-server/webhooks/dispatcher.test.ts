import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import type { Store } from "../store/store.js";
import { Workspace } from "../store/workspace.js";
import { DEFAULT_DISPATCHER_OPTIONS, WebhookDispatcher, type DispatcherOptions } from "./dispatcher.js";

const START = Date.parse("2026-11-01T12:00:00.000Z");

function setup(url: string, options: Partial<DispatcherOptions> = {}) {
  const workspace = new Workspace(
    { workspaceId: "w", apiKey: "k", seed: 1, empty: true, readOnly: false },
    new Clock({ mode: "virtual", start: new Date(START) }),
  );
  workspace.collections.webhooks.create({
    webhookId: "h1",
    agentId: "a1",
    active: true,
    events: "conversation_started, conversation_ended",
    url,
    secret: "whsec_test",
  } as never);
  const queued: ((undone: boolean) => void)[] = [];
  let outcomes = 0;
  const store: Pick<Store, "transactBackground" | "afterCommit"> = {
    afterCommit: (_workspace, start) => void queued.push(start),
    async transactBackground(_workspace, work) {
      outcomes++;
      return work() as never;
    },
  };
  const logged: string[] = [];
  const dispatcher = new WebhookDispatcher(
    { ...DEFAULT_DISPATCHER_OPTIONS, ...options, log: (line) => void logged.push(line) },
    store,
  );
  /** Starts what the work queued, as the store does once the work is written (or undone). */
  const commit = (undone = false) => queued.splice(0).forEach((start) => start(undone));
  return { workspace, dispatcher, commit, logged, outcomes: () => outcomes };
}

describe("WebhookDispatcher", () => {
  it("sends an event's first attempt only once the work that emitted it is written", async () => {
    const { workspace, dispatcher, commit, outcomes } = setup("https://hooks.example.com/in");
    const [delivery] = dispatcher.emit(workspace, "a1", "conversation_started", {} as never);
    expect(dispatcher.emit(workspace, "a1", "qa_issue_detected" as never, {} as never)).toEqual([]);
    await dispatcher.idle();
    expect(workspace.outbox.get(delivery.deliveryId)?.attempts).toEqual([]);
    commit();
    await dispatcher.idle();
    // A reserved example domain is never called: the attempt is recorded as skipped, through the store.
    const sent = workspace.outbox.get(delivery.deliveryId)!;
    expect(sent.status).toBe("skipped");
    expect(sent.attempts).toHaveLength(1);
    expect(sent.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(outcomes()).toBe(1);
  });

  it("sends nothing for work that was undone", async () => {
    const { workspace, dispatcher, commit, outcomes } = setup("https://hooks.example.com/in");
    const [delivery] = dispatcher.emit(workspace, "a1", "conversation_ended", {} as never);
    commit(true);
    await dispatcher.idle();
    expect(workspace.outbox.get(delivery.deliveryId)?.attempts).toEqual([]);
    expect(outcomes()).toBe(0);
  });

  it("schedules a retry with backoff for a failed attempt, and fails the delivery after the last", async () => {
    const { workspace, dispatcher, commit, logged } = setup("http://127.0.0.1:1/refused", {
      maxAttempts: 2,
      backoffSeconds: 10,
    });
    const [delivery] = dispatcher.emit(workspace, "a1", "conversation_started", {} as never);
    commit();
    await dispatcher.idle();
    const after1 = workspace.outbox.get(delivery.deliveryId)!;
    expect(after1.status).toBe("pending");
    expect(after1.attempts[0].error).toMatch(/^request failed/);
    const retry = workspace.tasks.get(`delivery:${delivery.deliveryId}`)!;
    expect(retry.at).toBe(START + 10_000);
    expect(after1.nextAttemptAt).toBe(new Date(START + 10_000).toISOString());

    workspace.tasks.cancel(retry.id);
    const started = dispatcher.step(workspace, retry);
    commit();
    await started;
    const after2 = workspace.outbox.get(delivery.deliveryId)!;
    expect(after2.status).toBe("failed");
    expect(after2.attempts).toHaveLength(2);
    expect(workspace.tasks.get(retry.id)).toBeUndefined();
    expect(logged).toEqual([expect.stringMatching(/failed after 2 attempts/)]);
  });

  it("with a lease (processes sharing a store), holds a delivery whose attempt may still be under way", () => {
    const { workspace, dispatcher } = setup("https://hooks.example.com/in", { leaseMs: 30_000 });
    const [delivery] = dispatcher.emit(workspace, "a1", "conversation_started", {} as never);
    const lease = workspace.tasks.get(`delivery:${delivery.deliveryId}`)!;
    expect(lease.at).toBe(START + 30_000);
    expect(Number(lease.expect)).toBeGreaterThan(Date.now());
    workspace.tasks.cancel(lease.id);
    // Its wall-clock deadline is ahead: held on, no second attempt.
    expect(dispatcher.step(workspace, lease)).toBeUndefined();
    expect(workspace.tasks.get(lease.id)?.at).toBe(START + 30_000);
  });
});
