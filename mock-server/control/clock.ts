/**
 * Control plane, clocks: every workspace has its own. Advancing one workspace runs only what it has
 * scheduled (its calls, batch runs, webhook retries); advancing without a workspaceId moves the root
 * clock (where new workspaces start) and every workspace's.
 */
import type { Clock } from "../core/clock.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

function clockState(clock: Clock, workspaceId: string | null) {
  return { now: clock.iso(), mode: clock.mode, speed: clock.speed, workspaceId };
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
          const clock = workspaceId === undefined ? workspaces.clock : workspaceOf(workspaces, workspaceId).clock;
          return { status: 200, body: clockState(clock, workspaceId ?? null) };
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
          for (const workspace of workspaces.list()) await scheduler.advance(workspace, ms);
        }
        // What fell due includes webhook attempts: the answer waits for them, so a test can look next.
        await webhooks.idle();
        return { status: 200, body: clockState(one?.clock ?? workspaces.clock, workspaceId ?? null) };
      },
    },
  };
}
