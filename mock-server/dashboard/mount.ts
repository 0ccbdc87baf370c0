/**
 * `agent-platform-mock-kit/dashboard`: the dashboard of /__mock/ui, mounted in any element of your app,
 * for Storybook and dev builds that run the mock in the page (MSW, `createMockHandlers`). It reads the
 * control plane the handlers serve at `baseUrl`, as the /__mock/ui page reads the server's.
 *
 *   const { handlers } = createMockHandlers({ baseUrl: "https://api.example.com" });
 *   await setupWorker(...handlers).start();
 *   mountDashboard(document.getElementById("mock")!, { baseUrl: "https://api.example.com" });
 *
 * Given no controlToken or apiKey, a mock that asks for one (--control-token) gets a sign-in view, and the
 * secret typed there is kept in the tab's sessionStorage (sign-in.ts).
 *
 * The dashboard lives in an open shadow root with one constructed stylesheet, so your app's CSS and its
 * own do not mix, and it needs no inline script or style: it runs under a strict Content-Security-Policy.
 */
import { html } from "htm/preact";
import { render } from "preact";
import { Dashboard } from "./sign-in.js";
import type { ViewName } from "./view-names.js";
import { STYLES } from "./styles.js";

export type { ViewName } from "./view-names.js";

/** Where createMockHandlers() and `npm start` serve by default. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:4010";

export interface DashboardOptions {
  /** Where the mock's /v1 and /__mock live (a mount path included). Default http://127.0.0.1:4010, as createMockHandlers(). */
  baseUrl?: string;
  /**
   * Sent as `Authorization: Bearer <token>` on every control request (a mock started with --control-token).
   * Without it or apiKey, the dashboard asks for one when the mock answers 401.
   */
  controlToken?: string;
  /** Sent as `X-API-Key` on every control request (a workspace's key controls that workspace). */
  apiKey?: string;
  /**
   * Keep the open view and request in location.hash (`#/requests/<id>`), so a link opens them. Default
   * false: a dashboard mounted in an app leaves the app's URL alone.
   */
  deepLinks?: boolean;
  /** The view shown first. Default "requests". */
  view?: ViewName;
  /** Requests kept in memory, the newest. Default 500. */
  keep?: number;
  /** The fetch to use. Default the page's (looked up on each call, so MSW's patch of it counts). */
  fetch?: typeof fetch;
}

export interface MountedDashboard {
  /** Closes the event stream and removes the dashboard from the element. */
  unmount(): void;
}

export function mountDashboard(element: HTMLElement, options: DashboardOptions = {}): MountedDashboard {
  const shadow = element.shadowRoot ?? element.attachShadow({ mode: "open" });
  adoptStyles(shadow);
  const container = document.createElement("div");
  shadow.append(container);
  const connection = {
    baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ""),
    ...(options.controlToken && { controlToken: options.controlToken }),
    ...(options.apiKey && { apiKey: options.apiKey }),
    fetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)),
  };
  render(
    html`<${Dashboard} connection=${connection} deepLinks=${options.deepLinks ?? false} view=${options.view} keep=${options.keep} />`,
    container,
  );
  return {
    unmount() {
      render(null, container);
      container.remove();
    },
  };
}

/** One constructed stylesheet; a browser without them (an old one, jsdom) shows the dashboard unstyled. */
function adoptStyles(shadow: ShadowRoot): void {
  if (!("adoptedStyleSheets" in shadow) || typeof CSSStyleSheet === "undefined") return;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    // No constructable stylesheets: unstyled but working.
  }
}
