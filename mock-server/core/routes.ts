/**
 * Path templates to routes, matched as Express 5 matches them (the routing tests pin this down):
 * literal segments case-insensitively, `{name}` as one segment that is percent-decoded, one optional
 * trailing slash. HEAD is served by a GET route. A path that matches with another method answers 405
 * with Allow; a plain OPTIONS there answers 204 with Allow.
 */
import { ApiError } from "./errors.js";

interface Route<T> {
  method: string;
  pattern: RegExp;
  names: string[];
  target: T;
}

export type RouteMatch<T> =
  | { found: true; target: T; params: Record<string, string> }
  | { found: false; allow?: string };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ApiError(400, `Failed to decode path parameter: ${value}`);
  }
}

export class RouteTable<T> {
  private readonly routes: Route<T>[] = [];

  /** `template`: `/v1/calls/{callId}`. */
  add(method: string, template: string, target: T): void {
    const names: string[] = [];
    const source = template
      .split(/\{([^}]+)\}/)
      .map((piece, i) => (i % 2 === 1 ? (names.push(piece), "([^/]+)") : escapeRegExp(piece)))
      .join("");
    this.routes.push({ method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`, "i"), names, target });
  }

  match(method: string, path: string): RouteMatch<T> {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        const params: Record<string, string> = {};
        for (let i = 0; i < route.names.length; i++) params[route.names[i]] = decodeParam(found[i + 1]);
        return { found: true, target: route.target, params };
      }
      if (!allowed.includes(route.method)) allowed.push(route.method);
    }
    if (allowed.length === 0) return { found: false };
    return { found: false, allow: [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ") };
  }
}
