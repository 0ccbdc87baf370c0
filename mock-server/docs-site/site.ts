/**
 * The docs site of the Node doors: Swagger UI (swagger-ui-dist's files, served by the mock, so the
 * docs work offline; swaggerUiDir() says from where) over the two specs.
 *   /docs                    the platform API, with Prefer pickers and the default key prefilled
 *   /docs/control            the /__mock control plane
 *   /docs/openapi.json, /docs/mock-control.json   the specs as these pages show them (specs.ts)
 *   /docs/{asset}            Swagger UI's files and ours (assets/)
 * Nothing is read before the first request for it (the Swagger bundle is 1.5 MB), then it is kept.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Contract } from "../core/contract.js";
import type { DocsSite, StaticFile } from "../core/exchange.js";
import { docsPageHtml, type PageOptions } from "./html.js";
import { apiDocsSpec, controlDocsSpec } from "./specs.js";

export interface DocsSiteOptions {
  /** Prefilled as the API key: the mock's default workspace key. */
  apiKey: string;
}

/** Scripts from 'self' only; Swagger UI sets style attributes, hence 'unsafe-inline' for styles. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

const ASSET_HEADERS = { "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" };
/** Pages and specs carry the key and the mock's current spec: always revalidated. */
const FRESH_HEADERS = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };

/**
 * Where Swagger UI's files are read from. swagger-ui-dist is a dev dependency only: it depends on
 * @scarf/scarf, whose postinstall sends telemetry, and that must not run in every install of the kit.
 * So the build copies the files ASSETS serves into dist (scripts/build.mjs, SWAGGER_UI_FILES), beside
 * this module once compiled: that copy when it is there (running from dist/), else the package in
 * node_modules (running from the sources: tsx, the tests). Resolved on first use, not on import.
 */
function swaggerUiDir(): string {
  const built = fileURLToPath(new URL("./vendor/swagger-ui/", import.meta.url));
  if (existsSync(built)) return built;
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

const OWN_DIR = fileURLToPath(new URL("./assets/", import.meta.url));
const CONTROL_SPEC = fileURLToPath(new URL("../../generated/mock-control.json", import.meta.url));

/** Swagger UI's files and ours; a Swagger UI file added here goes into build.mjs's SWAGGER_UI_FILES too. */
const ASSETS: Record<string, { dir: () => string; contentType: string }> = {
  "swagger-ui-bundle.js": { dir: swaggerUiDir, contentType: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { dir: swaggerUiDir, contentType: "text/css; charset=utf-8" },
  "favicon-32x32.png": { dir: swaggerUiDir, contentType: "image/png" },
  "favicon-16x16.png": { dir: swaggerUiDir, contentType: "image/png" },
  "init.js": { dir: () => OWN_DIR, contentType: "text/javascript; charset=utf-8" },
  "docs.css": { dir: () => OWN_DIR, contentType: "text/css; charset=utf-8" },
};

export function nodeDocsSite({ apiKey }: DocsSiteOptions): DocsSite {
  const cache = new Map<string, StaticFile>();
  /** The spec the pages and specs in the cache were built from: the mock's contract when last asked. */
  let builtFor: Contract | undefined;

  const specs: Record<string, () => Record<string, any>> = {
    "openapi.json": () => apiDocsSpec(builtFor!),
    "mock-control.json": () => controlDocsSpec(JSON.parse(readFileSync(CONTROL_SPEC, "utf8"))),
  };
  const spec = (name: string) => JSON.parse(file(name)!.body as string);

  const page = (options: Omit<PageOptions, "spec">): StaticFile => ({
    contentType: "text/html; charset=utf-8",
    body: docsPageHtml({ ...options, spec: spec(options.settings.spec.split("/").pop()!) }),
    headers: { ...FRESH_HEADERS, "Content-Security-Policy": CSP },
  });
  const pages: Record<string, () => StaticFile> = {
    "": () =>
      page({
        title: "Agent platform API · mock docs",
        assets: "docs/",
        current: "api",
        settings: { spec: "docs/openapi.json", apiKey, securityScheme: securityScheme(spec("openapi.json")) },
      }),
    control: () =>
      page({
        title: "Mock control plane · mock docs",
        assets: "",
        current: "control",
        settings: { spec: "mock-control.json" },
      }),
  };

  function build(name: string): StaticFile | undefined {
    if (name in pages) return pages[name]();
    if (name in specs)
      return { contentType: "application/json", body: JSON.stringify(specs[name]()), headers: FRESH_HEADERS };
    const asset = ASSETS[name];
    if (asset)
      return { contentType: asset.contentType, body: readFileSync(join(asset.dir(), name)), headers: ASSET_HEADERS };
    return undefined;
  }

  function file(name: string): StaticFile | undefined {
    // Own properties only: `constructor` or `__proto__` are no file.
    if (!Object.hasOwn(pages, name) && !Object.hasOwn(specs, name) && !Object.hasOwn(ASSETS, name)) return undefined;
    let found = cache.get(name);
    if (!found) cache.set(name, (found = build(name)!));
    return found;
  }
  return (name, contract) => {
    // Another contract (a reload by --watch, or another mock given this site) makes the pages and both
    // specs stale; spec/mock-control.yaml may have changed too.
    if (builtFor !== contract) {
      for (const key of cache.keys()) if (!Object.hasOwn(ASSETS, key)) cache.delete(key);
      builtFor = contract;
    }
    return file(name);
  };
}

/** The first API-key-in-header scheme of the spec: the one the key is prefilled for. */
function securityScheme(spec: Record<string, any>): string | undefined {
  const schemes = Object.entries<Record<string, any>>(spec.components?.securitySchemes ?? {});
  return schemes.find(([, s]) => s.type === "apiKey" && s.in === "header")?.[0];
}
