/**
 * Control plane, clocks: every workspace has its own. Advancing one workspace runs only what it has
 * scheduled (its calls, batch runs, webhook retries); advancing without a workspaceId moves the root
 * clock (where new workspaces start) and every workspace's.
 */
import type { Clock } from "../core/clock.js";
import type { Workspace } from "../store/workspace.js";
import { WorkspaceGone } from "../store/store.js";
import type { Task } from "../store/tasks.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

/** How much of a workspace's scheduled work a clock shows. */
const PENDING_SHOWN = 100;

function clockState(clock: Clock, workspaceId: string | null) {
  return { now: clock.iso(), mode: clock.mode, speed: clock.speed, workspaceId };
}

/** A workspace's clock with its scheduled work, soonest first: what an advance would run. */
function workspaceClockState(workspace: Workspace) {
  const pending = workspace.tasks
    .all()
    .sort((a, b) => a.at - b.at || a.seq - b.seq)
    .slice(0, PENDING_SHOWN)
    .map((task) => ({
      kind: task.kind,
      ref: task.ref,
      dueAt: new Date(task.at).toISOString(),
      subjectStatus: subjectStatus(workspace, task),
    }));
  return { ...clockState(workspace.clock, workspace.workspaceId), pending };
}

function subjectStatus(workspace: Workspace, task: Task): string | null {
  const { collections, outbox } = workspace;
  switch (task.kind) {
    case "call":
      return collections.calls.get(task.ref)?.status ?? null;
    case "chatEnd":
      return collections.chats.get(task.ref)?.status ?? null;
    case "testRun": {
      // A test run has no status field: running until it has a completion date.
      const run = collections.testRuns.get(task.ref);
      return run ? (run.completedDate === null ? "running" : "completed") : null;
    }
    case "delivery":
      return outbox.get(task.ref)?.status ?? null;
  }
}

export function clockHandlers({
  workspaces,
  webhooks,
  scheduler,
}: ControlServices): ControlHandlers<"getClock" | "advanceClock"> {
  return {
    getClock: {
      handle: ({ query: { workspaceId } }) =>
        workspaces.control(() => {
          const body =
            workspaceId === undefined
              ? clockState(workspaces.clock, null)
              : workspaceClockState(workspaceOf(workspaces, workspaceId));
          return { status: 200, body };
        }),
    },

    advanceClock: {
      handle: async ({ body: { seconds, workspaceId } }) => {
        // Each task that falls due runs as a transaction of its own, at its own time: only the reading is done here.
        await workspaces.catchUp();
        const one = workspaceId === undefined ? undefined : workspaceOf(workspaces, workspaceId);
        const ms = Math.round(seconds * 1000);
        if (one) await scheduler.advance(one, ms);
        else {
          await workspaces.transactMock(() => workspaces.clock.set(workspaces.clock.nowMs() + ms));
          // A workspace another process deletes meanwhile has nothing left to advance.
          for (const workspace of workspaces.list())
            await scheduler.advance(workspace, ms).catch((error: unknown) => {
              if (!(error instanceof WorkspaceGone)) throw error;
            });
        }
        // What fell due includes webhook attempts: the answer waits for them, so a test can look next.
        await webhooks.idle();
        return { status: 200, body: one ? workspaceClockState(one) : clockState(workspaces.clock, null) };
      },
    },
  };
}
