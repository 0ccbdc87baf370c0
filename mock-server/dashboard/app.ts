/**
 * The dashboard's shell: the header (views as a nav of links, the live state), the view shown, and what
 * the views share. It opens the event stream once, keeps the request feed, and draws the feed at most
 * four times a second however fast requests come, so a mock answering thousands a second leaves the
 * page responsive. A `dropped` event (the page fell behind) makes the views load their lists again.
 */
import { html } from "htm/preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type Connection, createDashboardApi } from "./api.js";
import type { DashboardContext, Route, ViewName } from "./context.js";
import { EventBus, hashOf, routeOf, useLoad, VIEWS } from "./context.js";
import { connectLive, type LiveState } from "./events.js";
import { RequestFeed } from "./request-feed.js";
import { type Scope, scopeOf } from "./session.js";
import { ClocksView } from "./views/clocks.js";
import { CoverageView } from "./views/coverage.js";
import { FaultsView } from "./views/faults.js";
import { RequestsView } from "./views/requests.js";
import { WebhooksView } from "./views/webhooks.js";
import { WorkspacesView } from "./views/workspaces.js";

/** The feed is drawn at most this often. */
export const RENDER_MS = 250;
/**
 * More new requests than this since the last drawing, and the next waits BUSY_RENDER_MS: the rows are all
 * new at every drawing by then, too many to read, and drawing them is most of what the page costs.
 */
export const BUSY_CHANGES = 100;
export const BUSY_RENDER_MS = 1000;

export interface AppProps {
  connection: Connection;
  /** Routes live in location.hash (the /__mock/ui page owns its window), else in the component. */
  deepLinks: boolean;
  /** The first view when there is no deep link. */
  view?: ViewName;
  /** Requests kept in memory. */
  keep?: number;
  /** Signed in through the sign-in view: what with, and how to sign out (a header control). */
  account?: Account;
}

export interface Account {
  /** What the session holds, for the header ("Control token"); never the secret. */
  label: string;
  signOut: () => void;
}

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: "Connecting…",
  live: "Live",
  offline: "Offline, retrying",
};

const VIEW_OF: Record<ViewName, (props: { ctx: DashboardContext }) => unknown> = {
  requests: RequestsView,
  webhooks: WebhooksView,
  faults: FaultsView,
  clocks: ClocksView,
  workspaces: WorkspacesView,
  coverage: CoverageView,
};

export function App({ connection, deepLinks, view, keep, account }: AppProps) {
  const scope: Scope = scopeOf(connection);
  const api = useMemo(() => createDashboardApi(connection), [connection]);
  const feed = useMemo(() => new RequestFeed(keep), [keep]);
  const bus = useMemo(() => new EventBus(), []);
  const [live, setLive] = useState<LiveState>("connecting");
  const [feedVersion, setFeedVersion] = useState(0);
  const [route, setRoute] = useState<Route>(() =>
    deepLinks && location.hash ? routeOf(location.hash) : { view: view ?? "requests" },
  );
  const workspaces = useLoad(() => api.workspaces(), [api, live === "live"]);
  const operations = useLoad(() => api.operations(), [api, live === "live"]);
  const drawTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    let drawn = feed.version;
    /** Whether the last drawing came after more than BUSY_CHANGES new requests. */
    let busy = false;
    const draw = () => {
      if (drawTimer.current !== undefined) return;
      drawTimer.current = setTimeout(
        () => {
          drawTimer.current = undefined;
          busy = feed.version - drawn > BUSY_CHANGES;
          drawn = feed.version;
          setFeedVersion(feed.version);
        },
        busy ? BUSY_RENDER_MS : RENDER_MS,
      );
    };
    const unlisten = feed.listen(draw);
    const stream = connectLive({
      ...api.events(),
      fetch: connection.fetch,
      ...(connection.onUnauthorized && { onUnauthorized: connection.onUnauthorized }),
      onState: setLive,
      onEvent: ({ type, data }) => {
        let parsed: any;
        try {
          parsed = JSON.parse(data);
        } catch {
          return;
        }
        if (type === "request") feed.add(parsed);
        else if (type === "workspace") {
          // POST /__mock/reset clears the journal with everything else.
          if (parsed.change === "reset" && !parsed.workspaceId) feed.clear();
          workspaces.reloadSoon();
        } else if (type === "dropped") workspaces.reloadSoon();
        bus.emit(type, parsed);
      },
    });
    return () => {
      unlisten();
      stream.close();
      clearTimeout(drawTimer.current);
    };
  }, [api, feed, bus]);

  useEffect(() => {
    if (!deepLinks) return;
    const follow = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, [deepLinks]);

  const navigate = useCallback(
    (next: Route) => {
      if (deepLinks) location.hash = hashOf(next);
      else setRoute(next);
    },
    [deepLinks],
  );

  const ctx: DashboardContext = {
    api,
    live,
    bus,
    feed,
    feedVersion,
    workspaces: workspaces.data ?? [],
    reloadWorkspaces: workspaces.reload,
    operations: operations.data ?? [],
    route,
    navigate,
    deepLinks,
    scope,
  };
  const View = VIEW_OF[route.view];
  const header = html`<header class="top">
    <h1>Agent Platform mock</h1>
    <nav class="tabs" aria-label="Dashboard views">
      <ul>
        ${VIEWS.map(
          (v) => html`<li key=${v.name}>
            <a
              href=${hashOf({ view: v.name })}
              aria-current=${route.view === v.name ? "page" : undefined}
              onClick=${(e: Event) => {
                if (deepLinks) return;
                e.preventDefault();
                navigate({ view: v.name });
              }}
              >${v.label}</a
            >
          </li>`,
        )}
      </ul>
    </nav>
    <p class="live" role="status" data-live=${live} data-testid="live">${LIVE_TEXT[live]}</p>
    ${
      account &&
      html`<div class="account row">
      <span class="muted" data-testid="account">${account.label}</span>
      <button type="button" onClick=${account.signOut}>Sign out</button>
    </div>`
    }
  </header>`;
  const body = html`<${View} ctx=${ctx} />`;
  // The /__mock/ui page is the whole document: it has the landmarks; mounted in an app, one region.
  return deepLinks
    ? html`<div class="dash">${header}<main class="view">${body}</main></div>`
    : html`<section class="dash" aria-label="Mock dashboard">${header}<div class="view">${body}</div></section>`;
}
