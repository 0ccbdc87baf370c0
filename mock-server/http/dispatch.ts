/**
 * The spec's operations as one Express layer: a table of path templates, each with its stages per
 * method. Seventeen routes and their fifteen 405 catch-alls as Express layers cost every /v1 request
 * a walk through the router (a match, a `next` and a try/catch per layer): about a fifth of the
 * mock's CPU per request in a profile under load. The table keeps Express 5's semantics:
 *   - paths match as Express 5 (path-to-regexp 8) matches them: case-insensitive, one optional
 *     trailing slash, a parameter is one non-empty segment, percent-decoded (malformed: 400);
 *   - HEAD runs GET's stages where the path has a GET;
 *   - a known path with another method: a plain OPTIONS gets 204 with Allow (cors() has answered
 *     preflights), anything else 405 with Allow; an unknown path goes on to the 404 handler;
 *   - stages run like a route's: a throw or a rejected promise goes to the error handler.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ApiError } from "./errors.js";

interface PathEntry {
  regexp: RegExp;
  keys: string[];
  stages: Map<string, RequestHandler[]>;
  allow: string;
}

export interface DispatchRoute {
  method: string;
  /** An Express route path with named parameters: /v1/calls/:callId */
  routePath: string;
  stages: RequestHandler[];
}

const escape = (text: string) => text.replace(/[.+*?^${}()[\]|/\\]/g, "\\$&");

/** The regular expression Express 5 builds for such a path (path-to-regexp 8, not strict, not case-sensitive). */
function compilePath(routePath: string): { regexp: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = routePath
    .replace(/\/+$/, "")
    .split(/(:\w+)/)
    .map((part) => (part.startsWith(":") ? (keys.push(part.slice(1)), "([^\\/]+)") : escape(part)))
    .join("");
  return { regexp: new RegExp(`^(?:${source})(?:\\/$)?$`, "i"), keys };
}

/** As Express's router decodes a parameter: only when it holds a `%`, and a malformed one is a 400. */
function decodeParam(value: string): string {
  if (value.indexOf("%") === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) Object.assign(error, { message: `Failed to decode param '${value}'`, status: 400, statusCode: 400 });
    throw error;
  }
}

/** Runs a route's stages in turn; an error, thrown, rejected or passed to next, leaves for `done`. */
function runStages(stages: RequestHandler[], req: Request, res: Response, done: NextFunction, after: () => void): void {
  let index = 0;
  const next = (error?: unknown): void => {
    // "route" skips the rest of the stages, as it would leave an Express route for the 405 after it.
    if (error === "route") return after();
    if (error) return done(error);
    const stage = stages[index++];
    if (!stage) return after();
    try {
      const result: unknown = stage(req, res, next);
      if (result instanceof Promise) result.then(undefined, (rejected: unknown) => done(rejected || new Error("Rejected promise")));
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

export function dispatchOperations(routes: DispatchRoute[]): RequestHandler {
  const byPath = new Map<string, PathEntry>();
  for (const route of routes) {
    const entry = byPath.get(route.routePath) ?? { ...compilePath(route.routePath), stages: new Map(), allow: "" };
    entry.stages.set(route.method.toUpperCase(), route.stages);
    byPath.set(route.routePath, entry);
  }
  const entries = [...byPath.values()];
  for (const entry of entries) {
    const methods = [...entry.stages.keys()];
    entry.allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  }

  const notAllowed = (entry: PathEntry, req: Request, res: Response, next: NextFunction) => {
    // A plain OPTIONS (not a CORS preflight, which cors() answered) asks what is allowed.
    if (req.method === "OPTIONS") return void res.setHeader("Allow", entry.allow).status(204).end();
    next(new ApiError(405, `${req.method} is not allowed here; allowed: ${entry.allow}`, undefined, { Allow: entry.allow }));
  };

  return function dispatchOperation(req, res, next) {
    const path = req.path;
    for (const entry of entries) {
      const match = entry.regexp.exec(path);
      if (!match) continue;
      // Express's params: a fresh object without prototype, values decoded.
      const params: Record<string, string> = Object.create(null);
      try {
        for (let i = 0; i < entry.keys.length; i++) params[entry.keys[i]] = decodeParam(match[i + 1]);
      } catch (error) {
        return next(error);
      }
      const stages = entry.stages.get(req.method) ?? (req.method === "HEAD" ? entry.stages.get("GET") : undefined);
      if (!stages) return notAllowed(entry, req, res, next);
      req.params = params;
      return runStages(stages, req, res, next, () => notAllowed(entry, req, res, next));
    }
    next();
  };
}
