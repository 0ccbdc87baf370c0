/**
 * Control plane, workspaces: health, reset (all, or one), create, delete, list, snapshots.
 * Resetting or deleting one workspace touches nothing of another: not its records, clock, journal
 * entries, webhook deliveries or fault rules.
 */
import { DEFAULT_WORKSPACE_ID, KIT_NAME, KIT_VERSION } from "../core/defaults.js";
import { ApiError, invalid } from "../core/errors.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import { objectBody, onlyKeys, optionalInteger } from "./body.js";
import type { ControlRoute, ControlServices } from "./types.js";
import { recordCheck } from "../store/record-checks.js";
import { exportSnapshot, importSnapshot } from "../store/snapshot.js";

export function workspaceOf(workspaces: Pick<Store, "get">, id: string): Workspace {
  const workspace = workspaces.get(id);
  if (!workspace) throw new ApiError(404, `Workspace not found: ${id}`);
  return workspace;
}

const info = (w: Workspace) => ({ workspaceId: w.workspaceId, counts: w.counts() });

export function workspaceRoutes({
  workspaces,
  simulation,
  journal,
  faults,
  contract,
}: ControlServices): ControlRoute[] {
  const seedBody = (raw: unknown) => {
    const body = objectBody(raw);
    onlyKeys(body, ["seed"]);
    return optionalInteger(body.seed, "seed");
  };
  return [
    {
      operationId: "getHealth",
      method: "GET",
      path: "/health",
      handle: () => ({ status: 200, body: { status: "ok", kit: KIT_NAME, version: KIT_VERSION } }),
    },

    {
      operationId: "resetMock",
      method: "POST",
      path: "/reset",
      handle: async ({ body }) => {
        // Reseeding schedules what the seed has under way (the seeder resumes the simulation).
        workspaces.reset(DEFAULT_WORKSPACE_ID, seedBody(body));
        faults.clear();
        const seed = workspaceOf(workspaces, DEFAULT_WORKSPACE_ID).seed;
        // Last: what comes after an await is not part of the control plane's transaction (Store.control).
        await journal.clear();
        return { status: 200, body: { status: "ok", seed } };
      },
    },

    {
      operationId: "listWorkspaces",
      method: "GET",
      path: "/workspaces",
      handle: () => ({ status: 200, body: workspaces.list().map(info) }),
    },

    {
      operationId: "createWorkspace",
      method: "POST",
      path: "/workspaces",
      handle: ({ body: raw }) => {
        const body = objectBody(raw);
        onlyKeys(body, ["seed", "empty", "readOnly"]);
        for (const flag of ["empty", "readOnly"]) {
          if (body[flag] !== undefined && typeof body[flag] !== "boolean")
            throw invalid({ [flag]: "must be a boolean" });
        }
        const workspace = workspaces.create(
          {
            seed: optionalInteger(body.seed, "seed"),
            empty: body.empty as boolean | undefined,
            readOnly: body.readOnly as boolean | undefined,
          },
          workspaceOf(workspaces, DEFAULT_WORKSPACE_ID).random,
        );
        return { status: 201, body: { workspaceId: workspace.workspaceId, apiKey: workspace.apiKey } };
      },
    },

    {
      operationId: "resetWorkspace",
      method: "POST",
      path: "/workspaces/{workspaceId}/reset",
      handle: async ({ params, body }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        workspaces.resetOne(workspace, seedBody(body));
        faults.clear(workspace.workspaceId);
        const reply = { status: 200, body: { ...info(workspace), seed: workspace.seed } };
        await journal.clear(workspace.workspaceId);
        return reply;
      },
    },

    {
      operationId: "deleteWorkspace",
      method: "DELETE",
      path: "/workspaces/{workspaceId}",
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

    {
      operationId: "exportSnapshot",
      method: "GET",
      path: "/workspaces/{workspaceId}/snapshot",
      handle: ({ params }) => ({ status: 200, body: exportSnapshot(workspaceOf(workspaces, params.workspaceId)) }),
    },

    {
      operationId: "importSnapshot",
      method: "PUT",
      path: "/workspaces/{workspaceId}/snapshot",
      handle: ({ params, body }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        importSnapshot(workspace, objectBody(body), recordCheck(contract()));
        simulation.resume(workspace);
        return { status: 200, body: info(workspace) };
      },
    },
  ];
}
