/**
 * What every view is given: the control-plane client, the live stream's state and events, the request
 * feed, the shared lists (workspaces, operations), and the route. Plus the hooks the views share to load
 * a list, reload it on the events that change it, and show a refusal's message.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { DashboardApi, OperationInfo, WorkspaceInfo } from "./api.js";
import { ControlError } from "./api.js";
import type { LiveState } from "./events.js";
import type { RequestFeed } from "./request-feed.js";
import type { Scope } from "./session.js";

import { VIEWS, type ViewName } from "./view-names.js";

export { VIEWS, type ViewName } from "./view-names.js";

export interface Route {
  view: ViewName;
  /** The request open in the detail pane (`#/requests/<id>`). */
  requestId?: string;
}

/** `#/requests/42` -> { view: "requests", requestId: "42" }; anything else opens Requests. */
export function routeOf(hash: string): Route {
  const [view, ...rest] = hash.replace(/^#\/?/, "").split("/");
  const known = VIEWS.find((v) => v.name === view);
  if (!known) return { view: "requests" };
  const requestId = known.name === "requests" && rest.length > 0 ? decodeURIComponent(rest.join("/")) : undefined;
  return requestId ? { view: "requests", requestId } : { view: known.name };
}

export function hashOf(route: Route): string {
  return route.requestId ? `#/requests/${encodeURIComponent(route.requestId)}` : `#/${route.view}`;
}

export type EventListener = (type: string, data: any) => void;

/** The live events, handed to whichever views listen now. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  emit(type: string, data: unknown): void {
    for (const listener of this.listeners) listener(type, data);
  }
}

export interface DashboardContext {
  api: DashboardApi;
  live: LiveState;
  bus: EventBus;
  feed: RequestFeed;
  /** The feed's version as last rendered (moves a few times a second at most). */
  feedVersion: number;
  workspaces: WorkspaceInfo[];
  reloadWorkspaces: () => void;
  operations: OperationInfo[];
  route: Route;
  navigate: (route: Route) => void;
  /** Whether routes are written to location.hash (the /__mock/ui page) or kept in the component. */
  deepLinks: boolean;
  /**
   * "workspace" when signed in with a workspace's key: the lists hold that workspace only, a request that
   * names no workspace means it, and mock-wide actions (creating a workspace) are refused.
   */
  scope: Scope;
}

/**
 * The workspace a view shows first: "default" for the whole mock; with a key, "" (no workspace named, so the
 * mock answers for the key's own; naming "default" would answer 404).
 */
export function firstWorkspaceOf(ctx: Pick<DashboardContext, "scope">): string {
  return ctx.scope === "workspace" ? "" : "default";
}

/**
 * The option of a picker for no workspace ("Any workspace"): with a key there is one workspace, so none.
 */
export function anyWorkspaceOf(ctx: Pick<DashboardContext, "scope">, label: string): string | undefined {
  return ctx.scope === "workspace" ? undefined : label;
}

/** Calls `listener` for the live events of `types` while the view is shown. */
export function useEvents(ctx: DashboardContext, types: readonly string[], listener: EventListener): void {
  const latest = useRef(listener);
  latest.current = listener;
  const key = types.join(",");
  useEffect(
    () => ctx.bus.on((type, data) => key.split(",").includes(type) && latest.current(type, data)),
    [ctx.bus, key],
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** The status of a refusal (404...), 0 when the mock did not answer. */
  errorStatus: number | undefined;
  loading: boolean;
  reload: () => void;
  /** reload(), at most once per `ms` however often it is asked (a busy stream). */
  reloadSoon: () => void;
  set: (data: T) => void;
}

/** Loads with `load` now, again when `deps` change or reload() is called; the newest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], ms = 400): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [errorStatus, setErrorStatus] = useState<number | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const soon = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => current && (setData(value), setError(undefined), setErrorStatus(undefined), setLoading(false)),
      (e) =>
        current &&
        (setError(messageOf(e)), setErrorStatus(e instanceof ControlError ? e.status : undefined), setLoading(false)),
    );
    return () => void (current = false);
  }, [...deps, tick]);
  useEffect(() => () => clearTimeout(soon.current), []);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const reloadSoon = useCallback(() => {
    if (soon.current !== undefined) return;
    soon.current = setTimeout(() => {
      soon.current = undefined;
      setTick((t) => t + 1);
    }, ms);
  }, [ms]);
  return { data, error, errorStatus, loading, reload, reloadSoon, set: setData };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The per-field errors of a refusal, when it was one. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  return error instanceof ControlError ? error.fieldErrors : {};
}
