/**
 * Runs the scheduled tasks of store/tasks.ts, each as one transaction of the workspace's store, so a
 * task's run is written whole or not at all, like a request's. In memory, each task scheduled wakes the
 * workspace's clock at its time (the clock runs it then, or in order on advance); a shared store finds
 * due tasks itself (store/shared/) and runs them through `fire` as well.
 */
import type { Task } from "../store/tasks.js";
import type { Workspace } from "../store/workspace.js";
import type { Transact } from "../webhooks/dispatcher.js";
import type { Simulation } from "./simulation.js";

export class Scheduler {
  constructor(
    private readonly simulation: Simulation,
    private readonly transact: Transact,
  ) {}

  /** In memory: every task scheduled on this workspace wakes its clock at the task's time. */
  wakeClockOf(workspace: Workspace): void {
    workspace.tasks.onScheduled = (task) => workspace.clock.schedule(task.at, () => this.fire(workspace, task.id, task.seq));
  }

  /**
   * Runs a task if it is still scheduled (as scheduled at `seq`, when given: a task scheduled again
   * since has its own wake-up). Resolves when what it started (a webhook attempt) has finished.
   */
  async fire(workspace: Workspace, taskId: string, seq?: number): Promise<void> {
    let started: Promise<void> | undefined;
    await this.transact(workspace, () => {
      started = undefined;
      const task = workspace.tasks.get(taskId);
      if (!task || (seq !== undefined && task.seq !== seq)) return;
      workspace.tasks.cancel(task.id);
      started = this.run(workspace, task);
    });
    await started;
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
