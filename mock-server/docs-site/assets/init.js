/*
 * Starts Swagger UI on a /docs page (html.ts). A file of its own rather than an inline script, so the
 * page's Content-Security-Policy allows scripts from 'self' only. Plain browser JavaScript: it is
 * served as is, with no build step.
 */

(async function start() {
  var settings = JSON.parse(document.getElementById("docs-settings").textContent);
  var specUrl = new URL(settings.spec, location.href);
  var spec = await (await fetch(specUrl)).json();
  // The spec names this mock as a relative server (".." from /docs/x.json: where the mock is
  // mounted); spelled out, the server picker shows the address try-it calls.
  spec.servers = (spec.servers || []).map((server) =>
    Object.assign({}, server, { url: new URL(server.url, specUrl).href.replace(/\/$/, "") }),
  );

  var ui = SwaggerUIBundle({
    spec: spec,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    // BaseLayout: no top bar with its "Explore" box; our header links the two pages instead.
    layout: "BaseLayout",
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: true,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    showExtensions: true,
    showCommonExtensions: true,
    requestSnippetsEnabled: true,
    // The Schemas section starts folded (the responses show theirs); a response's schema opens two levels.
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    // Nothing leaves the machine: no badge from validator.swagger.io.
    validatorUrl: null,
    onComplete: () => {
      // The default workspace's key, unless the reader authorized with another one (kept in localStorage).
      if (settings.apiKey && ui.authSelectors.authorized().size === 0)
        ui.preauthorizeApiKey(settings.securityScheme, settings.apiKey);
    },
  });
  window.ui = ui;

  // The contents list: open the operation and scroll to it, as a deep link does when the page loads.
  var toc = document.getElementById("docs-toc");
  if (toc) {
    toc.addEventListener("click", (event) => {
      var link = event.target.closest("a[href^='#/']");
      if (!link) return;
      event.preventDefault();
      var hash = link.getAttribute("href");
      history.pushState(null, "", hash);
      ui.layoutActions.parseDeepLinkHash(hash);
      // parseDeepLinkHash opens the operation but, after the page has loaded, does not scroll to it.
      requestAnimationFrame(() => {
        var block = document.getElementById(link.dataset.target);
        if (block) block.scrollIntoView({ block: "start" });
      });
    });
  }
})().catch((error) => {
  document.getElementById("swagger-ui").textContent = `The docs did not start: ${error}`;
});
