/**
 * X-API-Key -> workspace. Only the header counts: a key in the query string is ignored, so it never
 * lands in access logs. Missing or unknown key: 401. A read-only key on a write: 403 (x-assumption).
 */
import { ApiError } from "../core/errors.js";
import type { Workspace, Workspaces } from "../store/workspace.js";

function admit(workspace: Workspace | undefined, method: string): Workspace {
  if (!workspace) throw new ApiError(401, "API key is invalid");
  if (workspace.readOnly && method !== "GET" && method !== "HEAD")
    throw new ApiError(403, "The API key is read-only and cannot change state");
  return workspace;
}

/** The workspace of the request's key; a promise only where the platform hashes asynchronously. */
export function authenticate(
  workspaces: Workspaces,
  key: string | string[] | undefined,
  method: string,
): Workspace | Promise<Workspace> {
  if (typeof key !== "string" || key.length === 0)
    throw new ApiError(401, "API key is missing: send it in the X-API-Key header");
  const found = workspaces.authenticate(key);
  return found instanceof Promise ? found.then((workspace) => admit(workspace, method)) : admit(found, method);
}
