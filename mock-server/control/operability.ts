/**
 * What operators and load balancers ask: is this replica ready to serve (its store answers and holds a
 * seeded mock), and its metrics. Health (workspaces.ts) only says the process answers.
 */
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { ApiError } from "../core/errors.js";
import type { ControlHandlers, ControlServices } from "./types.js";

/** A store that has not answered by then counts as away: the 503 comes within this, not after the store's own timeout. */
export const READY_LIMIT_MS = 2_000;

export function operabilityHandlers({
  workspaces,
  metrics,
}: ControlServices): ControlHandlers<"getReady" | "getMetrics"> {
  return {
    getReady: {
      handle: async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const limit = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the store did not answer within ${READY_LIMIT_MS} ms`)),
            READY_LIMIT_MS,
          );
        });
        try {
          // Reads what changed (and seeds a store found empty, as the first request would).
          await Promise.race([workspaces.catchUp(), limit]);
        } catch (error) {
          throw new ApiError(503, `Not ready: ${(error as Error).message}`);
        } finally {
          clearTimeout(timer);
        }
        if (!workspaces.get(DEFAULT_WORKSPACE_ID)) throw new ApiError(503, "Not ready: the store is not seeded yet");
        return { status: 200, body: { status: "ready", store: workspaces.kind } };
      },
    },
    getMetrics: {
      handle: async () => {
        if (!metrics)
          throw new ApiError(404, "No metrics here: the MSW handlers have none; the Node doors serve /__mock/metrics");
        return { status: 200, text: await metrics.render() };
      },
    },
  };
}
