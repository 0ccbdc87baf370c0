/**
 * X-API-Key -> workspace. Only the header counts: a key in the query string is ignored, so it never
 * lands in access logs. Missing or unknown key: 401. A read-only key on a write: 403 (x-assumption).
 */
import { ApiError } from "../core/errors.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";

/** The workspace of the request's key, read up to date by the store: at once when the store has it at hand (memory). */
export function authenticate(
  store: Pick<Store, "authenticate">,
  key: string | string[] | undefined,
  method: string,
): Workspace | Promise<Workspace> {
  if (typeof key !== "string" || key.length === 0)
    throw new ApiError(401, "API key is missing: send it in the X-API-Key header");
  const found = store.authenticate(key);
  return found instanceof Promise ? found.then((workspace) => admitted(workspace, method)) : admitted(found, method);
}

function admitted(workspace: Workspace | undefined, method: string): Workspace {
  if (!workspace) throw new ApiError(401, "API key is invalid");
  if (workspace.readOnly && method !== "GET" && method !== "HEAD")
    throw new ApiError(403, "The API key is read-only and cannot change state");
  return workspace;
}
