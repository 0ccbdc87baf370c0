/**
 * Control plane, workspaces: health, reset (all, or one), create, delete, list, snapshots.
 * Resetting or deleting one workspace touches nothing of another: not its records, clock, journal
 * entries, webhook deliveries or fault rules.
 */
import { DEFAULT_WORKSPACE_ID, KIT_NAME, KIT_VERSION } from "../core/defaults.js";
import { ApiError } from "../core/errors.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { recordCheck } from "../store/record-checks.js";
import { exportSnapshot, importSnapshot } from "../store/snapshot.js";
import { holdScenario } from "../seed/index.js";

export function workspaceOf(workspaces: Pick<Store, "get">, id: string): Workspace {
  const workspace = workspaces.get(id);
  if (!workspace) throw workspaceNotFound(id);
  return workspace;
}

/** Also what a workspace's key gets for naming another workspace (control/access.ts): it cannot tell them apart. */
export const workspaceNotFound = (id: string) => new ApiError(404, `Workspace not found: ${id}`);

const info = (w: Workspace) => ({ workspaceId: w.workspaceId, apiKey: w.apiKey, counts: w.counts() });

type WorkspaceOperation =
  | "getHealth"
  | "resetMock"
  | "listWorkspaces"
  | "createWorkspace"
  | "resetWorkspace"
  | "deleteWorkspace"
  | "exportSnapshot"
  | "importSnapshot";

export function workspaceHandlers({
  workspaces,
  simulation,
  journal,
  faults,
  contract,
  drift,
}: ControlServices): ControlHandlers<WorkspaceOperation> {
  return {
    getHealth: {
      handle: () => ({ status: 200, body: { status: "ok", kit: KIT_NAME, version: KIT_VERSION } }),
    },

    resetMock: {
      handle: async ({ body }) => {
        // Reseeding schedules what the seed has under way (the seeder resumes the simulation).
        workspaces.reset(DEFAULT_WORKSPACE_ID, body?.seed);
        faults.clear();
        drift.clear();
        const seed = workspaceOf(workspaces, DEFAULT_WORKSPACE_ID).seed;
        // Last: what comes after an await is not part of the control plane's transaction (Store.control).
        await journal.clear();
        return { status: 200, body: { status: "ok", seed } };
      },
    },

    listWorkspaces: {
      // A workspace's key sees its own only.
      handle: ({ scope }) => ({
        status: 200,
        body: workspaces
          .list()
          .filter((w) => scope === undefined || w.workspaceId === scope)
          .map(info),
      }),
    },

    createWorkspace: {
      // A scenario is what an empty workspace is not seeded with: asking for both is a contradiction.
      check: ({ body }) => {
        const { empty, scenario } = (body ?? {}) as { empty?: unknown; scenario?: unknown };
        return empty === true && scenario !== undefined
          ? { scenario: "cannot be combined with empty: true (an empty workspace is seeded with nothing)" }
          : undefined;
      },
      handle: ({ body }) => {
        const workspace = workspaces.create(
          { seed: body?.seed, empty: body?.empty, readOnly: body?.readOnly, scenario: body?.scenario },
          workspaceOf(workspaces, DEFAULT_WORKSPACE_ID).random,
        );
        return { status: 201, body: { workspaceId: workspace.workspaceId, apiKey: workspace.apiKey } };
      },
    },

    resetWorkspace: {
      handle: async ({ params, body }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        workspaces.resetOne(workspace, body?.seed);
        faults.clear(workspace.workspaceId);
        const answer = { ...info(workspace), seed: workspace.seed };
        await journal.clear(workspace.workspaceId);
        return { status: 200, body: answer };
      },
    },

    deleteWorkspace: {
      handle: ({ params }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        // POST /__mock/reset and the printed key rely on it; reset it instead.
        if (workspace.workspaceId === DEFAULT_WORKSPACE_ID)
          throw new ApiError(
            409,
            "The default workspace cannot be deleted; reset it with POST /__mock/workspaces/default/reset",
          );
        workspaces.delete(workspace);
        faults.clear(workspace.workspaceId);
        return { status: 204 };
      },
    },

    exportSnapshot: {
      handle: ({ params }) => ({ status: 200, body: exportSnapshot(workspaceOf(workspaces, params.workspaceId)) }),
    },

    importSnapshot: {
      handle: ({ params, body }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        // The spec checks the shape (collections of objects); the store checks each record against its schema.
        importSnapshot(workspace, body, recordCheck(contract()));
        simulation.resume(workspace);
        holdScenario(workspace);
        return { status: 200, body: info(workspace) };
      },
    },
  };
}
