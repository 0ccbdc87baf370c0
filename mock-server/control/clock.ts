/**
 * Control plane, clocks: every workspace has its own. Advancing one workspace runs only what it has
 * scheduled (its calls, batch runs, webhook retries); advancing without a workspaceId moves the root
 * clock (where new workspaces start) and every workspace's.
 */
import type { Clock } from "../core/clock.js";
import { invalid } from "../core/errors.js";
import { objectBody, onlyKeys, optionalString, queryOf } from "./body.js";
import type { ControlRoute, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

export const MAX_ADVANCE_SECONDS = 31_536_000;

function clockState(clock: Clock, workspaceId: string | null) {
  return { now: clock.iso(), mode: clock.mode, speed: clock.speed, workspaceId };
}

export function clockRoutes({ workspaces, webhooks, scheduler }: ControlServices): ControlRoute[] {
  return [
    {
      operationId: "getClock",
      method: "GET",
      path: "/clock",
      handle: ({ query }) =>
        workspaces.control(() => {
          const { workspaceId } = queryOf(query, ["workspaceId"]);
          const clock = workspaceId === undefined ? workspaces.clock : workspaceOf(workspaces, workspaceId).clock;
          return { status: 200, body: clockState(clock, workspaceId ?? null) };
        }),
    },

    {
      operationId: "advanceClock",
      method: "POST",
      path: "/clock/advance",
      handle: async ({ body: raw }) => {
        // Each task that falls due runs as a transaction of its own, at its own time: only the reading is done here.
        await workspaces.catchUp();
        const body = objectBody(raw);
        onlyKeys(body, ["seconds", "workspaceId"]);
        const seconds = body.seconds;
        if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_ADVANCE_SECONDS) {
          throw invalid({ seconds: `must be a number from 0 to ${MAX_ADVANCE_SECONDS}` });
        }
        const workspaceId = optionalString(body.workspaceId, "workspaceId");
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
  ];
}
