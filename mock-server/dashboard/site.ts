/**
 * The dashboard for the Node doors: GET /__mock/ui, an HTML shell with no inline script (the views come
 * from page.ts, bundled: bundle.ts), and GET /__mock/ui/dashboard.js. Served with a strict
 * Content-Security-Policy: scripts and styles from this origin only (the views adopt a constructed
 * stylesheet; nothing sets a style attribute), nothing else loaded from anywhere, so it works offline.
 * The page's links are relative, so it works wherever the mock is mounted (`/mock/__mock/ui`).
 */
import type { DashboardSite, StaticFile } from "../core/exchange.js";
import { dashboardBundle } from "./bundle.js";

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent platform mock · dashboard</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="dashboard"></div>
<noscript>The dashboard needs JavaScript.</noscript>
<script type="module" src="ui/dashboard.js"></script>
</body>
</html>
`;

const HEADERS = {
  // The script changes with the kit: revalidated rather than cached for an hour.
  "Cache-Control": "no-cache",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": DASHBOARD_CSP,
  "Referrer-Policy": "no-referrer",
};

export function nodeDashboardSite(): DashboardSite {
  return async (file): Promise<StaticFile | undefined> => {
    if (file === "") return { contentType: "text/html; charset=utf-8", body: PAGE, headers: HEADERS };
    if (file === "dashboard.js")
      return { contentType: "text/javascript; charset=utf-8", body: await dashboardBundle(), headers: HEADERS };
    return undefined;
  };
}
