/**
 * X-API-Key -> workspace. Only the header counts: a key in the query string is ignored, so it never
 * lands in access logs. Missing or unknown key: 401. A read-only key on a write: 403 (x-assumption).
 */
import type { RequestHandler } from "express";
import { ApiError } from "./errors.js";
import type { Workspaces } from "../store/workspace.js";

export function authenticate(workspaces: Workspaces): RequestHandler {
  return function requireApiKey(req, _res, next) {
    const key = req.headers["x-api-key"];
    if (typeof key !== "string" || key.length === 0) {
      next(new ApiError(401, "API key is missing: send it in the X-API-Key header"));
      return;
    }
    const workspace = workspaces.authenticate(key);
    if (!workspace) {
      next(new ApiError(401, "API key is invalid"));
      return;
    }
    if (workspace.readOnly && req.method !== "GET" && req.method !== "HEAD") {
      next(new ApiError(403, "The API key is read-only and cannot change state"));
      return;
    }
    req.workspace = workspace;
    next();
  };
}
