/**
 * The /__mock/ui page's script (bundled by bundle.ts): the dashboard in `#dashboard`, with deep links.
 * The mock is where the page is, minus `/__mock/ui`: `/mock/__mock/ui` under an Express mount at /mock
 * reads `/mock/__mock/...`. An element attribute `data-base-url` says otherwise.
 */
import { baseUrlOfPage } from "./api.js";
import { mountDashboard } from "./mount.js";

/** The page is the dashboard's alone: no margin around it (a constructed sheet, as the CSP allows no inline style). */
function fillThePage(): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("body { margin: 0; }");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch {
    // An old browser keeps its margin.
  }
}

fillThePage();
const element = document.getElementById("dashboard");
if (element) mountDashboard(element, { baseUrl: element.dataset.baseUrl || baseUrlOfPage(location), deepLinks: true });
