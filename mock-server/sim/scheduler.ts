/**
 * Runs the scheduled tasks of store/tasks.ts, each as one transaction of the workspace's store, so a
 * task's run is written whole or not at all, like a request's. Each task scheduled wakes the real-time
 * clock at its time; a virtual clock runs them in order on advance; the Redis store also polls for due
 * tasks itself (store/redis/) and runs them through `runDue`.
 */
import type { Store } from "../store/store.js";
import type { Task } from "../store/tasks.js";
import type { Workspace } from "../store/workspace.js";
import type { Simulation } from "./simulation.js";

export class Scheduler {
  constructor(
    private readonly simulation: Simulation,
    /** Where each task runs as a transaction. */
    private readonly store: Pick<Store, "transactBackground">,
  ) {}

  /** In memory: every task scheduled on this workspace wakes its clock at the task's time. */
  wakeClockOf(workspace: Workspace): void {
    // A virtual clock runs tasks only when advanced (advance below): it needs no wake-ups.
    if (workspace.clock.mode !== "real") return;
    workspace.tasks.onScheduled = (task) =>
      workspace.clock.schedule(task.at, () => this.fire(workspace, task.id, task.seq));
  }

  /**
   * Runs a task if it is still scheduled (as scheduled at `seq`: a task scheduled again since has its
   * own wake-up). Resolves when what it started (a webhook attempt) has finished.
   */
  fire(workspace: Workspace, taskId: string, seq: number): Promise<boolean> {
    return this.runOne(workspace, () => {
      const task = workspace.tasks.get(taskId);
      return task?.seq === seq ? task : undefined;
    });
  }

  /**
   * Runs the earliest task due by `upTo` (clock ms), first moving the clock to its time when that is
   * later (advance: each task runs at its own time). Resolves to whether one ran, once what it started
   * has finished.
   */
  runNext(workspace: Workspace, upTo: number): Promise<boolean> {
    return this.runOne(workspace, () => {
      const task = workspace.tasks.peek();
      if (!task || task.at > upTo) return undefined;
      if (task.at > workspace.clock.nowMs()) workspace.clock.set(task.at);
      return task;
    });
  }

  /** Moves a workspace's clock on by `ms`, running every task that falls due, in time order, at its own time. */
  async advance(workspace: Workspace, ms: number): Promise<void> {
    const target = (await this.store.transactBackground(workspace, () => workspace.clock.nowMs())) + ms;
    while (await this.runNext(workspace, target));
    await this.store.transactBackground(
      workspace,
      () => target > workspace.clock.nowMs() && workspace.clock.set(target),
    );
  }

  /** Runs every task due now (the Redis store's poll found the workspace due). */
  async runDue(workspace: Workspace): Promise<void> {
    while (await this.runNext(workspace, workspace.clock.nowMs()));
  }

  /** One task, chosen and run in one transaction (a store shared by processes reads the workspace first). */
  private async runOne(workspace: Workspace, choose: () => Task | undefined): Promise<boolean> {
    let started: Promise<void> | undefined;
    let ran = false;
    await this.store.transactBackground(workspace, () => {
      started = undefined;
      const task = choose();
      ran = task !== undefined;
      if (!task) return;
      workspace.tasks.cancel(task.id);
      started = this.run(workspace, task);
    });
    await started;
    return ran;
  }

  private run(workspace: Workspace, task: Task): Promise<void> | undefined {
    const { calls, batches, chats, webhooks } = this.simulation;
    switch (task.kind) {
      case "call":
        return void calls.step(workspace, task);
      case "testRun":
        return void batches.step(workspace, task);
      case "chatEnd":
        return void chats.step(workspace, task);
      case "delivery":
        return webhooks.step(workspace, task);
    }
  }
}
