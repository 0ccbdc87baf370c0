/**
 * The HTML shell of a docs page: Swagger UI renders into #swagger-ui, and a table of contents (tags
 * and their operations, rendered here from the spec so it is there before any script runs) sits
 * beside it. No inline script: the page's settings travel in a JSON data block that assets/init.js
 * reads, so the Content-Security-Policy can allow scripts from 'self' only.
 *
 * Assets are linked relative to the page, so the pages work wherever the mock is mounted; but the
 * core serves /docs/ and /docs/control/ too, where those links resolve one level too deep. There
 * nothing loads, and the notice docs.css hides shows instead, linking to the page's own address.
 */

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];

export interface PageSettings {
  /** The spec's URL, relative to the page. */
  spec: string;
  /** Prefilled in the Authorize dialog (the mock's default workspace key). */
  apiKey?: string;
  /** The security scheme the key is for. */
  securityScheme?: string;
}

export interface PageOptions {
  title: string;
  /** How the page reaches /docs/{file}: "docs/" from /docs, "" from /docs/control. */
  assets: string;
  /** Which link of the top bar is this page. */
  current: "api" | "control";
  settings: PageSettings;
  spec: Json;
}

const escape = (text: unknown) =>
  String(text ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** Swagger UI's deep link of an operation: `#/{tag}/{operationId}`, white space in the tag as %20 (its createDeepLinkPath). */
const deepLink = (tag: string, operationId: string) => escape(`#/${tag.trim().replace(/\s/g, "%20")}/${operationId}`);

/** The id of an operation's block in Swagger UI: `operations-{tag}-{operationId}`, white space as `_` (its escapeDeepLinkPath). */
const blockId = (tag: string, operationId: string) => `operations-${tag.trim().replace(/\s/g, "_")}-${operationId}`;

function tableOfContents(spec: Json): string {
  const byTag = new Map<string, string[]>((spec.tags ?? []).map((t: Json) => [t.name, []]));
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const tag = op.tags?.[0] ?? "default";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag
        .get(tag)!
        .push(
          `<li><a href="${deepLink(tag, op.operationId)}" data-operation-id="${escape(op.operationId)}" data-target="${escape(blockId(tag, op.operationId))}" title="${escape(`${method.toUpperCase()} ${path}`)}"><span class="toc-method toc-${method}">${method.toUpperCase()}</span> ${escape(op.summary ?? op.operationId)}</a></li>`,
        );
    }
  }
  const groups = [...byTag]
    .filter(([, ops]) => ops.length > 0)
    .map(([tag, ops]) => `<li><span class="toc-tag">${escape(tag)}</span><ul>${ops.join("")}</ul></li>`);
  return `<nav id="docs-toc" aria-label="Contents"><h2>Contents</h2><ul>${groups.join("")}</ul></nav>`;
}

export function docsPageHtml({ title, assets, current, settings, spec }: PageOptions): string {
  const api = assets ? "docs" : "../docs";
  const control = `${assets}control`;
  const link = (href: string, label: string, here: boolean) =>
    `<a href="${href}"${here ? ' aria-current="page"' : ""}>${label}</a>`;
  // `<` escaped so the JSON cannot close the data block.
  const data = JSON.stringify(settings).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="icon" type="image/png" href="${assets}favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${assets}favicon-16x16.png" sizes="16x16">
<link rel="stylesheet" href="${assets}swagger-ui.css">
<link rel="stylesheet" href="${assets}docs.css">
<script type="application/json" id="docs-settings">${data}</script>
</head>
<body>
<p class="docs-moved">This page lives at <a href="../${escape(current === "api" ? "docs" : "control")}">${current === "api" ? "/docs" : "/docs/control"}</a> (without the trailing slash).</p>
<header class="docs-bar">
<span class="docs-name">Agent platform mock</span>
<nav aria-label="Pages">${link(api, "Platform API <code>/v1</code>", current === "api")}${link(control, "Control plane <code>/__mock</code>", current === "control")}</nav>
<a class="docs-spec" href="${escape(settings.spec)}">${escape(settings.spec.split("/").pop())}</a>
</header>
<div class="docs-layout">
${tableOfContents(spec)}
<main id="swagger-ui"></main>
</div>
<script src="${assets}swagger-ui-bundle.js"></script>
<script src="${assets}init.js"></script>
</body>
</html>
`;
}
